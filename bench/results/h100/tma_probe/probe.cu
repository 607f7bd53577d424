// Can TMA stage the lane kernel's input patch? (README.md) Standalone: nvcc -arch=sm_90 probe.cu
// Loads 6 x 18 pixel x tb_k channel boxes of an NHWC fp16 tensor with cp.async.bulk.tensor at
// origins inside, across and beyond the image's edges, and checks every element of shared
// memory against x (zero outside the image), for three layouts: dense boxes of tb_k channels;
// swizzled ones (64-byte swizzle at tb_k = 16, 128-byte at 32); and unswizzled boxes of
// tb_k + 8 channels, whose pixel pitch is the lane kernel's padded one (conflict-free for its
// LDS.64 pattern, banks.py). Prints one line per case, exits 1 on a mismatch.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      fprintf(stderr, "error: %s at %s:%d: %s\n", #call, __FILE__, __LINE__,               \
              cudaGetErrorString(e));                                                      \
      exit(2);                                                                             \
    }                                                                                      \
  } while (0)

constexpr int kN = 2, kH = 13, kW = 37, kC = 64;  // odd sizes: every edge case
constexpr int kRows = 6, kCols = 18;

// Byte offset of logical byte L of the box in shared memory under a swizzle of `span` bytes
// (16-byte chunks XOR the 128-byte row index, as many bits as the span has chunks).
__host__ __device__ inline int swizzled(int L, int span) {
  const int mask = span == 128 ? 7 : span == 64 ? 3 : span == 32 ? 1 : 0;
  return L ^ (((L >> 7) & mask) << 4);
}

// The box's pixel pitch in shared memory: its inner dimension (box_c channels), or the swizzle
// span when swizzled (run 1: a swizzled box pads each pixel to the span).
__host__ __device__ inline int pitch_bytes(int box_c, int span) { return span ? span : 2 * box_c; }

__global__ void load_box(const __grid_constant__ CUtensorMap map, int4 origin, int tb_k,
                         int box_c, int span, half* out) {
  __shared__ alignas(1024) unsigned char box[kRows * kCols * 128];
  __shared__ alignas(8) unsigned long long bar;
  const uint32_t bar_at = (uint32_t)__cvta_generic_to_shared(&bar);
  const uint32_t box_at = (uint32_t)__cvta_generic_to_shared(box);
  const int bytes = kRows * kCols * box_c * 2;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_at));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_at),
                 "r"(bytes) : "memory");
    // coordinates innermost first: channel, column, row, image (negative: outside, zero fill)
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(box_at),
        "l"(&map), "r"(origin.w), "r"(origin.z), "r"(origin.y), "r"(origin.x), "r"(bar_at)
        : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar_at) : "memory");
  for (int i = threadIdx.x; i < kRows * kCols * tb_k; i += blockDim.x) {
    const int pixel = i / tb_k, c = i % tb_k;
    out[i] = *reinterpret_cast<const half*>(
        box + swizzled(pixel * pitch_bytes(box_c, span) + 2 * c, span));
  }
}

int main() {
  std::vector<half> x_host((size_t)kN * kH * kW * kC);
  auto value = [](int n, int y, int x, int c) {
    return (float)(((((n * kH + y) * kW + x) * kC + c) % 2039) + 1);  // exact in fp16, never 0
  };
  for (int n = 0; n < kN; ++n)
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x)
        for (int c = 0; c < kC; ++c)
          x_host[(((size_t)n * kH + y) * kW + x) * kC + c] = __float2half(value(n, y, x, c));
  half *x, *out;
  CHECK(cudaMalloc(&x, x_host.size() * sizeof(half)));
  CHECK(cudaMalloc(&out, kRows * kCols * 64 * sizeof(half)));
  CHECK(cudaMemcpy(x, x_host.data(), x_host.size() * sizeof(half), cudaMemcpyHostToDevice));

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !fn) {
    fprintf(stderr, "error: cuTensorMapEncodeTiled not found in the driver\n");
    return 2;
  }
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);

  const int4 origins[] = {  // image, row, column, (channel set per case): top-left corner,
      {0, -1, -1, 0}, {0, 3, 5, 0}, {1, 7, 19, 0},  // interior, bottom-right beyond the edge,
      {1, -1, 15, 0}, {0, 10, 30, 0}, {1, 12, -1, 0}};  // top edge, both far edges, left edge
  bool all_ok = true;
  // tests: dense boxes of tb_k channels; swizzled ones (64 B at tb_k = 16, 128 B at 32);
  // unswizzled boxes of tb_k + 8 channels, whose pitch is the lane kernel's padded pixel
  for (int test = 0; test < 6; ++test) {
    const int tb_k = test % 2 ? 32 : 16, span = test / 2 == 1 ? (tb_k == 16 ? 64 : 128) : 0;
    const int box_c = test / 2 == 2 ? tb_k + 8 : tb_k;
    CUtensorMap map;
    const cuuint64_t dims[4] = {kC, kW, kH, kN};
    const cuuint64_t strides[3] = {kC * 2, (cuuint64_t)kW * kC * 2, (cuuint64_t)kH * kW * kC * 2};
    const cuuint32_t box[4] = {(cuuint32_t)box_c, kCols, kRows, 1}, steps[4] = {1, 1, 1, 1};
    const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, x, dims, strides, box,
                              steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              span == 0    ? CU_TENSOR_MAP_SWIZZLE_NONE
                              : span == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                           : CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      fprintf(stderr, "error: cuTensorMapEncodeTiled(tb_k=%d) returned %d\n", tb_k, (int)r);
      return 2;
    }
    for (int4 o : origins)
      for (int c0 = 0; c0 < kC; c0 += tb_k) {
        const int4 at = make_int4(o.x, o.y, o.z, c0);
        CHECK(cudaMemset(out, 0xff, kRows * kCols * 64 * sizeof(half)));  // poison
        load_box<<<1, 64>>>(map, at, tb_k, box_c, span, out);
        CHECK(cudaGetLastError());
        std::vector<half> got(kRows * kCols * tb_k);
        CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(half), cudaMemcpyDeviceToHost));
        int wrong = 0, outside = 0;
        for (int r = 0; r < kRows; ++r)
          for (int col = 0; col < kCols; ++col)
            for (int c = 0; c < tb_k; ++c) {
              const int y = o.y + r, xx = o.z + col;
              const bool in = y >= 0 && y < kH && xx >= 0 && xx < kW;
              outside += !in;
              const float want = in ? value(o.x, y, xx, c0 + c) : 0.f;
              wrong += __half2float(got[(r * kCols + col) * tb_k + c]) != want;
            }
        all_ok = all_ok && wrong == 0;
        printf("tb_k %2d box %2d swizzle %3dB origin (n %d, row %3d, col %3d, channel %2d): %5d values, "
               "%5d outside, %s\n", tb_k, box_c, span, o.x, o.y, o.z, c0, kRows * kCols * tb_k, outside,
               wrong ? "MISMATCH" : "ok");
        if (wrong) {
          // Where the expected values of the first pixels went: the layout as found.
          printf("  %d wrong; want (row, col, channel) -> found at box byte offsets:", wrong);
          for (int i = 0; i < 3 * tb_k; i += 4) {
            const int col = i / tb_k, c = i % tb_k;
            const float want = value(o.x, o.y, o.z + col, c0 + c);
            int at = -1;
            for (int j = 0; j < (int)got.size() && at < 0; ++j)
              if (__half2float(got[j]) == want) at = j;
            printf(" (0,%d,%d)->%d", col, c, at < 0 ? -1 : 2 * at);
          }
          printf("\n");
        }
      }
  }
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
  printf("%s\n", all_ok ? "all boxes match" : "MISMATCHES");
  return all_ok ? 0 : 1;
}
