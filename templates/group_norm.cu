// GroupNorm (optionally followed by SiLU) on NHWC fp16: the normalisation in front of the
// convolutions of diffusion VAE decoders, where PyTorch's channels_last GroupNorm reduces with
// one block per (image, group) and copies the layout twice.
//
// Three kernels: partial moments of pixel slices (a grid wide enough to fill the GPU), their
// merge into (mean, rstd) per (image, group), and y = act(x * scale + shift) with scale and
// shift per (image, channel). Moments are merged by Chan's formula, each thread's sums taken
// about its first value, so a large mean next to a small spread keeps its variance.
//
// C ABI (every int is a cudaError_t, 0 = success; pointers are device pointers):
//   size_t wino_gn_workspace_bytes(int n, int hw, int c, int groups);
//   int wino_gn_forward(const void* x, const void* gamma, const void* beta, void* y,
//                       void* workspace, int n, int hw, int c, int groups, float eps,
//                       int silu, cudaStream_t stream);
//   const char* wino_gn_error_string(int);
// x and y: N x HW x C halves, 16-byte aligned, C a multiple of 8 and of groups, C <= 4096,
// N <= 65535.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#define GN_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kVec = 8;           // channels a thread reads at once (16 bytes)
constexpr int kThreads = 256;     // a block's threads when C / kVec divides it
constexpr int kPixelsPerThread = 16;  // a stats or apply block's work along its slice
constexpr int kMaxChannels = 4096;
constexpr int kFinalThreads = 128;
constexpr int kLoads = 4;  // 16-byte loads a thread issues before using them (bytes in flight)

struct Moments {
  float count, mean, m2;
};

__device__ __forceinline__ Moments merge(Moments a, Moments b) {
  const float n = a.count + b.count;
  if (n == 0.f) return a;
  const float delta = b.mean - a.mean, wb = b.count / n;
  return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.count * wb};
}

__device__ __forceinline__ Moments warp_merge(Moments m) {
  for (int lane = 16; lane > 0; lane /= 2) {
    const Moments other = {__shfl_xor_sync(0xffffffffu, m.count, lane),
                           __shfl_xor_sync(0xffffffffu, m.mean, lane),
                           __shfl_xor_sync(0xffffffffu, m.m2, lane)};
    m = merge(m, other);
  }
  return m;
}

// How the work is cut: each block's threads are `rows` pixels of C / kVec vectors.
struct Plan {
  int n, hw, c, groups, vecs, rows, splits, apply_blocks;
  int threads() const { return vecs * rows; }
};

__device__ __forceinline__ void to_float(uint4 raw, float* f) {
  const __half2* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
  for (int j = 0; j < kVec / 2; ++j) {
    const float2 pair = __half22float2(h[j]);
    f[2 * j] = pair.x;
    f[2 * j + 1] = pair.y;
  }
}

// Moments of one (image, slice of pixels) per group: per-channel shifted sums in registers,
// then one warp per group merges the (row, channel) entries from shared memory.
__global__ void gn_stats(const __half* __restrict__ x, Moments* __restrict__ partials, Plan p) {
  extern __shared__ float smem[];
  float* mean_s = smem;                    // [rows][c]
  float* m2_s = smem + p.rows * p.c;       // [rows][c]
  float* count_s = smem + 2 * p.rows * p.c;  // [rows]
  const int v = threadIdx.x % p.vecs, r = threadIdx.x / p.vecs;
  const int per = (p.hw + p.splits - 1) / p.splits;
  const int begin = blockIdx.x * per, end = min(p.hw, begin + per);
  const __half* at = x + static_cast<size_t>(blockIdx.y) * p.hw * p.c + v * kVec;
  float shift[kVec] = {}, sum[kVec] = {}, sq[kVec] = {};
  int count = 0;
  if (begin + r < end) to_float(__ldg(reinterpret_cast<const uint4*>(
                                    at + static_cast<size_t>(begin + r) * p.c)), shift);
  for (int px = begin + r; px < end; px += kLoads * p.rows) {
    uint4 raw[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const int q = px + u * p.rows;
      raw[u] = q < end ? __ldg(reinterpret_cast<const uint4*>(at + static_cast<size_t>(q) * p.c))
                       : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      if (px + u * p.rows >= end) break;
      float f[kVec];
      to_float(raw[u], f);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const float d = f[j] - shift[j];
        sum[j] += d;
        sq[j] = fmaf(d, d, sq[j]);
      }
      ++count;
    }
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    const float m = count ? sum[j] / count : 0.f;
    mean_s[r * p.c + v * kVec + j] = shift[j] + m;
    m2_s[r * p.c + v * kVec + j] = count ? fmaxf(sq[j] - sum[j] * m, 0.f) : 0.f;
  }
  if (v == 0) count_s[r] = static_cast<float>(count);
  __syncthreads();
  const int per_group = p.c / p.groups, entries = p.rows * per_group;
  // Whole warps only (the shuffles): C / kVec need not divide kThreads.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int g = warp; warp < warps && g < p.groups; g += warps) {
    Moments acc = {0.f, 0.f, 0.f};
    for (int e = lane; e < entries; e += 32) {
      const int row = e / per_group, ch = g * per_group + e % per_group;
      acc = merge(acc, {count_s[row], mean_s[row * p.c + ch], m2_s[row * p.c + ch]});
    }
    acc = warp_merge(acc);
    if (lane == 0) partials[(static_cast<size_t>(blockIdx.y) * p.groups + g) * p.splits +
                            blockIdx.x] = acc;
  }
}

// (mean, rstd) of one (image, group) from its slices' moments.
__global__ void gn_finalize(const Moments* __restrict__ partials, float2* __restrict__ stats,
                            Plan p, float eps) {
  __shared__ Moments warps_s[kFinalThreads / 32];
  const Moments* mine = partials + static_cast<size_t>(blockIdx.x) * p.splits;
  Moments acc = {0.f, 0.f, 0.f};
  for (int s = threadIdx.x; s < p.splits; s += blockDim.x) acc = merge(acc, mine[s]);
  acc = warp_merge(acc);
  if (threadIdx.x % 32 == 0) warps_s[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kFinalThreads / 32; ++w) acc = merge(acc, warps_s[w]);
    stats[blockIdx.x] = make_float2(acc.mean, rsqrtf(acc.m2 / acc.count + eps));
  }
}

// y = act(x * scale + shift), scale and shift per channel of this block's image.
__global__ void gn_apply(const __half* __restrict__ x, const __half* __restrict__ gamma,
                         const __half* __restrict__ beta, const float2* __restrict__ stats,
                         __half* __restrict__ y, Plan p, int silu) {
  extern __shared__ float smem[];
  float* scale_s = smem;         // [c]
  float* shift_s = smem + p.c;   // [c]
  const int per_group = p.c / p.groups;
  for (int ch = threadIdx.x; ch < p.c; ch += blockDim.x) {
    const float2 st = stats[blockIdx.y * p.groups + ch / per_group];
    const float scale = __half2float(gamma[ch]) * st.y;
    scale_s[ch] = scale;
    shift_s[ch] = __half2float(beta[ch]) - st.x * scale;
  }
  __syncthreads();
  const int v = threadIdx.x % p.vecs, r = threadIdx.x / p.vecs;
  float scale[kVec], shift[kVec];
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    scale[j] = scale_s[v * kVec + j];
    shift[j] = shift_s[v * kVec + j];
  }
  const size_t image = static_cast<size_t>(blockIdx.y) * p.hw * p.c + v * kVec;
  const int stride = gridDim.x * p.rows;
  for (int px = blockIdx.x * p.rows + r; px < p.hw; px += kLoads * stride) {
    uint4 raw[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const int q = px + u * stride;
      raw[u] = q < p.hw ? __ldg(reinterpret_cast<const uint4*>(x + image +
                                                               static_cast<size_t>(q) * p.c))
                        : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const int q = px + u * stride;
      if (q >= p.hw) break;
      float f[kVec];
      to_float(raw[u], f);
      uint4 out;
      __half2* h = reinterpret_cast<__half2*>(&out);
#pragma unroll
      for (int j = 0; j < kVec / 2; ++j) {
        float a = fmaf(f[2 * j], scale[2 * j], shift[2 * j]);
        float b = fmaf(f[2 * j + 1], scale[2 * j + 1], shift[2 * j + 1]);
        if (silu) {
          a = a / (1.f + __expf(-a));
          b = b / (1.f + __expf(-b));
        }
        h[j] = __floats2half2_rn(a, b);
      }
      *reinterpret_cast<uint4*>(y + image + static_cast<size_t>(q) * p.c) = out;
    }
  }
}

int sm_count() {
  static int count = 0;
  if (count == 0) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      count = 1;
  }
  return count;
}

bool valid(int n, int hw, int c, int groups) {
  // n is a grid's y dimension (at most 65535)
  return n > 0 && n <= 65535 && hw > 0 && c > 0 && groups > 0 && c % kVec == 0 &&
         c % groups == 0 && c <= kMaxChannels;
}

Plan plan(int n, int hw, int c, int groups) {
  Plan p{n, hw, c, groups, c / kVec, 0, 0, 0};
  p.rows = std::max(1, kThreads / p.vecs);
  // Slices of kPixelsPerThread rows each, up to 8 blocks an SM over all images; where that
  // leaves fewer than 4 blocks an SM (small images), thinner slices, down to one row each.
  const int wanted = (hw + p.rows * kPixelsPerThread - 1) / (p.rows * kPixelsPerThread);
  const int rows_total = (hw + p.rows - 1) / p.rows;
  const int sms = sm_count();
  const int fill = std::min(rows_total, std::max(1, 4 * sms / n));
  p.splits = p.apply_blocks = std::min(std::max(wanted, fill), std::max(1, 8 * sms / n));
  return p;
}

size_t partials_bytes(const Plan& p) {
  // float2 stats after the partials, 8-byte aligned (Moments is 12 bytes).
  return (static_cast<size_t>(p.n) * p.groups * p.splits * sizeof(Moments) + 7) / 8 * 8;
}

}  // namespace

GN_API size_t wino_gn_workspace_bytes(int n, int hw, int c, int groups) {
  if (!valid(n, hw, c, groups)) return 0;
  const Plan p = plan(n, hw, c, groups);
  return partials_bytes(p) + static_cast<size_t>(n) * groups * sizeof(float2);
}

GN_API int wino_gn_forward(const void* x, const void* gamma, const void* beta, void* y,
                           void* workspace, int n, int hw, int c, int groups, float eps,
                           int silu, cudaStream_t stream) {
  if (!valid(n, hw, c, groups)) return cudaErrorInvalidValue;
  const Plan p = plan(n, hw, c, groups);
  auto* partials = static_cast<Moments*>(workspace);
  auto* stats = reinterpret_cast<float2*>(static_cast<char*>(workspace) + partials_bytes(p));
  const size_t stats_smem = (2 * static_cast<size_t>(p.rows) * c + p.rows) * sizeof(float);
  gn_stats<<<dim3(p.splits, n), p.threads(), stats_smem, stream>>>(
      static_cast<const __half*>(x), partials, p);
  gn_finalize<<<n * groups, kFinalThreads, 0, stream>>>(partials, stats, p, eps);
  gn_apply<<<dim3(p.apply_blocks, n), p.threads(), 2 * c * sizeof(float), stream>>>(
      static_cast<const __half*>(x), static_cast<const __half*>(gamma),
      static_cast<const __half*>(beta), stats, static_cast<__half*>(y), p, silu);
  return cudaGetLastError();
}

GN_API const char* wino_gn_error_string(int status) {
  return cudaGetErrorString(static_cast<cudaError_t>(status));
}
