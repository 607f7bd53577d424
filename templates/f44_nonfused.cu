// Winograd F(4x4, 3x3) without fusion, its batched GEMM on wgmma: filled per workload and config
// by wino_tvm/kernels/f44 ({{CONFIG}}). Not a TVM prototype: TVM 0.27's s_tir has no wgmma
// intrinsic, and the BGEMM is the part that needs it (docs/families.md, "f44").
//
// Three kernels a forward, as cuDNN's WINOGRAD_NONFUSED runs it (experiments: f44_unfused), the
// second and third launched early (each starts on the SMs the previous one frees, and waits for
// its outputs):
//   ITrans: x (NHWC) -> V_t = (B^T d B)_t for the 36 taps t of each tile's 6x6 patch (stride 4);
//   BGEMM:  M_t = V_t U_t over C for each tap, fp32 accumulators, M stored in fp16;
//   OTrans: y = relu(A^T M A + bias + residual) for the tile's 4x4 outputs.
// F(4x4) does 4x fewer multiplies than direct convolution, F(2, 3)'s 1.5x: its fp16 error is
// 2.5e-3 (V, U and M rounded to fp16; Barabasz's points), beyond the default accuracy bar, so
// it runs only where the caller allows that bound. V and M are scaled per tap (kTapScale).
//
// V and U are written by the transforms in the exact order the GEMM's shared memory takes them,
// so that one bulk copy (TMA without a tensor map) moves each operand's chunk: a chunk is R rows
// (tiles for V, output channels for U) x 64 channels, stored as 8 groups of 8 channels, each
// group R rows of 16 bytes ("K-major, no swizzle": wgmma's core matrices of 8 rows x 16 bytes).
// KTrans also permutes U's rows within each 32 so that a GEMM thread's accumulators are 8
// adjacent output channels: its M stores are 16 bytes.
// wino-tvm: needs sm_90a
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <cstdint>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(false, "f44: wgmma needs sm_90a (-gencode=arch=compute_90a,code=sm_90a)");
#endif

{{PTX}}

namespace wino_f44 {

constexpr int kN = {{N}}, kH = {{H}}, kW = {{W}}, kC = {{C}}, kK = {{K}};
constexpr bool kBias = {{BIAS}}, kResidual = {{RESIDUAL}}, kRelu = {{RELU}};
using ET = {{E_T}};  // bias and residual: y's type (half)

// The transform matrices of wino_tvm/math/winograd.py (interpolation points 0, +-1, 1/2, -2).
__device__ constexpr float kBT[6][6] = {{B_T}};  // B^T: V = B^T d B
__device__ constexpr float kG[6][3] = {{G}};     // U = G g G^T
__device__ constexpr float kAT[4][6] = {{A_T}};  // Y = A^T M A
// 2^-p for each tap: ITrans scales V_t (so M_t) by it and OTrans undoes it, both folded into the
// transforms' constants (exact: powers of 2). Unscaled, M reaches 5x |y| and overflowed fp16
// where |y| passed ~13000; scaled, about when y does (math/winograd.py; experiments:
// f44_tap_scale).
__device__ constexpr float kTapScale[6][6] = {{TAP_SCALE}};

constexpr int kAlpha = 6, kTaps = kAlpha * kAlpha, kM = 4;
constexpr int kTilesH = (kH + kM - 1) / kM, kTilesW = (kW + kM - 1) / kM;
constexpr long long kTiles = (long long)kN * kTilesH * kTilesW;
// A block's outputs: kBlockM tiles x kBlockN channels of one tap. Its two consumer warpgroups
// (m64 each) stack along the tiles (128) or stand side by side along the channels (64: fewer pad
// rows where the tiles are few, at twice U's bytes a MAC).
constexpr int kBlockM = {{BLOCK_M}};
constexpr int kBlockN = {{BLOCK_N}};
constexpr int kSplitN = 128 / kBlockM, kWarpgroupN = kBlockN / kSplitN;  // a warpgroup's columns
constexpr int kStages = {{STAGES}};   // the operand ring's depth
constexpr bool kPersist = {{PERSIST}};  // resident blocks loop over the GEMM's items
constexpr long long kTilesPad = (kTiles + kBlockM - 1) / kBlockM * kBlockM;
constexpr int kRowBlocks = (int)(kTilesPad / kBlockM), kColBlocks = kK / kBlockN;
constexpr int kChunkC = 64, kChunks = kC / kChunkC;
constexpr int kItems = kColBlocks * kRowBlocks * kTaps;  // the GEMM's blocks of outputs
constexpr int kVBytes = kBlockM * kChunkC * 2, kUBytes = kBlockN * kChunkC * 2;
constexpr int kStageBytes = kVBytes + kUBytes;
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8;
constexpr int kConsumerWarps = 8, kThreads = 32 * (kConsumerWarps + 1);  // + the producer warp
constexpr int kNHalves = kWarpgroupN / 128;  // a warpgroup's m64n128k16 wgmmas a k-step
static_assert(kC % kChunkC == 0 && kK % kBlockN == 0, "f44: F44Config.problems is out of step");
static_assert((kBlockM == 64 || kBlockM == 128) && (kNHalves == 1 || kNHalves == 2),
              "f44: F44Config.problems is out of step (block shape)");
// F44Config.smem_bytes computes the launch's dynamic shared memory on its own; they must agree.
static_assert(kSmemBytes == {{SMEM_BYTES}}, "f44: F44Config.smem_bytes is out of step");

// Byte offset of (row, channel c of the chunk) in a staged chunk of `rows` rows.
__host__ __device__ constexpr long long staged(int rows, int row, int c) {
  return ((long long)(c / 8) * rows + row) * 16 + (c % 8) * 2;
}
// GEMM column n of a block holds output channel column_of(n) (its own inverse: it swaps two
// 2-bit fields): a lane's accumulator columns 8 j + 2 q + e (j < 16, q its lane % 4, e < 2)
// are, for each j / 4, channels 32 (j / 4) + 8 q .. + 7 (wgmma's accumulator layout), and
// KTrans writes U's rows in this order.
__host__ __device__ constexpr int column_of(int k) {
  return k / 32 * 32 + k % 8 / 2 * 8 + k % 32 / 8 * 2 + k % 2;
}
static_assert(column_of(column_of(37)) == 37 && column_of(12) == 18, "f44: column order");

__device__ __forceinline__ float2 halves(uint32_t word) {
  return __half22float2(*reinterpret_cast<const __half2*>(&word));
}
__device__ __forceinline__ uint32_t word(float a, float b) {
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// ---- ITrans: a block per (4 x 8 tiles of one image, 16 channels) at a time; a thread per
// (tile, 2 channels) ---------------------------------------------------------------------------
// Adjacent tiles' 6x6 patches overlap (stride 4): a thread loading its own from global read x
// 2.25 times from L2. A block copies its tiles' input region, (4 kPatchH + 2) x (4 kPatchW + 2)
// pixels (1.2x its tiles' own), into shared memory once, zero outside the image, and its
// threads read their patches from there.
// Blocks are persistent and copy the next item's region while they transform this one's: with
// one region a block, ITrans ran at 23% active warps (two blocks an SM), each block waiting
// for its copies, and no faster than the threads' own loads (experiments: f44_itrans_smem).
// Two channels a thread, not more: a thread holds its patch's 36 pixels as floats, and at four
// channels (182 registers) one block an SM ran, the DRAM 25% busy (experiments: f44_template).
// 16 channels a block, not 32: 256 threads at <= 128 registers keep two blocks an SM (512
// threads would run one; 4 x 4 tiles at 32 channels read x 1.27x), and a pixel's 16 channels
// are one whole 32-byte sector of x.
// A warp takes 4 tiles of a patch row x 16 channels: its stores (4 lanes a 16-byte unit of V)
// write two runs of 4 adjacent tile rows, 64 bytes each: whole sectors where kTilesW is even
// (where it is odd, every other tile row's runs share their end sectors with neighbours').
// A block's tiles and channels: F44Config's ITRANS_PATCH and ITRANS_SLICE.
constexpr int kPatchH = {{PATCH_H}}, kPatchW = {{PATCH_W}}, kSliceC = {{SLICE_C}};
constexpr int kPatchTiles = kPatchH * kPatchW, kSlices = kC / kSliceC;
constexpr int kITransThreads = kPatchTiles * kSliceC / 2;
constexpr int kPatchesH = (kTilesH + kPatchH - 1) / kPatchH;
constexpr int kPatchesW = (kTilesW + kPatchW - 1) / kPatchW;
constexpr long long kPatches = (long long)kN * kPatchesH * kPatchesW;
// The GEMM reads every row below kTilesPad, and V's memory is not cleared: a few more items
// write the padding rows' zeros.
constexpr long long kPadPatches = (kTilesPad - kTiles + kPatchTiles - 1) / kPatchTiles;
// (patch, slice) items, slices first: the blocks reading adjacent sectors of the same pixels
// run together.
constexpr long long kITransItems = (kPatches + kPadPatches) * kSlices;
// A region row keeps its pixels by column phase (column % 4), then column / 4: a warp's 4
// tiles read columns 4 apart, i.e. adjacent 32-byte pixels, 128 contiguous bytes (no bank
// conflict). kPhase = kPatchW + 1 columns a phase (36 a row for 34 pixels) and odd, so that
// each 8 lanes' copies (4 adjacent columns, 2 halves) also fall in 8 distinct bank groups.
constexpr int kRegionH = kPatchH * kM + 2, kRegionW = kPatchW * kM + 2, kPhase = kPatchW + 1;
constexpr int kRegionSlots = 4 * kPhase;
constexpr int kCopies = (kRegionH * kRegionSlots * 2 + kITransThreads - 1) / kITransThreads;
using Region = unsigned char[kRegionH][kRegionSlots][kSliceC * 2];
static_assert(kC % kSliceC == 0 && kPatchW == 8 && kSliceC == 16,
              "f44: ITrans's warps are half a patch row (4 tiles) x 8 channel pairs");
static_assert(kPhase % 2 == 1 && kRegionW <= kRegionSlots, "f44: the region's row layout");
// config.py's itrans_items and ITRANS_THREADS compute the launch on their own; they must agree.
static_assert(kITransItems == {{ITRANS_ITEMS}} && kITransThreads == {{ITRANS_THREADS}},
              "f44: the ITrans launch is out of step");

// Issue the copies of item's region (none for a padding item) into region.
__device__ __forceinline__ void copy_region(const half* __restrict__ x, Region& region,
                                            long long item) {
  const long long patch = item / kSlices;
  if (patch >= kPatches) return;
  const int slice = (int)(item % kSlices);
  const long long n = patch / ((long long)kPatchesH * kPatchesW);
  const int ph = (int)(patch / kPatchesW % kPatchesH), pw = (int)(patch % kPatchesW);
  const int h0 = ph * kPatchH * kM - 1, w0 = pw * kPatchW * kM - 1;  // the region's corner
#pragma unroll
  for (int k = 0; k < kCopies; ++k) {  // 16-byte copies: half a pixel's 16 channels each
    const int s = k * kITransThreads + threadIdx.x;
    const int row = s / (kRegionSlots * 2), col = s / 2 % kRegionSlots, part = s % 2;
    if (row >= kRegionH || col >= kRegionW) continue;
    const int h = h0 + row, w = w0 + col;
    const bool inside = h >= 0 && h < kH && w >= 0 && w < kW;
    cp_async_16(smem_address(&region[row][col % 4 * kPhase + col / 4][part * 16]),
                inside ? x + ((n * kH + h) * kW + w) * kC + slice * kSliceC + part * 8 : x,
                inside ? 16 : 0);
  }
}

// The thread's tile of item: V_t for its two channels from region (zeros for a padding row).
__device__ __forceinline__ void transform_item(const Region& region, long long item,
                                               half* __restrict__ V) {
  const long long patch = item / kSlices;
  const int slice = (int)(item % kSlices);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int pi = warp / 2, pj = warp % 2 * 4 + lane / 8;  // the thread's tile in the patch
  const int c = slice * kSliceC + (lane & 7) * 2;
  constexpr long long kTapBytes = (long long)kRowBlocks * kChunks * kVBytes;
  const auto v_at = [&](long long t) {
    return reinterpret_cast<unsigned char*>(V) +
           ((t / kBlockM) * kChunks + c / kChunkC) * kVBytes +
           staged(kBlockM, (int)(t % kBlockM), c % kChunkC);
  };
  if (patch >= kPatches) {
    const long long t = kTiles + (patch - kPatches) * kPatchTiles + pi * kPatchW + pj;
    if (t >= kTilesPad) return;
    unsigned char* dst = v_at(t);
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) *reinterpret_cast<uint32_t*>(dst + tap * kTapBytes) = 0;
    return;
  }
  const long long n = patch / ((long long)kPatchesH * kPatchesW);
  const int th = (int)(patch / kPatchesW % kPatchesH) * kPatchH + pi;
  const int tw = (int)(patch % kPatchesW) * kPatchW + pj;
  if (th >= kTilesH || tw >= kTilesW) return;
  float2 d[kAlpha][kAlpha];
#pragma unroll
  for (int i = 0; i < kAlpha; ++i)
#pragma unroll
    for (int j = 0; j < kAlpha; ++j)  // column 4 pj + j
      d[i][j] = halves(*reinterpret_cast<const uint32_t*>(
          &region[pi * kM + i][j % 4 * kPhase + pj + j / 4][(lane & 7) * 4]));
  unsigned char* dst = v_at((n * kTilesH + th) * kTilesW + tw);
#pragma unroll
  for (int b = 0; b < kAlpha; ++b) {
    float2 row[kAlpha];  // (d B)_ib
#pragma unroll
    for (int i = 0; i < kAlpha; ++i) {
      row[i] = make_float2(0.f, 0.f);
#pragma unroll
      for (int j = 0; j < kAlpha; ++j) {
        if (kBT[b][j] == 0.f) continue;
        row[i].x += kBT[b][j] * d[i][j].x, row[i].y += kBT[b][j] * d[i][j].y;
      }
    }
#pragma unroll
    for (int a = 0; a < kAlpha; ++a) {
      float2 v = make_float2(0.f, 0.f);
#pragma unroll
      for (int i = 0; i < kAlpha; ++i) {
        if (kBT[a][i] == 0.f) continue;
        const float scaled = kBT[a][i] * kTapScale[a][b];  // a constant
        v.x += scaled * row[i].x, v.y += scaled * row[i].y;
      }
      *reinterpret_cast<uint32_t*>(dst + (a * kAlpha + b) * kTapBytes) = word(v.x, v.y);
    }
  }
}

// A resident block's items, every gridDim.x-th: two regions, the next one's copies in flight
// while this one is transformed.
__device__ __forceinline__ void input_transform(const half* __restrict__ x, half* __restrict__ V) {
  __shared__ __align__(16) Region regions[2];
  launch_dependents();  // the GEMM's blocks take each SM this kernel leaves
  long long item = blockIdx.x;
  copy_region(x, regions[0], item);
  cp_async_commit();
  for (int i = 0; item < kITransItems; item += gridDim.x, ++i) {
    // regions[(i + 1) % 2] was last read in the previous item, before its closing barrier
    if (item + gridDim.x < kITransItems) copy_region(x, regions[(i + 1) % 2], item + gridDim.x);
    cp_async_commit();
    cp_async_wait<1>();  // this item's copies (the thread's own); the barrier makes them all
    __syncthreads();
    transform_item(regions[i % 2], item, V);
    __syncthreads();
  }
}

// ---- KTrans: a thread per (c, k), once per weight tensor ---------------------------------------
__device__ __forceinline__ void weight_transform(const half* __restrict__ w, half* __restrict__ U) {
  const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= (long long)kC * kK) return;
  const int k = (int)(id % kK), c = (int)(id / kK);
  float g[3][3];
#pragma unroll
  for (int r = 0; r < 3; ++r)
#pragma unroll
    for (int s = 0; s < 3; ++s)
      g[r][s] = __half2float(w[((long long)(r * 3 + s) * kC + c) * kK + k]);
  unsigned char* dst = reinterpret_cast<unsigned char*>(U) +
                       ((long long)(k / kBlockN) * kChunks + c / kChunkC) * kUBytes +
                       staged(kBlockN, column_of(k % kBlockN), c % kChunkC);
#pragma unroll
  for (int a = 0; a < kAlpha; ++a) {
    float gs[3];  // (G g)_a
#pragma unroll
    for (int s = 0; s < 3; ++s)
      gs[s] = kG[a][0] * g[0][s] + kG[a][1] * g[1][s] + kG[a][2] * g[2][s];
#pragma unroll
    for (int b = 0; b < kAlpha; ++b) {
      const long long tap_bytes = (long long)(a * kAlpha + b) * kColBlocks * kChunks * kUBytes;
      *reinterpret_cast<half*>(dst + tap_bytes) =
          __float2half_rn(gs[0] * kG[b][0] + gs[1] * kG[b][1] + gs[2] * kG[b][2]);
    }
  }
}

// ---- BGEMM: a block per (tap, 128 tiles, kBlockN channels); a producer warp, 2 warpgroups ----
// d = a b (accumulate false) or d += a b; a and b from shared memory.
__device__ __forceinline__ void wgmma(float (&d)[64], uint64_t a, uint64_t b, bool accumulate) {
#if WINO_SM90A
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,"
      "%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,"
      "%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
        "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
        "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b), "r"((int)accumulate));
#endif
}

// A block's outputs: 128 tiles x kBlockN channels of one tap (an item). Items are numbered
// channels first, so that the blocks reading the same V chunks run together; with kPersist a
// resident block takes every gridDim.x-th unit of work, its producer copying the next unit's
// chunks while the warpgroups store this one's M.
struct Item {
  int col_block, row_block, tap;
};
__device__ __forceinline__ Item item_at(int item) {
  return {item % kColBlocks, item / kColBlocks % kRowBlocks, item / (kColBlocks * kRowBlocks)};
}

// A unit of work: each warpgroup's columns 128 first .. 128 (first + halves) - 1 of its
// kWarpgroupN. Where the last round of `step` resident blocks would leave SMs idle (576 items on
// 132 SMs: 48 in the fifth round), its items go as two units of half the columns, so that it
// takes half as long (two wgmmas a k-step only; the halves come after the whole items).
struct Unit {
  Item item;
  int first, halves;
};
__device__ __forceinline__ int whole_items(int step) {
  const int tail = kItems % step;
  return kNHalves == 2 && 2 * tail <= step ? kItems - tail : kItems;
}
__device__ __forceinline__ int units(int step) {
  return 2 * kItems - whole_items(step);
}
__device__ __forceinline__ Unit unit_at(int unit, int whole) {
  if (unit < whole) return {item_at(unit), 0, kNHalves};
  return {item_at(whole + (unit - whole) / 2), (unit - whole) % 2, 1};
}

__device__ __forceinline__ void store_m(const float (&acc)[kNHalves][64], Unit unit, int warp,
                                       int lane, half* __restrict__ M) {
  // M[tap][tile][k], fp16: each lane's rows 16 (warp % 4) + lane / 4 (+ 8) of its warpgroup's
  // 64, 8 channels per 16 bytes.
  const Item item = unit.item;
  const int warpgroup = warp / 4;
  const long long row = (long long)item.row_block * kBlockM + 64 * (warpgroup / kSplitN) +
                        16 * (warp % 4) + (lane >> 2);
  half* m_at = M + ((long long)item.tap * kTilesPad + row) * kK + item.col_block * kBlockN +
               kWarpgroupN * (warpgroup % kSplitN) + 128 * unit.first + (lane & 3) * 8;
#pragma unroll
  for (int h = 0; h < kNHalves; ++h) {
    if (h == unit.halves) break;
#pragma unroll
    for (int run = 0; run < 4; ++run)
#pragma unroll
      for (int r8 = 0; r8 < 2; ++r8) {
        const float* f = acc[h] + 16 * run + 2 * r8;  // columns 8 j + 2 q, j = 4 run .. + 3
        *reinterpret_cast<uint4*>(m_at + r8 * 8LL * kK + 128 * h + 32 * run) =
            make_uint4(word(f[0], f[1]), word(f[4], f[5]), word(f[8], f[9]), word(f[12], f[13]));
      }
  }
}

// The stage's barriers: its operands have landed (full), its consumers are done with it (empty).
__device__ __forceinline__ uint32_t full_bar(uint32_t bars, int s) { return bars + 8 * s; }
__device__ __forceinline__ uint32_t empty_bar(uint32_t bars, int s) {
  return bars + 8 * (kStages + s);
}

// A warpgroup's MMAs of one unit of `halves` halves, its columns from 128 first, over the
// chunks of C; `it` counts the block's chunks (stage it % kStages, phase it / kStages).
template <int kHalves>
__device__ __forceinline__ void unit_mma(float (&acc)[kNHalves][64], uint32_t base,
                                         uint32_t bars, int first, int warpgroup, int lane,
                                         int& it) {
  for (int chunk = 0; chunk < kChunks; ++chunk, ++it) {
    const int s = it % kStages;
    mbarrier_wait(full_bar(bars, s), it / kStages & 1);
    const uint32_t v_at = base + s * kStageBytes, u_at = v_at + kVBytes;
    wgmma_fence();
#pragma unroll
    for (int k16 = 0; k16 < kChunkC / 16; ++k16) {
      const uint64_t a =
          descriptor(v_at + (2 * k16 * kBlockM + 64 * (warpgroup / kSplitN)) * 16, kBlockM * 16);
#pragma unroll
      for (int h = 0; h < kHalves; ++h)
        wgmma(acc[h], a,
              descriptor(u_at + (2 * k16 * kBlockN + kWarpgroupN * (warpgroup % kSplitN) +
                                 128 * (first + h)) * 16,
                         kBlockN * 16),
              chunk > 0 || k16 > 0);
    }
    wgmma_commit();
    // The last chunk's MMAs are done in this warp: its stage may be refilled.
    wgmma_wait<1>();
    if (chunk > 0 && lane == 0) mbarrier_arrive(empty_bar(bars, (it - 1) % kStages));
  }
  wgmma_wait<0>();
  if (lane == 0) mbarrier_arrive(empty_bar(bars, (it - 1) % kStages));
}

__device__ __forceinline__ void batched_gemm(const half* __restrict__ V,
                                             const half* __restrict__ U, half* __restrict__ M) {
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t base = smem_address(smem), bars = base + kStages * kStageBytes;
  const int step = kPersist ? gridDim.x : kItems;
  const int whole = whole_items(step), n_units = units(step);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(full_bar(bars, s), 1);
      mbarrier_init(empty_bar(bars, s), kConsumerWarps);
    }
    mbarrier_init_fence();
  }
  __syncthreads();  // the barriers are initialised before any copy or wait
  grid_dependency_wait();  // ITrans's V (an early launch: the set-up above ran under its tail)
  launch_dependents();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // it counts the block's chunks over all its units: stage it % kStages, phase it / kStages.
  if (warp == kConsumerWarps) {  // the producer: one thread issues both operands' copies
    if (lane != 0) return;
    for (int unit = blockIdx.x, it = 0; unit < n_units; unit += step) {
      const Unit u = unit_at(unit, whole);
      const Item at = u.item;
      const unsigned char* v_src =
          reinterpret_cast<const unsigned char*>(V) +
          ((long long)at.tap * kRowBlocks + at.row_block) * kChunks * kVBytes;
      const unsigned char* u_src =
          reinterpret_cast<const unsigned char*>(U) +
          ((long long)at.tap * kColBlocks + at.col_block) * kChunks * kUBytes;
      // A half's rows of U are 2 KB of each 8-channel group and warpgroup: one copy each, to
      // where the whole chunk would put them.
      const int u_bytes = kUBytes / kNHalves * u.halves, u_first = 128 * 16 * u.first;
      for (int chunk = 0; chunk < kChunks; ++chunk, ++it) {
        const int s = it % kStages;
        if (it >= kStages) mbarrier_wait(empty_bar(bars, s), (it / kStages - 1) & 1);
        const uint32_t full = full_bar(bars, s), u_dst = base + s * kStageBytes + kVBytes;
        mbarrier_expect_tx(full, kVBytes + u_bytes);
        tma_copy(base + s * kStageBytes, v_src + (long long)chunk * kVBytes, kVBytes, full);
        if (u.halves == kNHalves) {
          tma_copy(u_dst, u_src + (long long)chunk * kUBytes, kUBytes, full);
        } else {
          for (int g = 0; g < kChunkC / 8; ++g)
            for (int side = 0; side < kSplitN; ++side) {
              const int at = (g * kBlockN + side * kWarpgroupN) * 16 + u_first;
              tma_copy(u_dst + at, u_src + (long long)chunk * kUBytes + at, 128 * 16, full);
            }
        }
      }
    }
    return;
  }
  const int warpgroup = warp >> 2;  // its rows (kSplitN 1) or columns (2) of the block's
  float acc[kNHalves][64];
  for (int unit = blockIdx.x, it = 0; unit < n_units; unit += step) {
    const Unit u = unit_at(unit, whole);
    // Two copies of the loop, each with its own count of wgmmas: one loop that skipped the
    // second half's made ptxas serialise every wgmma (a warpgroup arrive in a divergent path).
    if (u.halves == kNHalves) {
      unit_mma<kNHalves>(acc, base, bars, u.first, warpgroup, lane, it);
    } else {
      unit_mma<1>(acc, base, bars, u.first, warpgroup, lane, it);
    }
    // Ties the accumulators to the wait, so that no read of them moves above it.
#pragma unroll
    for (int h = 0; h < kNHalves; ++h)
#pragma unroll
      for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(acc[h][i]));
    store_m(acc, u, warp, lane, M);
  }
}

// ---- OTrans and the epilogue: a thread per (tile, 2 output channels) --------------------------
// Two channels a thread (4-byte loads), not four (8-byte): twice the threads hide more of each
// thread's 36 loads in a row, 1.05x at 1x28²x512 and never slower (experiments:
// f44_otrans_channels).
constexpr int kOChannels = {{OTRANS_CHANNELS}};
static_assert(kOChannels == 2, "f44: OTrans takes 2 channels a thread");

// Two halves at p as floats; kReadOnly through the non-coherent cache (not the residual, which
// y may overwrite in place).
template <bool kReadOnly>
__device__ __forceinline__ void load_halves(const half* p, float (&f)[kOChannels]) {
  const auto bits = reinterpret_cast<const unsigned*>(p);
  const float2 pair = halves(kReadOnly ? __ldg(bits) : *bits);
  f[0] = pair.x, f[1] = pair.y;
}

__device__ __forceinline__ void output_transform(const half* __restrict__ M,
                                                 const ET* __restrict__ bias,
                                                 const ET* __restrict__ residual,
                                                 half* __restrict__ y) {
  constexpr int kE = kOChannels, kGroups = kK / kE;
  const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= kTiles * kGroups) return;
  const int k = (int)(id % kGroups) * kE;
  const long long t = id / kGroups;
  const int tw = (int)(t % kTilesW), th = (int)(t / kTilesW % kTilesH);
  const long long n = t / ((long long)kTilesW * kTilesH);
  grid_dependency_wait();  // the GEMM's M (an early launch)
  float out[kM][kM][kE];
#pragma unroll
  for (int i = 0; i < kM; ++i)
#pragma unroll
    for (int j = 0; j < kM; ++j)
#pragma unroll
      for (int e = 0; e < kE; ++e) out[i][j][e] = 0.f;
#pragma unroll
  for (int a = 0; a < kAlpha; ++a) {
    float m[kAlpha][kE];
#pragma unroll
    for (int b = 0; b < kAlpha; ++b)
      load_halves<true>(M + ((long long)(a * kAlpha + b) * kTilesPad + t) * kK + k, m[b]);
#pragma unroll
    for (int j = 0; j < kM; ++j) {
      float s[kE];  // (M A)_aj
#pragma unroll
      for (int e = 0; e < kE; ++e) s[e] = 0.f;
#pragma unroll
      for (int b = 0; b < kAlpha; ++b) {
        if (kAT[j][b] == 0.f) continue;
        const float unscaled = kAT[j][b] / kTapScale[a][b];  // a constant
#pragma unroll
        for (int e = 0; e < kE; ++e) s[e] += unscaled * m[b][e];
      }
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        if (kAT[i][a] == 0.f) continue;
#pragma unroll
        for (int e = 0; e < kE; ++e) out[i][j][e] += kAT[i][a] * s[e];
      }
    }
  }
  float bk[kE];
#pragma unroll
  for (int e = 0; e < kE; ++e) bk[e] = 0.f;
  if constexpr (kBias) load_halves<true>(bias + k, bk);
#pragma unroll
  for (int i = 0; i < kM; ++i)
#pragma unroll
    for (int j = 0; j < kM; ++j) {
      const int h = th * kM + i, w = tw * kM + j;
      if (h >= kH || w >= kW) continue;
      const long long at = ((n * kH + h) * kW + w) * kK + k;
      float v[kE], r[kE];
#pragma unroll
      for (int e = 0; e < kE; ++e) v[e] = out[i][j][e] + bk[e];
      if constexpr (kResidual) {
        load_halves<false>(residual + at, r);
#pragma unroll
        for (int e = 0; e < kE; ++e) v[e] += r[e];
      }
      if constexpr (kRelu)
#pragma unroll
        for (int e = 0; e < kE; ++e) v[e] = fmaxf(v[e], 0.f);
      *reinterpret_cast<uint32_t*>(y + at) = word(v[0], v[1]);
    }
}

}  // namespace wino_f44

// Two blocks an SM: at most 128 registers a thread.
__global__ void __launch_bounds__(wino_f44::kITransThreads, 2) wino_f44_itrans(
    const half* __restrict__ x, half* __restrict__ V) {
  wino_f44::input_transform(x, V);
}
__global__ void __launch_bounds__(256) wino_f44_ktrans(const half* __restrict__ w,
                                                       half* __restrict__ U) {
  wino_f44::weight_transform(w, U);
}
__global__ void __launch_bounds__(wino_f44::kThreads, 1) wino_f44_bgemm(
    const half* __restrict__ V, const half* __restrict__ U, half* __restrict__ M) {
  wino_f44::batched_gemm(V, U, M);
}
__global__ void __launch_bounds__(256) wino_f44_otrans({{OTRANS_PARAMS}}) {
  wino_f44::output_transform(M, {{BIAS_ARG}}, {{RESIDUAL_ARG}}, y);
}
