// Winograd F(2x2, 3x3) in the MMA's lane layout: filled per workload and config by
// wino_tvm/kernels/lane ({{CONFIG}}). Not a TVM prototype: TensorIR binds an MMA operand to a
// buffer it loads from, and this kernel's point is that each lane computes its A fragment's
// values in registers (docs/families.md, "lane").
//
// fp16 in and out with fp16 or fp32 accumulators (mma.sync m16n8k16); or int8 in, on the same fp16
// tensor cores with fp16 accumulators (see kInt8In), y in fp32, fp16 or int8. A warp owns 16 tiles
// (2 tile rows x 8 tile columns: a "tile group") x kWarpK output channels for all 16 taps. Lane
// (g, q) = (lane / 4, lane % 4) holds A-fragment rows g and g + 8: the vertically adjacent tiles
// (ty, tx0 + g) and (ty + 1, tx0 + g). It transforms exactly the input it feeds to the MMA, and
// OTrans finds all 16 taps of its (tile, channel) pairs in its own accumulators: V and M never
// touch shared memory. kKSlices warps share a tile group, one slice of kWarpK channels each; a
// block holds kGroups groups and U's slice for its kKSlices x kWarpK channels (blockIdx.y), staged
// once (the block is persistent: its groups loop over tile groups). Each group stages its 6 x 18
// pixel input patch with cp.async in chunks of kChunkC channels through a ring of kStages buffers,
// kStages - 1 chunks ahead (the next tile group's first chunks load while this one's last compute):
// one group barrier per chunk.
//
// With kTapSplit = 2 two warps share each tile group and channel slice, one half of the tap rows
// each, for twice the channels per warp at the same accumulator count: each tile's input is
// transformed half as often. They add the two halves of OTrans's row sums through shared memory,
// one tile at a time (each warp finishes one output row of its tiles). With kWgmma the halves
// are two warpgroups.
//
// With kTma (sm_90a) one thread of a tile group stages each chunk with one TMA copy of a 6 x 18 x
// kPix box of x, zero outside the image, in the same padded layout, completing on the buffer's
// mbarrier: no per-thread cp.async. The pad channels lie past the chunk's dimension of x's tensor
// map, so TMA zero-fills them instead of reading them from L2 (a third fewer sectors per pixel at
// 32-channel chunks: 1.01x-1.03x, experiments: box_oob).
//
// With kStack (TMA, 4 tile groups) the block's tile groups lie one above the other, 8 x 8 tiles
// (16 x 16 outputs), and share one 18 x 18 x kPix box per chunk: 1.27x the output's
// pixels through L2 instead of 1.69x, one copy per chunk and block. The chunk's barrier is then
// the block's (8 warps), and the block loops over stacks. fp16 picks with two chunks per tile
// group 1.015x-1.050x; one 64-channel chunk (the fp32 picks) 0.96x-0.98x: the block barrier
// per tile group (experiments: stack; the tuner chooses). The freed memory fits two
// channel slices of 32 beside U without the tap split, the fp16 picks at 448²-960² since
// (1.04x-1.06x over the stacked split, experiments: sweep_stack).
//
// With kWgmma (sm_90a) a warpgroup's four warps take four tile groups of one channel slice, and
// each tap's MMA is one wgmma m64nNk16: A from the lanes' registers as above, B (U) read by the
// tensor cores from shared memory in core-matrix order, once per warpgroup instead of once per
// warp through ldmatrix. The accumulators have mma.sync's layout, so OTrans is unchanged.
//
// Channel permutations (KTrans is offline, so they cost nothing at run time):
// - input: the MMA's k columns {2q, 2q+1, 2q+8, 2q+9} of a 16-channel step are the physical
//   channels 4q .. 4q+3, so one 8-byte load fills a tile's two A registers;
// - output: column 2q + e of n8 block j is physical channel (j / P) 8P + 2Pq + 2 (j % P) + e,
//   P = kStorePairs (fp16 y: (j / 4) 32 + 8q + 2 (j % 4) + e), so after OTrans a lane holds
//   runs of 2P adjacent channels (16 bytes at most) of each output pixel, and each store of
//   the warp covers whole 32-byte sectors of the pixel: with kNB = 8 a lane's 16 fp16
//   channels in one run took two half-sector stores each (twice the store sectors,
//   experiments: tap_split).
// int8 in (kInt8In): F(2x2)'s V = B^T d B of int8 d are integers, |V| <= 4 * 128, and U = G g G^T
// of int8 g multiples of 1/4, |U| <= 9 * 128 / 4: both exact in fp16, so the MMA's products are
// exact, unlike an int8 MMA's, whose V must be requantised (docs/int8.md). The patch stays int8 in
// shared memory (half the bytes) and each lane converts what it loads. U is scaled by 2^-kUShift
// so that fp16 accumulators hold M and OTrans's sums; OTrans scales back and y is the
// convolution in integer units, fp16 and int8 y divided by *y_scale, as the int8 IMMA kernels'.
{{NEEDS_ARCH}}
#define WINO_LANE_TMA {{TMA}}  // 1: TMA patch copies (a tensor map of x per launch)
#include <cuda_fp16.h>
#if WINO_LANE_TMA
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <mutex>
#endif

#include <cstdint>
#include <type_traits>
#include <utility>

{{PTX}}

namespace wino_lane {

constexpr int kN = {{N}}, kH = {{H}}, kW = {{W}}, kC = {{C}}, kK = {{K}};
constexpr int kWarpK = {{WARP_K}};    // output channels per warp (tb_n)
constexpr int kKSlices = {{K_SLICES}};  // channel slices of a tile group (k_split)
constexpr int kTapSplit = {{TAP_SPLIT}};  // warps per channel slice, one share of the taps each
constexpr int kGroups = {{GROUPS}};   // tile groups per block (groups)
constexpr int kChunkC = {{CHUNK_C}};  // input channels per staged patch chunk (tb_k)
constexpr int kStages = {{STAGES}};   // patch buffers per tile group (stages)
constexpr bool kF32Acc = {{F32_ACC}};
constexpr bool kWgmma = {{WGMMA}};    // wgmma (sm_90a) instead of mma.sync
constexpr bool kTma = WINO_LANE_TMA;  // TMA (sm_90a) instead of cp.async for the patches
constexpr bool kStack = {{STACK}};    // the block's tile groups stacked on one patch (stack)
constexpr bool kBias = {{BIAS}}, kResidual = {{RESIDUAL}}, kRelu = {{RELU}};
using XT = {{X_T}};  // x: half, or int8_t
using YT = {{Y_T}};  // y: half; int8 in: float, half or int8_t
using ET = {{E_T}};  // bias and residual: y's type, float with int8 in (integer units)
constexpr bool kInt8In = std::is_same_v<XT, int8_t>;
constexpr bool kScaledOut = {{SCALED_OUT}};  // y = conv / *y_scale (int8 in, fp16 or int8 y)

constexpr int kNB = kWarpK / 8;                 // n8 blocks per warp
constexpr int kTaps = 16 / kTapSplit;           // taps per warp (4 / kTapSplit tap rows)
constexpr int kBlockK = kWarpK * kKSlices;      // output channels per block
constexpr int kGroupWarps = kKSlices * kTapSplit;
constexpr int kThreads = 32 * kGroupWarps * kGroups;
constexpr int kRow = kC + 8;                    // U row in halves: +16 B, conflict-free ldmatrix
// wgmma: U in 128-byte core matrices (8 channels k x 8 channels c), [tap][c / 8][k], unpadded.
constexpr int kUHalves = 16 * kBlockK * (kWgmma ? kC : kRow);
constexpr int kChunks = kC / kChunkC;           // chunks per tile group
constexpr int kStepsPerChunk = kChunkC / 16;    // MMA k steps per chunk
// The chunk loop is unrolled up to 8 chunks; beyond, rolled, so that the kernel's code stays
// small (a C = 256 kernel unrolled over 16 chunks had 6080 instructions and waited on
// instruction fetch; rolled, 1000, and 1.00-1.18x; rolled at 8 chunks, C = 128 lost
// 0.95-1.00x; experiments: lane_ncu128, lane_chunk_loop).
constexpr int kChunkUnroll = kChunks <= 8 ? kChunks : 1;
constexpr int kPatchRows = 6, kPatchCols = 18;  // a group's input: 2 x 8 tiles of 4 x 4
// A unit of work: a tile group, or stacked the block's four (their patches overlap in 2 rows
// each: one 18-row patch, group r reading rows 4r .. 4r + 5), each with its ring of buffers.
constexpr int kUnits = kStack ? 1 : kGroups;              // units of work per block
constexpr int kUnitTileRows = kStack ? 4 * 2 : 2;         // tile rows of a unit
constexpr int kBoxRows = 2 * kUnitTileRows + 2;           // pixel rows of its patch
// A patch pixel in elements: the chunk plus a pad to an odd number of 16-byte units, so that a
// warp's 8-byte (fp16) or 4-byte (int8) reads take 2 wavefronts, the fewest.
constexpr int kPix = kChunkC + {{PIXEL_PAD}};
constexpr int kBoxBytes = kBoxRows * kPatchCols * kPix * (int)sizeof(XT);  // a chunk (a TMA box)
// TMA: buffers on 128-byte boundaries (the copy's destination), an 8-byte mbarrier each at the end.
constexpr int kPatchBytes = kTma ? (kBoxBytes + 127) / 128 * 128 : kBoxBytes;
constexpr int kPatchElems = kPatchBytes / (int)sizeof(XT);
constexpr int kBarrierBytes = kTma ? 8 * kUnits * kStages : 0;
// Tap split: per tile, a warp's partial output row for the other warp (words [i][lane], 4 per
// i). Tile 0's go to memory of their own; tile 1's to the patch buffer the group computed on
// last, where it holds the group's (a second group barrier: the buffer is free only after the
// first), else, or with kExchangeOwn, beside tile 0's (the plain fp32 picks ran 1.01x-1.05x
// faster so, experiments: exchange_own; the tuner chooses). Stacked, beside tile 0's:
// the patch buffer is the block's, free only after all its warps are done with it.
constexpr int kAccRegs = kF32Acc ? 4 : 2;  // per n8 block: rows g, g + 8 as half2 or 2 floats
constexpr int kTileWords = 2 * kNB * kAccRegs / 2;  // [output column][n8 block] per lane
constexpr int kTileBytes = kTapSplit == 1 ? 0 : 4 * 32 * kTileWords;  // per warp
constexpr bool kExchangeOwn = {{EXCHANGE_OWN}};  // both tiles in memory of their own (exchange_own)
constexpr bool kExchangeInPatch =
    kTapSplit == 2 && !kExchangeOwn && !kStack && kGroupWarps * kTileBytes <= kPatchBytes;
constexpr int kOwnExchangeTiles = kTapSplit == 1 ? 0 : kExchangeInPatch ? 1 : 2;
constexpr int kUBytes = 2 * kUHalves;
constexpr int kSmemBytes = kUBytes + kUnits * kStages * kPatchBytes +
                           kGroups * kGroupWarps * kOwnExchangeTiles * kTileBytes + kBarrierBytes;
// int8 in: |M| <= C * 512 * 288 and OTrans's sums <= 9 |M| before U's scaling by 2^-kUShift;
// fp16 holds 65504. U's smallest step (1/4) then lies at 2^-13 (C = 64) .. 2^-16 (C = 512):
// subnormal from C = 256, still exact.
constexpr int u_shift() {
  int e = 0;
  while (9.0 * 512 * 288 * kC > 65504.0 * (double)(1ll << e)) ++e;
  return e;
}
constexpr int kUShift = kInt8In ? u_shift() : 0;
constexpr int kTileRows = (kH + 1) / 2, kTileCols = (kW + 1) / 2;
constexpr int kGroupRows = (kTileRows + kUnitTileRows - 1) / kUnitTileRows;
constexpr int kGroupCols = (kTileCols + 7) / 8;
constexpr int kTileGroups = kN * kGroupRows * kGroupCols;
// Tile groups (stacked: stacks) reaching past the image compute on zeros and store only the
// pixels inside it.
constexpr bool kRagged = kH % (2 * kUnitTileRows) != 0 || kW % 16 != 0;
constexpr bool kEpilogue = kBias || kResidual || kRelu;
// int8 in, an int8 y and no epilogue: y rounded from the fp16 accumulators in half2 (round_int8)
constexpr bool kHalfInt8Y = kInt8In && std::is_same_v<YT, int8_t> && !kEpilogue;

static_assert(kChunkC % 16 == 0 && kC % kChunkC == 0,
              "lane layout: chunks of whole 16-channel steps that divide C");
static_assert(!kInt8In || !kF32Acc, "lane layout: int8 in takes fp16 accumulators");
static_assert(kPix * sizeof(XT) % 16 == 0 && kPix * sizeof(XT) / 16 % 2 == 1,
              "lane layout: a patch pixel is an odd number of 16-byte units");
static_assert(kStages >= 2, "lane layout: at least two patch buffers (one loads, one computes)");
static_assert(!kStack || (kTma && kGroups == 4 && !kExchangeOwn),
              "lane layout: a stack is 4 tile groups on one TMA patch, its exchange its own");
static_assert(kTapSplit == 1 || kTapSplit == 2, "lane layout: all taps per warp, or half");
static_assert(kWarpK == 16 * kTapSplit || (kWarpK == 32 * kTapSplit && !kF32Acc),
              "lane layout: 16 channels per warp per 16 taps, or 32 with fp16 accumulators "
              "(128 registers)");
static_assert(kTileWords % 4 == 0, "lane layout: the tap split's words go in 16-byte pieces");
static_assert(kK % kBlockK == 0, "lane layout: K must be a multiple of the block's channels");
static_assert(kThreads <= 1024, "lane layout: at most 32 warps per block");
static_assert(!kWgmma || kGroups % 4 == 0,
              "lane layout: wgmma takes warpgroups of four tile groups of one channel slice");
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(!kWgmma && !kTma, "lane layout: wgmma and TMA kernels need sm_90a "
                                "(-gencode=arch=compute_90a,code=sm_90a)");
#endif
static_assert(kSmemBytes == {{SMEM_BYTES}}, "lane layout: LaneConfig.smem_bytes disagrees");
static_assert(kSmemBytes <= 227 * 1024, "lane layout: U and the patches exceed 227 KB");

// Logical position of physical input channel c in its 16-channel step (inverse of 4q+u).
__host__ __device__ constexpr int c_logical(int c) {
  const int t = c & 15, q = t >> 2, u = t & 3;
  return (c & ~15) + (u < 2 ? 2 * q + u : 8 + 2 * q + (u - 2));
}

// A lane's output channels: runs of kLaneRun (its pairs j of one store), each store's runs of
// the four lanes q side by side (kStoreRun channels).
// A run is 16 bytes of y at most (a float y's 32 bytes in one run took two half-sector stores
// per lane and sector: int8 in with an f32 y 1.9x fp16's time at 960^2; experiments:
// int8_lane_parts).
constexpr int kStorePairs = kNB < 8 / (int)sizeof(YT) ? kNB : 8 / (int)sizeof(YT);
constexpr int kLaneRun = 2 * kStorePairs;
constexpr int kStoreRun = 4 * kLaneRun;

// Physical channel of pair j of lane q, relative to the warp's first channel.
__host__ __device__ constexpr int k_physical(int q, int j) {
  return j / kStorePairs * kStoreRun + kLaneRun * q + 2 * (j % kStorePairs);
}

// Logical column of physical output channel k within its warp's kWarpK (inverse of
// k_physical(q, j) + e).
__host__ __device__ constexpr int k_logical(int k) {
  const int r = k % kWarpK, run = r % kStoreRun, q = run / kLaneRun, e = r & 1;
  const int j = r / kStoreRun * kStorePairs + run % kLaneRun / 2;
  return k - r + 8 * j + 2 * q + e;
}

// Both maps are permutations of one step / one warp's channels: KTrans writes every U entry once.
constexpr bool permutes_steps_and_slices() {
  bool c_seen[16] = {}, k_seen[kWarpK] = {};
  for (int c = 0; c < 16; ++c) c_seen[c_logical(c)] = true;
  for (int k = 0; k < kWarpK; ++k) k_seen[k_logical(k)] = true;
  for (bool seen : c_seen) if (!seen) return false;
  for (bool seen : k_seen) if (!seen) return false;
  return true;
}
static_assert(permutes_steps_and_slices(), "lane layout: channel maps are not permutations");

// k_logical inverts k_physical: pair j of lane q holds logical columns 8j + 2q + e.
constexpr bool output_map_inverts() {
  for (int q = 0; q < 4; ++q)
    for (int j = 0; j < kNB; ++j)
      for (int e = 0; e < 2; ++e)
        if (k_logical(k_physical(q, j) + e) != 8 * j + 2 * q + e) return false;
  return true;
}
static_assert(output_map_inverts(), "lane layout: the output channel maps disagree");

__device__ __forceinline__ uint32_t h2u(half2 v) { return *reinterpret_cast<uint32_t*>(&v); }
__device__ __forceinline__ half2 u2h(uint32_t v) { return *reinterpret_cast<half2*>(&v); }

// Accumulators of one n8 block: rows g, g + 8 as a half2 each, or as two floats each.
using Acc = std::conditional_t<kF32Acc, float, uint32_t>;

__device__ __forceinline__ void mma(uint32_t (&d)[2], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%0,%1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// U's descriptor for wgmma, K-major without swizzle: core matrices of 8 rows (k) x 16 bytes,
// the next 8 channels c (leading byte offset) kBlockK rows on, the next 8 rows k (stride) 128 B.
__device__ __forceinline__ uint64_t u_descriptor(uint32_t address) {
  constexpr uint64_t kLeading = kBlockK * 16 >> 4, kStride = 128 >> 4;
  return (uint64_t)((address & 0x3FFFF) >> 4) | kLeading << 16 | kStride << 32;
}

// One tap's m64nNk16 wgmma (N = kWarpK) into the lane's n8 blocks of that tap: d = A B, or
// d += A B with `accumulate` (no zeroing of the accumulators between the MMAs).
__device__ __forceinline__ void wgmma(uint32_t (&d)[kWarpK / 8][2], const uint32_t (&a)[4],
                                      uint64_t desc, bool accumulate) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  uint32_t* r = &d[0][0];
  if constexpr (kWarpK == 64)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,"
                 "%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, 1, 0;\n}"
                 : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]),
                   "+r"(r[6]), "+r"(r[7]), "+r"(r[8]), "+r"(r[9]), "+r"(r[10]), "+r"(r[11]),
                   "+r"(r[12]), "+r"(r[13]), "+r"(r[14]), "+r"(r[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"((int)accumulate));
  else if constexpr (kWarpK == 32)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, "
                 "{%8,%9,%10,%11}, %12, p, 1, 1, 0;\n}"
                 : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]),
                   "+r"(r[6]), "+r"(r[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"((int)accumulate));
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, %8, p, 1, 1, 0;\n}"
                 : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"((int)accumulate));
#endif
}

__device__ __forceinline__ void wgmma(float (&d)[kWarpK / 8][4], const uint32_t (&a)[4],
                                      uint64_t desc, bool accumulate) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  float* r = &d[0][0];
  if constexpr (kWarpK == 32)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,"
                 "%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, 1, 0;\n}"
                 : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3]), "+f"(r[4]), "+f"(r[5]),
                   "+f"(r[6]), "+f"(r[7]), "+f"(r[8]), "+f"(r[9]), "+f"(r[10]), "+f"(r[11]),
                   "+f"(r[12]), "+f"(r[13]), "+f"(r[14]), "+f"(r[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"((int)accumulate));
  else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, "
                 "{%8,%9,%10,%11}, %12, p, 1, 1, 0;\n}"
                 : "+f"(r[0]), "+f"(r[1]), "+f"(r[2]), "+f"(r[3]), "+f"(r[4]), "+f"(r[5]),
                   "+f"(r[6]), "+f"(r[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"((int)accumulate));
#endif
}

// Ties the accumulators to the last wgmma_wait, so that no read of them moves above it.
__device__ __forceinline__ void wgmma_settle(uint32_t& v) { asm volatile("" : "+r"(v)); }
__device__ __forceinline__ void wgmma_settle(float& v) { asm volatile("" : "+f"(v)); }

// Channel pairs of OTrans: half2 (fp16 accumulators) or float2 (fp32).
__device__ __forceinline__ half2 add(half2 a, half2 b) { return __hadd2(a, b); }
__device__ __forceinline__ half2 sub(half2 a, half2 b) { return __hsub2(a, b); }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 to_float2(half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 to_float2(float2 v) { return v; }
__device__ __forceinline__ half2 to_half2(half2 v) { return v; }
__device__ __forceinline__ half2 to_half2(float2 v) { return __float22half2_rn(v); }

// The channel pair of tap `tap`, n8 block j, tile (A row g or g + 8).
__device__ __forceinline__ auto tap_pair(const Acc (&acc)[kTaps][kNB][kAccRegs], int tap, int j,
                                         int tile) {
  if constexpr (kF32Acc)
    return make_float2(acc[tap][j][2 * tile], acc[tap][j][2 * tile + 1]);
  else
    return u2h(acc[tap][j][tile]);
}

// B^T's rows (F(2,3)): combine rows a, b of a 4-row input with the sign of row i.
__device__ __forceinline__ half2 bt_row(int i, half2 d0, half2 d1, half2 d2, half2 d3) {
  return i == 0 ? __hsub2(d0, d2) : i == 1 ? __hadd2(d1, d2) : i == 2 ? __hsub2(d2, d1)
                                                                        : __hsub2(d1, d3);
}

// The patch rows a warp reads, as offsets in halves from its first pixel: all taps, rows 0-3
// of the top tile (2-5 of the bottom one); tap split, rows (e0, e1, e2) of each tile, which the
// warp's two tap rows combine as e0 - e2 and e1 + sign e2 (half 0: rows 0, 1, 2, tap rows 0
// and 1 = d0 - d2, d1 + d2; half 1: rows 2, 3, 1, tap rows 2 and 3 = d2 - d1 and d3 - d1, the
// negated tap row 3, which KTrans negates in U). Both halves run the same code.
// int8 in: the loaded values carry kInputBias (load_channels). B^T's rows 0, 2 and 3 are
// differences, which cancel it; row 1 (d1 + d2) takes 2 kInputBias off d1 first, so that each
// partial stays in fp16's exact integers: d1 - 2304 in [-1280, -1025], then + d2 in [-256, 254].
constexpr float kInputBias = kInt8In ? 1152.f : 0.f;

// B^T's row i of the patch (biased with int8 in).
__device__ __forceinline__ half2 bt_row_input(int i, half2 d0, half2 d1, half2 d2, half2 d3) {
  if (kInt8In && i == 1) return __hadd2(__hsub2(d1, __float2half2_rn(2 * kInputBias)), d2);
  return bt_row(i, d0, d1, d2, d3);
}

struct PatchRows {
  int offset[3];
  half2 sign;
  half2 bias_off;  // int8 in: taken off e1 where e1 + sign e2 is B^T's row 1 (half 0)
};

__device__ __forceinline__ PatchRows patch_rows(int half_index) {
  const int h = half_index;
  return {{2 * h * kPatchCols * kPix, (2 * h + 1) * kPatchCols * kPix,
           (2 - h) * kPatchCols * kPix},
          __float2half2_rn(h == 0 ? 1.f : -1.f),
          __float2half2_rn(h == 0 ? -2 * kInputBias : 0.f)};
}

{{LOAD_CHANNELS}}

// 16-channel step s of a chunk for a warp's 16 tiles: load from the chunk's patch buffer,
// B^T d B, MMA. xb is the lane's first input pixel in that buffer; b_chunk addresses U's
// columns of the chunk (mma.sync: the lane's ldmatrix address at its first tap; wgmma: the
// chunk's descriptor).
template <int s, typename B>
__device__ __forceinline__ void channel_step(Acc (&acc)[kTaps][kNB][kAccRegs], const XT* xb,
                                             const PatchRows& rows, B b_chunk, bool first_chunk) {
  constexpr int kOffset = s * 16;
  constexpr int kInRows = kTapSplit == 1 ? 6 : 3;  // loaded rows (per tile with the tap split)
  // .x holds channels 4q, 4q+1 (A register 0 / 1), .y channels 4q+2, 4q+3 (register 2 / 3).
  // wgmma: the previous step's MMAs still read A registers; wait for them before this step's
  // input loads and transform. Keeping one or two tap rows' MMAs in flight instead (a commit
  // group per tap row; no spills) gained nothing: 0.95x-1.02x (experiments: step_overlap).
  if constexpr (kWgmma) wgmma_wait<0>();
  uint2 d[2][kInRows][4];  // all taps: d[0] = the patch's 6 rows
#pragma unroll
  for (int tile = 0; tile < (kTapSplit == 1 ? 1 : 2); ++tile)
#pragma unroll
    for (int i = 0; i < kInRows; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int at = kTapSplit == 1 ? i * kPatchCols * kPix
                                      : rows.offset[i] + 2 * tile * kPatchCols * kPix;
        d[tile][i][j] = load_channels(xb + at + j * kPix + kOffset);
      }
#pragma unroll
  for (int tr = 0; tr < 4 / kTapSplit; ++tr) {
    half2 t[2][2][4];  // [tile][register half][input column]: B^T d, tap row tr of the warp's
#pragma unroll
    for (int tile = 0; tile < 2; ++tile)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const auto row = [&](int tile_in, int i) {
            return u2h(h == 0 ? d[tile_in][i][j].x : d[tile_in][i][j].y);
          };
          if constexpr (kTapSplit == 1) {
            const int r = 2 * tile;  // rows 0-3: top tile, rows 2-5: bottom tile
            t[tile][h][j] =
                bt_row_input(tr, row(0, r), row(0, r + 1), row(0, r + 2), row(0, r + 3));
          } else {
            const half2 e1 = kInt8In ? __hadd2(row(tile, 1), rows.bias_off) : row(tile, 1);
            t[tile][h][j] = tr == 0 ? __hsub2(row(tile, 0), row(tile, 2))
                                    : __hfma2(rows.sign, row(tile, 2), e1);
          }
        }
    if constexpr (kWgmma) {
      // The four taps of row tr: one fence for their A registers, then a wgmma each.
      uint32_t a[4][4];
#pragma unroll
      for (int tc = 0; tc < 4; ++tc)
#pragma unroll
        for (int tile = 0; tile < 2; ++tile)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            a[tc][2 * h + tile] = h2u(bt_row(tc, t[tile][h][0], t[tile][h][1], t[tile][h][2],
                                             t[tile][h][3]));
      wgmma_fence();
#pragma unroll
      for (int tc = 0; tc < 4; ++tc) {
        const int tap = tr * 4 + tc;
        // Core matrices (tap, c / 8): this step's two along c are kBlockK x 16 B apart.
        wgmma(acc[tap], a[tc], b_chunk + (uint64_t)((tap * kC / 8 + 2 * s) * kBlockK),
              !(first_chunk && s == 0));
      }
    } else {
#pragma unroll
      for (int tc = 0; tc < 4; ++tc) {
        uint32_t a[4];
#pragma unroll
        for (int tile = 0; tile < 2; ++tile)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            a[2 * h + tile] = h2u(bt_row(tc, t[tile][h][0], t[tile][h][1], t[tile][h][2],
                                         t[tile][h][3]));
        const int tap = tr * 4 + tc;  // of the warp's taps
#pragma unroll
        for (int p = 0; p < kNB / 2; ++p) {
          uint32_t b[4];
          ldmatrix_x4(b, b_chunk + 2u * (uint32_t)((tap * kBlockK + p * 16) * kRow + s * 16));
          mma(acc[tap][2 * p], a, b[0], b[1]);
          mma(acc[tap][2 * p + 1], a, b[2], b[3]);
        }
      }
    }
  }
  if constexpr (kWgmma) wgmma_commit();
}

// One chunk of the channel loop, one channel_step per 16 channels, unrolled by a fold
// expression (nvcc left a plain `#pragma unroll` loop rolled, recomputing every address each step).
template <typename B, int... S>
__device__ __forceinline__ void channel_chunk(Acc (&acc)[kTaps][kNB][kAccRegs], const XT* xb,
                                              const PatchRows& rows, B b_chunk, bool first_chunk,
                                              std::integer_sequence<int, S...>) {
  (channel_step<S>(acc, xb, rows, b_chunk, first_chunk), ...);
}

// Image, top tile row and first tile column of tile group `group`.
__device__ __forceinline__ int3 group_origin(int group) {
  const int n = group / (kGroupRows * kGroupCols), rest = group % (kGroupRows * kGroupCols);
  return make_int3(n, (rest / kGroupCols) * kUnitTileRows, (rest % kGroupCols) * 8);
}

// TMA: channel chunk `chunk` of a tile group's patch into buffer, by one thread, completing on
// bar (x_map: x as [N][H][W][C / kChunkC][kChunkC], boxes of 1 x kBoxRows x 18 x 1 x
// kPix, zero outside the image and in the pad).
// No tile group: a plain arrival, so that the buffer's phase completes all the same.
__device__ __forceinline__ void tma_stage(XT* buffer, uint64_t* bar, const void* x_map, int3 o,
                                          int chunk, bool valid) {
  const uint32_t bar_at = smem_address(bar);
  if (valid) {
    // The buffer's last reads and writes (generic proxy) came before the group's barrier.
    fence_proxy_async();
    mbarrier_expect_tx(bar_at, kBoxBytes);
    tma_copy_5d(smem_address(buffer), x_map, {0, chunk, 2 * o.z - 1, 2 * o.y - 1, o.x}, bar_at);
  } else {
    mbarrier_arrive(bar_at);
  }
}

// cp.async of channel chunk `chunk` of a tile group's input patch, zero-filled outside the
// image; one commit group, empty when `valid` is false (the wait counts stay uniform). Thread
// tid copies 16-byte piece tid % kPieces of columns tid / kPieces + kColsPerPass k of every
// row.
__device__ __forceinline__ void stage_chunk(XT* buffer, const XT* __restrict__ x, int3 o,
                                            int chunk, bool valid, int tid) {
  constexpr int kPieceElems = 16 / (int)sizeof(XT), kElemBytes = (int)sizeof(XT);
  constexpr int kPieces = kChunkC / kPieceElems, kGroupThreads = kGroupWarps * 32;
  constexpr int kColsPerPass = kGroupThreads / kPieces;
  constexpr int kPasses = (kPatchCols + kColsPerPass - 1) / kColsPerPass;
  static_assert(kGroupThreads % kPieces == 0, "lane layout: a pass copies whole pixels");
  if (valid) {
    const int piece = tid % kPieces, col0 = tid / kPieces;
    const int iy0 = 2 * o.y - 1, ix0 = 2 * o.z - 1 + col0;
    const XT* src = x + (((long long)o.x * kH + iy0) * kW + ix0) * kC + chunk * kChunkC +
                    piece * kPieceElems;
    const uint32_t dst =
        smem_address(buffer + col0 * kPix + piece * kPieceElems);
    // Whether the thread has a column in pass k (the last pass may cover fewer than all).
    const auto in_pass = [&](int k) {
      return (k + 1) * kColsPerPass <= kPatchCols || col0 + k * kColsPerPass < kPatchCols;
    };
    // wgmma kernels: where the whole patch lies inside the image (all but the border's tile
    // groups), no bounds tests, so the copies' addresses are the bases plus constants, which
    // fold into the instructions' offsets (with the tests each copy took about 20
    // instructions). A pass that only some threads copy is one branch around all its rows.
    // Not for mma.sync: there the copies, no longer spaced out by their address arithmetic,
    // fill the MIO queue in front of the channel steps' ldmatrix and LDS (0.93-0.97x,
    // experiments: stage_fast).
    if (kWgmma && o.y > 0 && o.z > 0 && iy0 + kPatchRows <= kH &&
        2 * o.z - 1 + kPatchCols <= kW) {
#pragma unroll
      for (int k = 0; k < kPasses; ++k)
        if (in_pass(k))
#pragma unroll
          for (int r = 0; r < kPatchRows; ++r)
            cp_async_16(dst + kElemBytes * (uint32_t)((r * kPatchCols + k * kColsPerPass) * kPix),
                        src + ((long long)r * kW + k * kColsPerPass) * kC);
    } else {
#pragma unroll
      for (int r = 0; r < kPatchRows; ++r) {
        const bool row_inside = (unsigned)(iy0 + r) < (unsigned)kH;
#pragma unroll
        for (int k = 0; k < kPasses; ++k) {
          if (!in_pass(k)) continue;
          const bool inside = row_inside && (unsigned)(ix0 + k * kColsPerPass) < (unsigned)kW;
          const XT* from = inside ? src + ((long long)r * kW + k * kColsPerPass) * kC : x;
          cp_async_16(dst + kElemBytes * (uint32_t)((r * kPatchCols + k * kColsPerPass) * kPix),
                      from, inside ? 16 : 0);
        }
      }
    }
  }
  cp_async_commit();
}

// The ring's buffer after / before buffer b.
__device__ __forceinline__ int ring_next(int b) { return b == kStages - 1 ? 0 : b + 1; }
__device__ __forceinline__ int ring_previous(int b) { return b == 0 ? kStages - 1 : b - 1; }

__device__ __forceinline__ void group_barrier(int group) {
  named_barrier(1 + group, kGroupWarps * 32);
}

// The oldest staged chunk's copies by this thread have landed (kStages - 2 younger ones may
// be in flight); then the group's barrier makes every thread's copies visible, and frees the
// buffer the group computed on before it.
__device__ __forceinline__ void wait_oldest_chunk(int group) {
  cp_async_wait<kStages - 2>();
  group_barrier(group);
}

// A lane's runs per output pixel (kStoreRun channels apart), and the 32-bit
// words of one run of kLaneRun channels of type T.
constexpr int kRuns = kNB / kStorePairs;
template <typename T>
constexpr int kRunWords = kLaneRun * (int)sizeof(T) / 4;

// kWords words at `at`, in 16-byte stores (8- or 4-byte for shorter runs). In asm: from C++,
// nvcc 13 split the uint4 store of half2 values into 4 32-bit stores (4x the store requests,
// 1.3x the kernel's time at 960^2; experiments: lane_template).
template <int kWords>
__device__ __forceinline__ void store_words(void* at, const uint32_t* w) {
  if constexpr (kWords == 1) {
    asm volatile("st.global.b32 [%0], %1;" ::"l"(at), "r"(w[0]) : "memory");
  } else if constexpr (kWords == 2) {
    asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(at), "r"(w[0]), "r"(w[1]) : "memory");
  } else {
#pragma unroll
    for (int i = 0; i < kWords / 4; ++i)
      asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(
                       reinterpret_cast<uint4*>(at) + i),
                   "r"(w[4 * i]), "r"(w[4 * i + 1]), "r"(w[4 * i + 2]), "r"(w[4 * i + 3])
                   : "memory");
  }
}

// The same as read-only loads (the residual).
template <int kWords>
__device__ __forceinline__ void load_words(const void* at, uint32_t* w) {
  if constexpr (kWords == 1) {
    w[0] = __ldg(reinterpret_cast<const unsigned*>(at));
  } else if constexpr (kWords == 2) {
    *reinterpret_cast<uint2*>(w) = __ldg(reinterpret_cast<const uint2*>(at));
  } else {
#pragma unroll
    for (int i = 0; i < kWords / 4; ++i)
      *reinterpret_cast<uint4*>(w + 4 * i) = __ldg(reinterpret_cast<const uint4*>(at) + i);
  }
}

// One lane's 2 kNB channels of an output pixel, run v at channel v kStoreRun.
__device__ __forceinline__ void store_pixel(YT* at,
                                            const uint32_t (&packed)[kRuns * kRunWords<YT>]) {
#pragma unroll
  for (int v = 0; v < kRuns; ++v)
    store_words<kRunWords<YT>>(at + v * kStoreRun, packed + v * kRunWords<YT>);
}

// Channel pair j of a pixel's words of type T (half2 or float2) as float2, and back (int8:
// saturated to [-127, 127] and rounded to nearest even, as the int8 IMMA kernels write, by the
// float32 magic number 1.5 * 2^23, whose sum's low byte is then rint(v): F2I is a quarter-rate
// instruction, one per output channel).
template <typename T>
__device__ __forceinline__ float2 pair_from(const uint32_t* w, int j) {
  if constexpr (std::is_same_v<T, half>)
    return __half22float2(u2h(w[j]));
  else
    return make_float2(__uint_as_float(w[2 * j]), __uint_as_float(w[2 * j + 1]));
}
__device__ __forceinline__ void pair_to(uint32_t* w, int j, float2 v) {
  if constexpr (std::is_same_v<YT, half>) {
    w[j] = h2u(__float22half2_rn(v));
  } else if constexpr (std::is_same_v<YT, float>) {
    w[2 * j] = __float_as_uint(v.x), w[2 * j + 1] = __float_as_uint(v.y);
  } else {
    constexpr float kMagic = 12582912.f;
    const float lo = fminf(fmaxf(v.x, -127.f), 127.f) + kMagic;
    const float hi = fminf(fmaxf(v.y, -127.f), 127.f) + kMagic;
    const uint32_t pair = __byte_perm(__float_as_uint(lo), __float_as_uint(hi), 0x0040);
    w[j / 2] = j % 2 ? __byte_perm(w[j / 2], pair, 0x5410) : pair;
  }
}

// y (and the residual) index of pixel (n, py, px), channel k.
__device__ __forceinline__ long long y_index(int n, int py, int px, int k) {
  return (((long long)n * kH + py) * kW + px) * kK + k;
}

// Pairs of OTrans as 32-bit words (the tap split's exchange), and sign * a + b.
__device__ __forceinline__ void put(uint32_t* w, half2 v) { w[0] = h2u(v); }
__device__ __forceinline__ void put(uint32_t* w, float2 v) {
  w[0] = __float_as_uint(v.x);
  w[1] = __float_as_uint(v.y);
}
__device__ __forceinline__ void get(const uint32_t* w, half2& v) { v = u2h(w[0]); }
__device__ __forceinline__ void get(const uint32_t* w, float2& v) {
  v = make_float2(__uint_as_float(w[0]), __uint_as_float(w[1]));
}
__device__ __forceinline__ half2 signed_add(half2 sign, half2 a, half2 b) {
  return __hfma2(sign, a, b);
}
__device__ __forceinline__ float2 signed_add(half2 sign, float2 a, float2 b) {
  const float s = __low2float(sign);
  return make_float2(fmaf(s, a.x, b.x), fmaf(s, a.y, b.y));
}

using Pair = std::conditional_t<kF32Acc, float2, half2>;  // tap_pair's type

// What the output stage reads besides the accumulators: the lane's bias pairs, the residual,
// and y's multiplier (1 / *y_scale for a scaled y).
struct Epilogue {
  float2 bias_pairs[kNB];
  const ET* residual;
  float y_multiplier;
  half2 y_pow2, y_half_multiplier;  // kHalfInt8Y: 2^kUShift y_multiplier as their product
};

// kHalfInt8Y: y's multiplier in integer units, s = 2^kUShift y_multiplier, as 2^p s_h with both
// finite halves (p <= 15, |s_h| <= 2^15): past 2^30 any nonzero sum, at least U's step 2^-16
// (a quarter of an integer unit at C <= 512), saturates either way.
__device__ __forceinline__ void set_half_multiplier(Epilogue& epilogue) {
  float s = (float)(1ll << kUShift) * epilogue.y_multiplier, pow2 = 1.f;
  int e;
  frexpf(s, &e);
  if (e > 15) {
    const int p = min(e - 15, 15);
    pow2 = ldexpf(1.f, p);
    s = ldexpf(s, -p);
  }
  epilogue.y_pow2 = __float2half2_rn(pow2);
  epilogue.y_half_multiplier = __float2half2_rn(fminf(fmaxf(s, -32768.f), 32768.f));
}

// Two channels of an int8 y from OTrans's half2 (kHalfInt8Y): the product with the multiplier
// plus 1536 rounded once to a half, whose step is 1 in [1024, 2048), and clamped to
// 1536 +- 127, keeps rint(v s) saturated to [-127, 127] in its low byte, as pair_to's fp32
// path writes. The multiplier's rounding to a half (2^-12 of it, as the fp16 accumulators'
// own) moves a y that lies within 2^-12 |y| of a half-integer by one.
__device__ __forceinline__ half2 round_int8(half2 v, const Epilogue& epilogue) {
  const half2 magic = __float2half2_rn(1536.f);
  const half2 r = __hfma2(__hmul2(v, epilogue.y_pow2), epilogue.y_half_multiplier, magic);
  return __hmin2(__hmax2(r, __float2half2_rn(1409.f)), __float2half2_rn(1663.f));
}

// The epilogue relu(conv + bias + residual) in fp32 on kRowsOut output rows of one tile (from
// pixel row py, column px), and 2 kNB adjacent channels per pixel stored. int8 in: OTrans's sums
// times 2^kUShift first (integer units), and a scaled y times y_multiplier last; an int8 y
// without the epilogue in half2 instead (round_int8).
template <int kRowsOut>
__device__ __forceinline__ void store_rows(const Pair (&out)[kRowsOut][2][kNB], int n, int py,
                                           int px, int channel, const Epilogue& epilogue,
                                           YT* __restrict__ y) {
  constexpr float kUnscale = (float)(1ll << kUShift);
#pragma unroll
  for (int a = 0; a < kRowsOut; ++a)
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      if (kRagged && (py + a >= kH || px + b >= kW)) continue;
      const long long at = y_index(n, py + a, px + b, channel);
      uint32_t packed[kRuns * kRunWords<YT>];
      uint32_t res[kRuns * kRunWords<ET>] = {};
      if constexpr (kResidual) {
#pragma unroll
        for (int v = 0; v < kRuns; ++v)
          load_words<kRunWords<ET>>(epilogue.residual + at + v * kStoreRun,
                                    res + v * kRunWords<ET>);
      }
      if constexpr (kHalfInt8Y) {
#pragma unroll
        for (int j = 0; j < kNB; j += 2) {
          const half2 lo = round_int8(out[a][b][j], epilogue);
          const half2 hi = j + 1 < kNB ? round_int8(out[a][b][j + 1], epilogue) : lo;
          packed[j / 2] = __byte_perm(h2u(lo), h2u(hi), 0x6420);  // the halves' low bytes
        }
        store_pixel(y + at, packed);
        continue;
      }
#pragma unroll
      for (int j = 0; j < kNB; ++j) {
        if constexpr (kEpilogue || kInt8In) {
          float2 v = to_float2(out[a][b][j]);
          if constexpr (kInt8In) v = make_float2(v.x * kUnscale, v.y * kUnscale);
          if constexpr (kBias) v = add(v, epilogue.bias_pairs[j]);
          if constexpr (kResidual) v = add(v, pair_from<ET>(res, j));
          if constexpr (kRelu) v = make_float2(fmaxf(v.x, 0.f), fmaxf(v.y, 0.f));
          if constexpr (kScaledOut)
            v = make_float2(v.x * epilogue.y_multiplier, v.y * epilogue.y_multiplier);
          pair_to(packed, j, v);
        } else {
          packed[j] = h2u(to_half2(out[a][b][j]));
        }
      }
      store_pixel(y + at, packed);
    }
}

// OTrans Y = A^T M A (A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]) of the lane's two tiles, then
// store_rows. A tap row i's column sums sum_i = m0 + m1 + m2, dif_i = m1 - m2 - m3 make output
// row 0 = sum of rows 0-2 and row 1 = row 1 - row 2 - row 3. With the tap split, half 0 holds
// tap rows 0, 1 and half 1 rows 2, 3: half 0 finishes output row 0 (its rows 0 + 1, plus half
// 1's row 2), half 1 output row 1 (-(its rows 2 + 3), plus half 0's row 1), swapping those
// partial rows through shared memory, one tile at a time.
struct Exchange {
  uint32_t* mine[2];          // per tile: this warp's words for the other half
  const uint32_t* theirs[2];  // the other half's (partner_warp in forward)
};

__device__ __forceinline__ void otrans_store(const Acc (&acc)[kTaps][kNB][kAccRegs], int3 o, int g,
                                             int channel, const Epilogue& epilogue,
                                             YT* __restrict__ y, int half_index,
                                             const PatchRows& rows, const Exchange& exchange,
                                             int group) {
  const auto column_sums = [&](int i, int j, int tile, Pair& sum, Pair& dif) {
    const Pair m0 = tap_pair(acc, 4 * i, j, tile), m1 = tap_pair(acc, 4 * i + 1, j, tile);
    const Pair m2 = tap_pair(acc, 4 * i + 2, j, tile), m3 = tap_pair(acc, 4 * i + 3, j, tile);
    sum = add(add(m0, m1), m2);
    dif = sub(sub(m1, m2), m3);
  };
  if constexpr (kTapSplit == 1) {
#pragma unroll
    for (int tile = 0; tile < 2; ++tile) {
      Pair out[2][2][kNB];  // [row][col][n8 block j]
#pragma unroll
      for (int j = 0; j < kNB; ++j) {
        Pair sum[4], dif[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) column_sums(i, j, tile, sum[i], dif[i]);
        out[0][0][j] = add(add(sum[0], sum[1]), sum[2]);
        out[1][0][j] = sub(sub(sum[1], sum[2]), sum[3]);
        out[0][1][j] = add(add(dif[0], dif[1]), dif[2]);
        out[1][1][j] = sub(sub(dif[1], dif[2]), dif[3]);
      }
      store_rows<2>(out, o.x, 2 * (o.y + tile), 2 * (o.z + g), channel, epilogue, y);
    }
  } else {
    Pair keep[2][1][2][kNB];  // [tile][the output row][col][j]: rows 0 + 1 of the warp's taps
    uint32_t words[2][kTileWords];
    constexpr int kPairWords = kAccRegs / 2;  // a Pair's 32-bit words
#pragma unroll
    for (int tile = 0; tile < 2; ++tile)
#pragma unroll
      for (int j = 0; j < kNB; ++j) {
        // Scalars, not arrays: nvcc turned a choice between two array elements into a
        // local-memory array indexed by half_index.
        Pair sum0, dif0, sum1, dif1;
        column_sums(0, j, tile, sum0, dif0);
        column_sums(1, j, tile, sum1, dif1);
        keep[tile][0][0][j] = add(sum0, sum1);
        keep[tile][0][1][j] = add(dif0, dif1);
        // half 0 sends its tap row 1, half 1 its tap row 0 (the other's row 2)
        put(words[tile] + (0 * kNB + j) * kPairWords, half_index == 0 ? sum1 : sum0);
        put(words[tile] + (1 * kNB + j) * kPairWords, half_index == 0 ? dif1 : dif0);
      }
    // Words [i][lane][4]: 16-byte accesses, one 512-byte run per warp instruction.
    const int lane = threadIdx.x & 31;
    const auto send = [&](int tile) {
#pragma unroll
      for (int i = 0; i < kTileWords / 4; ++i)
        *reinterpret_cast<uint4*>(exchange.mine[tile] + (i * 32 + lane) * 4) =
            make_uint4(words[tile][4 * i], words[tile][4 * i + 1], words[tile][4 * i + 2],
                       words[tile][4 * i + 3]);
    };
    const auto finish = [&](int tile) {
#pragma unroll
      for (int i = 0; i < kTileWords / 4; ++i) {
        const uint4 v =
            *reinterpret_cast<const uint4*>(exchange.theirs[tile] + (i * 32 + lane) * 4);
        words[tile][4 * i] = v.x, words[tile][4 * i + 1] = v.y;
        words[tile][4 * i + 2] = v.z, words[tile][4 * i + 3] = v.w;
      }
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int j = 0; j < kNB; ++j) {
          Pair other;
          get(words[tile] + (b * kNB + j) * kPairWords, other);
          keep[tile][0][b][j] = signed_add(rows.sign, keep[tile][0][b][j], other);
        }
      store_rows<1>(keep[tile], o.x, 2 * (o.y + tile) + half_index, 2 * (o.z + g), channel,
                    epilogue, y);
    };
    send(0);
    if constexpr (!kExchangeInPatch) send(1);
    group_barrier(group);
    // In the patch buffer only now: the barrier tells that the group's warps are done with it.
    // The next item staged into it waits at the group's next barrier, after these reads.
    if constexpr (kExchangeInPatch) send(1);
    finish(0);
    if constexpr (kExchangeInPatch) group_barrier(group);
    finish(1);
  }
}

// The block's slice of U (its kBlockK channels), staged once by the whole block, after the
// tile groups' first chunks were issued (their latency overlaps U's); every thread's copies
// have landed and are visible to the block after the caller's barrier. wgmma: cp.async,
// waited for with those chunks (1.02x-1.13x over synchronous loads issued first); mma.sync:
// synchronous 16-byte loads, where cp.async lost 0.94x-0.98x at N=32 C >= 128
// (experiments: u_async).
__device__ __forceinline__ void stage_u(half* Us, const half* __restrict__ U, int k_block) {
  constexpr int kPieces = kC / 8;  // 16-byte pieces per U row
  if constexpr (kWgmma) {
    // U is [tap][c / 8][k][8 c] (wino_lane_ktrans): the block's kBlockK rows of each
    // (tap, c / 8) are one contiguous run, and so are they in shared memory.
    for (int i = threadIdx.x; i < 16 * kPieces * kBlockK; i += kThreads) {
      const int run = i / kBlockK, k = i % kBlockK;  // run = tap * kPieces + c / 8
      cp_async_16(smem_address(Us) + 16u * (uint32_t)i,
                  U + ((long long)run * kK + k_block + k) * 8);
    }
    cp_async_commit();
    cp_async_wait<0>();
    // wgmma reads U through the async proxy: make the copies (generic proxy) visible to it.
    fence_proxy_async();
  } else {
    for (int i = threadIdx.x; i < 16 * kBlockK * kPieces; i += kThreads) {
      const int row = i / kPieces, piece = i % kPieces;  // row = tap * kBlockK + channel
      const int tap = row / kBlockK, k = row % kBlockK;
      *reinterpret_cast<uint4*>(Us + row * kRow + piece * 8) =
          __ldg(reinterpret_cast<const uint4*>(U + ((long long)tap * kK + k_block + k) * kC) +
                piece);
    }
  }
}

__device__ __forceinline__ void forward(const void* x_map, const XT* __restrict__ x,
                                        const half* __restrict__ U, const ET* __restrict__ bias,
                                        const ET* __restrict__ residual,
                                        const float* __restrict__ y_scale, YT* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  half* Us = reinterpret_cast<half*>(smem);
  const int k_block = blockIdx.y * kBlockK;

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // A tile group's warps: channel slice kslice, share half_index of the taps, in_group =
  // kslice * kTapSplit + half_index. mma.sync: warps w of group w / kGroupWarps, in_group
  // w % kGroupWarps. wgmma: warpgroup v holds rank r = warp % 4 of tile group
  // (v / kGroupWarps) * 4 + r, in_group v % kGroupWarps.
  const int rank = warp % 4, warpgroup = warp / 4;
  const int group = kWgmma ? warpgroup / kGroupWarps * 4 + rank : warp / kGroupWarps;
  const int in_group = kWgmma ? warpgroup % kGroupWarps : warp % kGroupWarps;
  const int kslice = in_group / kTapSplit, half_index = in_group % kTapSplit;
  const int partner_warp = kWgmma ? warp ^ 4 : warp ^ 1;  // the tap split's other half
  const int tid = in_group * 32 + lane;
  const int g = lane >> 2, q = lane & 3;
  // ldmatrix.x4: lanes 8i .. 8i+7 address matrix i = (n8 block i / 2, k half i % 2).
  // The tap split's second half starts at U's tap kTaps.
  const uint32_t b_base = smem_address(Us) +
                          2u * (uint32_t)((half_index * kTaps * kBlockK + kslice * kWarpK +
                                           (lane >> 4) * 8 + (lane & 7)) * kRow +
                                          ((lane >> 3) & 1) * 8);
  // wgmma: the descriptor of the slice's first core matrix (rows k of kslice, channels c 0-7)
  // at the warp's first tap.
  const uint64_t b_desc = u_descriptor(
      smem_address(Us) +
      16u * (uint32_t)(half_index * kTaps * kC / 8 * kBlockK + kslice * kWarpK));
  const int channel = k_block + kslice * kWarpK + k_physical(q, 0);
  Epilogue epilogue;
#pragma unroll
  for (int j = 0; j < kNB; ++j) {
    uint32_t pair[2] = {};
    if constexpr (kBias)
      load_words<(int)sizeof(ET) / 2>(bias + channel + k_physical(0, j), pair);
    epilogue.bias_pairs[j] = pair_from<ET>(pair, 0);
  }
  epilogue.residual = residual;
  epilogue.y_multiplier = kScaledOut ? 1.f / __ldg(y_scale) : 1.f;
  if constexpr (kHalfInt8Y) set_half_multiplier(epilogue);

  const int unit = kStack ? 0 : group;  // the block's unit of work this warp takes
  XT* patch = reinterpret_cast<XT*>(smem + kUBytes) + unit * kStages * kPatchElems;
  // TMA: the group's mbarriers, one per buffer, initialised by the thread that issues its copies.
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + kSmemBytes - kBarrierBytes) + unit * kStages;
  const bool elected = kStack ? threadIdx.x == 0 : tid == 0;
  if (kTma && elected) {
    for (int b = 0; b < kStages; ++b)
      mbarrier_init(smem_address(bars + b), 1);
    mbarrier_init_fence();
  }
  const XT* xb = patch + 2 * g * kPix + 4 * q + (kStack ? 4 * group * kPatchCols * kPix : 0);
  const PatchRows rows = patch_rows(half_index);
  // Tap split: the exchange's own memory, [warp][tile], after the patches.
  unsigned char* const own_exchange = smem + kUBytes + kUnits * kStages * kPatchBytes;
  const auto exchange_words = [&](int w, int tile) {
    return reinterpret_cast<uint32_t*>(own_exchange + (w * kOwnExchangeTiles + tile) * kTileBytes);
  };
  Exchange exchange = {
      {exchange_words(warp, 0), exchange_words(warp, kOwnExchangeTiles - 1)},
      {exchange_words(partner_warp, 0), exchange_words(partner_warp, kOwnExchangeTiles - 1)}};
  // Items (tile group, chunk) run in order through the ring of buffers: item i is chunk
  // i % kChunks of tile group first + (i / kChunks) * stride, in buffer i % kStages.
  // Stacked, the block's groups walk the same stacks (tile_group counts stacks).
  const int stride = gridDim.x * kUnits;
  int tile_group = blockIdx.x * kUnits + unit;
  // Stages item `item`, counted from tile_group's first chunk, into buffer b.
  const auto stage_item = [&](int b, int item) {
    const int ahead = tile_group + item / kChunks * stride;
    if constexpr (kTma) {
      if (elected)
        tma_stage(patch + b * kPatchElems, bars + b, x_map, group_origin(ahead), item % kChunks,
                  ahead < kTileGroups);
    } else {
      stage_chunk(patch + b * kPatchElems, x, group_origin(ahead), item % kChunks,
                  ahead < kTileGroups, tid);
    }
  };
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) stage_item(i, i);
  stage_u(Us, U, k_block);
  __syncthreads();  // U staged

  int buffer = 0;      // of the item about to be computed
  uint32_t phase = 0;  // TMA: bit b, the parity of buffer b's next completion
  // wgmma: the warpgroup's four tile groups run the same trips (its MMAs are collective), and
  // those past the last tile group compute on stale data without storing it.
  for (; (kWgmma && !kStack ? tile_group - rank : tile_group) < kTileGroups;
       tile_group += stride) {
    int3 o = group_origin(tile_group);
    if constexpr (kStack) o.y += 2 * group;
    // wgmma's first MMA of a tile group overwrites the accumulators instead (zeroing them
    // between MMAs would make ptxas fence each one).
    Acc acc[kTaps][kNB][kAccRegs];
    if constexpr (!kWgmma) {
#pragma unroll
      for (int t = 0; t < kTaps; ++t)
#pragma unroll
        for (int j = 0; j < kNB; ++j)
#pragma unroll
          for (int r = 0; r < kAccRegs; ++r) acc[t][j][r] = Acc(0);
    }
#pragma unroll kChunkUnroll
    for (int chunk = 0; chunk < kChunks; ++chunk) {
      // The item kStages - 1 ahead goes to the buffer the group's previous item used.
      if constexpr (kTma) {
        // The group (stacked: the block) is done with that buffer; then this item's copy must
        // have landed.
        if constexpr (kStack)
          __syncthreads();
        else
          group_barrier(group);
        stage_item(ring_previous(buffer), chunk + kStages - 1);
        mbarrier_wait(smem_address(bars + buffer), phase >> buffer & 1u);
        phase ^= 1u << buffer;
        // One chunk a tile group: the flip here, not sunk by nvcc to the loop's end, where its
        // temporary register was one the tile group's first store still had to read (its
        // address) and every warp waited for the stores to drain before the next barrier (8%
        // of the 640² pick's stall samples, experiments: stack_ncu). Pinned, they wait
        // after it: neutral, 1.001x-1.012x; pinned between two chunks, 0.98x-0.99x at the
        // int8-y picks (experiments: store_wait).
        if constexpr (kChunks == 1) asm volatile("" : "+r"(phase));
      } else {
        wait_oldest_chunk(group);
        stage_item(ring_previous(buffer), chunk + kStages - 1);
      }
      if constexpr (kWgmma) {
        // With one warp per tile group the descriptors are uniform (uniform registers, one
        // UIADD3 each). With more they are not: opaque per chunk, else nvcc hoists every
        // wgmma's descriptor out of the tile-group loop into registers (spills at C = 128).
        uint64_t desc = b_desc + (uint64_t)(chunk * kChunkC / 8 * kBlockK);
        if constexpr (kGroupWarps > 1) asm volatile("" : "+l"(desc));
        channel_chunk(acc, xb + buffer * kPatchElems, rows, desc, chunk == 0,
                      std::make_integer_sequence<int, kStepsPerChunk>{});
      } else {
        channel_chunk(acc, xb + buffer * kPatchElems, rows,
                      b_base + 2u * (uint32_t)(chunk * kChunkC), chunk == 0,
                      std::make_integer_sequence<int, kStepsPerChunk>{});
      }
      buffer = ring_next(buffer);
    }
    if constexpr (kWgmma) {
      wgmma_wait<0>();
#pragma unroll
      for (int t = 0; t < kTaps; ++t)
#pragma unroll
        for (int j = 0; j < kNB; ++j)
#pragma unroll
          for (int r = 0; r < kAccRegs; ++r) wgmma_settle(acc[t][j][r]);
      if (tile_group >= kTileGroups) continue;
    }
    if constexpr (kExchangeInPatch) {
      // Tile 1's words in the buffer of the group's last item.
      unsigned char* last =
          reinterpret_cast<unsigned char*>(patch + ring_previous(buffer) * kPatchElems);
      exchange.mine[1] = reinterpret_cast<uint32_t*>(last + in_group * kTileBytes);
      exchange.theirs[1] = reinterpret_cast<uint32_t*>(last + (in_group ^ 1) * kTileBytes);
    }
    otrans_store(acc, o, g, channel, epilogue, y, half_index, rows, exchange, group);
  }
}

}  // namespace wino_lane

// U = G g G^T per (k, c) (tap split: tap row 3 negated; int8 in: times 2^-kUShift), stored
// [tap][k logical][c logical] in fp16 (wgmma: in core matrices, [tap][c logical / 8][k logical]
// [c logical % 8]).
__global__ void wino_lane_ktrans(const wino_lane::XT* __restrict__ w, half* __restrict__ U) {
  using namespace wino_lane;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= kK * kC) return;
  const int k = idx % kK, c = idx / kK;
  const float G[4][3] = {{1.f, 0.f, 0.f}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0.f, 0.f, 1.f}};
  float g[3][3];
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) g[r][s] = (float)w[((r * 3 + s) * kC + c) * kK + k];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float u = 0.f;
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) u += G[i][r] * g[r][s] * G[j][s];
      // The tap split's second half computes tap row 3's V negated (d3 - d1): U's row 3 too.
      if (kTapSplit == 2 && i == 3) u = -u;
      if constexpr (kUShift != 0) u *= 1.f / (float)(1ll << kUShift);
      const int tap = i * 4 + j, cl = c_logical(c);
      U[kWgmma ? ((tap * (kC / 8) + cl / 8) * kK + k_logical(k)) * 8 + cl % 8
               : (tap * kK + k_logical(k)) * kC + cl] = __float2half_rn(u);
    }
}

__global__ void __launch_bounds__(wino_lane::kThreads, 1)
    wino_lane_forward({{FORWARD_PARAMS}}) {
  wino_lane::forward({{X_MAP_ARG}}, x, U, {{BIAS_ARG}}, {{RESIDUAL_ARG}}, {{Y_SCALE_ARG}}, y);
}
#if WINO_LANE_TMA

// x's tensor map for the patch copies, per x pointer: built once through the driver's
// cuTensorMapEncodeTiled (nothing links libcuda) and cached for the few x the caller rotates.
// A launch argument helper (wino_tvm.harness): on failure it says why and sets *error.
static CUtensorMap wino_lane_x_map(const void* x, cudaError_t* error) {
  using namespace wino_lane;
  constexpr int kCached = 64;
  static std::mutex lock;  // library callers may launch from several threads
  const std::lock_guard<std::mutex> guard(lock);
  static const void* pointers[kCached];
  static CUtensorMap maps[kCached];
  static int count = 0;
  for (int i = 0; i < count; ++i)
    if (pointers[i] == x) return maps[i];
  CUtensorMap map{};
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      fprintf(stderr, "error: the CUDA driver has no cuTensorMapEncodeTiled (TMA lane kernels "
                      "need a CUDA 12 driver): build without tma\n");
      *error = cudaErrorNotSupported;
      return map;
    }
    encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  // x as [N][H][W][C / kChunkC][kChunkC]: a box row is one padded patch pixel of one chunk,
  // whose pad channels lie past the chunk's dimension, so they are zero-filled, not read.
  const cuuint64_t dims[5] = {kChunkC, kC / kChunkC, kW, kH, kN};
  constexpr cuuint64_t kBytes = sizeof(XT);
  const cuuint64_t strides[4] = {kBytes * kChunkC, kBytes * kC, kBytes * kW * kC,
                                 kBytes * kH * kW * kC};
  const cuuint32_t box[5] = {kPix, 1, kPatchCols, kBoxRows, 1}, steps[5] = {1, 1, 1, 1, 1};
  const CUtensorMapDataType type =
      kInt8In ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUresult result = encode(&map, type, 5, const_cast<void*>(x),
                                 dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    fprintf(stderr, "error: no TMA tensor map for x at %p (CUresult %d; x must be 16-byte "
                    "aligned)\n", x, (int)result);
    *error = cudaErrorInvalidValue;
    return map;
  }
  if (count < kCached) pointers[count] = x, maps[count++] = map;
  return map;
}
#endif
