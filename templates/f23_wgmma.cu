// Winograd F(2, 3) along w with wgmma: filled per workload and config by wino_tvm/kernels/f23
// ({{CONFIG}}). Not a TVM prototype: TVM 0.27's s_tir has no wgmma intrinsic, and the kernel's
// point is one staged input patch whose V rows the MMA takes at three row offsets, one per
// filter row (docs/families.md, "f23"; experiments: f23_wgmma, then f23_rs for V in registers).
//
// One-dimensional Winograd: a tile is 2 output pixels of one row; its 4 input pixels give
// V_j = (B^T d)_j, j = 0..3. Filter row r of the 3x3 filter is one 1-D F(2, 3): U_jr = (G g_r)_j.
// So M_j(tile) = sum_r sum_c V_j(tile r rows below) U_jr and y = A^T M: 6 MACs per output and
// input channel against direct convolution's 9 (F(2x2, 3x3): 4), with GEMM-sized MMAs.
//
// Flat rows: the staged patch holds the input rows in padded order, each image's H rows after a
// zero row (the pad shared by two images), so that every A row's V for filter row r sits r patch
// rows below its V for row 0, in every image alike. The GEMM's rows are (o, t), t < T = ceil(W /
// 2), o = n * (H + 1) + h: the padded rows, each image's last a row of garbage outputs over the
// zero row; or with kCompactRows o = n * H + h, without those (1 / (H + 1) fewer MMAs, a patch of
// more rows: the tuner picks; experiments: f23_rows). With kRowPairs the GEMM's rows come in pairs
// instead: a lane's two A rows (16 w + g and + 8) are the tiles (o, t) and (o + 1, t) of pair P =
// (o / 2) T + t, o even, adjacent patch rows (compact rows need H even), so the V row 1 patch row
// below serves both: 4 V rows a chunk instead of 6, but a warpgroup's patch spans whole pairs of
// rows (experiments: f23_pairs; the tuner picks). Each thread finds its rows' place in the patch
// once per tile. A block owns 128 consecutive rows x 64 output channels (a tile; with kPersist a
// resident block loops over tiles, its copies running on into the next tile while it finishes this
// one; with kStreamK it takes a contiguous share of all tiles' chunks, a tile split between blocks
// summed through a global workspace: see "Stream-K's split tiles" below, experiments: tune_sk) and
// loops over C in chunks of 16 channels (or over 1 / kSplits of C: a cluster of kSplits blocks
// along z splits the reduction, and the owner of each output adds the others' partial sums through
// distributed shared memory before its epilogue). Its two warpgroups (64 rows each) share only U:
//   U's 12 (j, r) slices of a chunk (24 KB, contiguous in U): one bulk copy by thread 0 into a
//   ring of 4 stages on mbarriers (`full` by bytes, `empty` by one arrival per warpgroup).
//   Each warpgroup on its own, with its own named barrier (a block's warps waiting for each
//   other's copies and transform twice a chunk cost more than U's traffic; experiments:
//   f23_wgmma, runs 6-9):
//   cp.async: the chunk's input patch (the pixels of its 64 + 2T V rows), a ring of kXStages
//   (with kProducer one patch of the block's 128 rows that both warpgroups read);
//   per filter row r: transform, V_j of the rows r T below its own straight from the patch into
//   the A registers wgmma takes from each thread; wgmma: 4 m64n64k16, A = V_j, B = U_jr from
//   shared memory, one commit group (V never touches shared memory: its round trip was 64 of
//   the 173 KB a chunk moved through it, experiments: f23_rs).
// fp32 accumulators: 4 x 32 registers (M_0..M_3 of 2 rows x 16 channels per lane), then OTrans,
// the epilogue relu(conv + bias + residual) in fp32 and 16-byte stores (KTrans permutes k so
// that a lane's channels come in runs of 16 bytes of y, 4 lanes' runs adjacent).
// wino-tvm: needs sm_90a
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
static_assert(false, "f23: wgmma needs sm_90a (-gencode=arch=compute_90a,code=sm_90a)");
#endif

{{PTX}}

namespace wino_f23 {

constexpr int kN = {{N}}, kH = {{H}}, kW = {{W}}, kC = {{C}}, kK = {{K}};
constexpr int kXStages = {{X_STAGES}};      // a warpgroup's input ring (stages)
// 16-channel chunks per input stage: with 2, each pixel's copy is 64 contiguous bytes of x (two
// sectors of a line) instead of 32, half the L1 wavefronts a byte of the cp.async copies, which
// took 43% of all shared-memory wavefronts (experiments: f23_xchunks).
constexpr int kXChunks = {{X_CHUNKS}};
constexpr int kSplits = {{C_SPLITS}};       // blocks of a cluster (along z) sharing the C loop
constexpr bool kPersist = {{PERSIST}};      // blocks loop over the tiles (grid.x resident blocks)
// Persistent blocks each take a contiguous 1 / gridDim.x of all tiles' chunks (stream-K), so a
// tile may be split between blocks: the last wave's imbalance goes (N=128 14²: 420 tiles on 132
// SMs run 4 rounds for 3.18 of work).
constexpr bool kStreamK = {{STREAM_K}};
// A third warpgroup issues x's copies (cp.async onto mbarriers), so the MMA warpgroups' chunk
// loop has no copy and no warpgroup barrier in it; setmaxnreg moves its registers to them
// (experiments: f23_producer, f23_producer_racecheck).
constexpr bool kProducer = {{PRODUCER}};
constexpr int kMaxBlocks = {{SK_MAX_BLOCKS}};  // stream-K: most blocks a launch (partials' slots)
constexpr bool kBias = {{BIAS}}, kResidual = {{RESIDUAL}}, kRelu = {{RELU}};
using XT = {{X_T}};  // x and w: half, or int8_t
using YT = {{Y_T}};  // y: half; int8 in: float, half or int8_t
using ET = {{E_T}};  // bias and residual: y's type, float with int8 in (integer units)
// int8 in: 1-D F(2, 3)'s V = B^T d of int8 d is an integer, |V| <= 256, and U = G g a multiple
// of 1/2, |U| <= 192: both exact in fp16, so the fp16 MMA's products are exact and its fp32
// accumulators round only past 2^24 (docs/int8.md). x stays int8 in shared memory.
constexpr bool kInt8In = std::is_same_v<XT, int8_t>;
constexpr bool kScaledOut = {{SCALED_OUT}};  // y = conv / *y_scale (int8 in, fp16 or int8 y)

// Strips: an image wider than a patch row takes (its rows of tiles cut into kStrips strips of kT
// tiles each, with their 2 halo pixels); the strips stack as images of their own (virtual images
// v = n kStrips + s), so that every other rule of the row layout stays as it is.
constexpr int kStripTiles = {{STRIP_TILES}};  // tiles per strip; 0: whole rows
constexpr int kT = kStripTiles > 0 ? kStripTiles : (kW + 1) / 2;  // tiles per patch row
constexpr int kStrips = ((kW + 1) / 2 + kT - 1) / kT;
constexpr int kImages = kN * kStrips;
constexpr bool kCompactRows = {{COMPACT_ROWS}};  // GEMM rows without the garbage rows
constexpr bool kRowPairs = {{ROW_PAIRS}};        // a lane's two A rows one row of tiles apart
constexpr int kHp = kH + 1;                 // padded rows per image: the zero row, then H
constexpr int kImageRows = kCompactRows ? kH : kHp;  // rows of tiles per image
constexpr int kTileRows = kImages * kImageRows;
// GEMM rows; with kRowPairs the last pair's second row may lie past the images
constexpr int kRows = (kRowPairs ? (kTileRows + 1) / 2 * 2 : kTileRows) * kT;
constexpr int kBlockK = 64;                 // output channels per block (n64)
constexpr int kChunkC = 16;                 // input channels per stage (one k16 step)
constexpr int kChunks = kC / kChunkC;
constexpr int kStageC = kXChunks * kChunkC;  // input channels per stage
constexpr int kRankChunks = kChunks / kSplits;  // a block's chunks
constexpr int kWarpgroups = 2;
constexpr int kGroupRows = 64;              // a warpgroup's rows (m64)
constexpr int kGroupThreads = 128;
constexpr int kBlockRows = kWarpgroups * kGroupRows;
// The rows one staged patch serves: with kProducer the warpgroups run in step on x_full, so they
// share one patch of the block's rows (the halo rows between them staged once; experiments:
// f23_shared_patch), else a warpgroup's own.
constexpr int kPatchGemmRows = kProducer ? kBlockRows : kGroupRows;
constexpr int kRings = kProducer ? 1 : kWarpgroups;  // input rings
constexpr int kThreads = (kWarpgroups + kProducer) * kGroupThreads;
// The CTA keeps the registers it launched with (384 x 168 = 64512): the two budgets share them.
// The MMA warpgroups take 247 unbounded; at 216 they spill in the chunk loop, at 224 a word at
// most at a tile's end, and the producer up to three words of its copy plan (made once a
// tile) with compact rows.
constexpr int kConsumerRegisters = 224, kProducerRegisters = 56;
static_assert(kWarpgroups * kConsumerRegisters + kProducerRegisters <= (kWarpgroups + 1) * 168,
              "f23: setmaxnreg budgets exceed the launch's registers");
constexpr int kKBlocks = kK / kBlockK;
constexpr int kTiles = kKBlocks * ((kRows + kBlockRows - 1) / kBlockRows);
// The most pairs of rows of tiles a patch's kPatchGemmRows / 2 pairs (from a multiple of that)
// reach, less 1.
constexpr int pair_span() {
  constexpr int pairs = kPatchGemmRows / 2;
  int span = 0;
  for (int first = 0; first < pairs * kT; first += pairs)  // each place of a first pair in its row
    span = span > (first % kT + pairs - 1) / kT ? span : (first % kT + pairs - 1) / kT;
  return span;
}
// A patch's GEMM rows span at most kSpan + 1 rows of tiles: padded rows, or with kCompactRows
// output rows and the zero rows between them; and 2 more below for filter rows 1, 2.
constexpr int kSpan = kRowPairs ? 2 * pair_span() + 1 : (kPatchGemmRows - 1 + kT - 1) / kT;
constexpr int kPatchRows = kCompactRows ? kSpan + (kH - 1 + kSpan) / kH + 3
                           : kRowPairs  ? kSpan + 3
                                        : (kPatchGemmRows + 2 * kT - 1) / kT + 2;
constexpr int kPatchCols = 2 * kT + 2;
// Bytes per staged pixel: fp16 24 halves, so that a warp's 8-byte loads of tiles 2 pixels apart
// fall in distinct banks; int8 16 bytes (2 wavefronts a warp's 4-byte loads, as fp16's 8-byte).
constexpr int kPixBytes = kInt8In ? kStageC : 2 * (kStageC + 8);
constexpr int kPixelPieces = kStageC * (int)sizeof(XT) / 16;  // 16-byte copies per pixel
constexpr int kPieceShift = kPixelPieces / 2;                  // its log2 (1, 2 or 4 pieces)
// Bytes per patch row: the pixels, then a pad that keeps the loads' banks in step where a warp's
// tiles cross into the next row (F23Config.row_pad_bytes, which says how).
constexpr int kRowPadBytes = {{ROW_PAD_BYTES}};
constexpr int kRowBytes = kPatchCols * kPixBytes + kRowPadBytes;
// The same in elements of x, as the copies and loads count them.
constexpr int kPix = kPixBytes / (int)sizeof(XT), kRowPad = kRowPadBytes / (int)sizeof(XT);
constexpr int kRowElems = kRowBytes / (int)sizeof(XT);
constexpr int kUStages = 4, kUAhead = 2;    // U's ring: 2 chunks in flight, 2 being read
// All input stages but the one being read in flight: a stage is copied at its first chunk, into
// the stage its last chunk read kXChunks iterations before.
constexpr int kXAhead = kXChunks * (kXStages - 1);
constexpr int kXBytes = (kPatchRows * kRowBytes + 127) / 128 * 128;
constexpr int kUBytes = 12 * kChunkC * kBlockK * 2;
constexpr int kRingBytes = kXStages * kXBytes;  // an input ring
// U's ring, then the input rings (one with kProducer), then the mbarriers full[s] and empty[s] of
// U's stages (with kProducer x_full[s] and x_empty[s] after them).
constexpr int kSmemBytes = kUStages * kUBytes + kRings * kRingBytes + 2 * kUStages * 8 +
                           (kProducer ? 2 * kXStages * 8 : 0);
static_assert(!kProducer || (!kStreamK && kSplits == 1), "f23: the producer takes neither "
              "stream-K nor a C split");

static_assert(kC % kChunkC == 0 && kK % kBlockK == 0, "f23: C % 16 == 0 and K % 64 == 0");
static_assert(kPixelPieces == 1 << kPieceShift, "f23: a pixel is 1, 2 or 4 16-byte copies");
// A stage's chunks belong to one tile and rank: whole stages a tile, and no stream-K shares.
static_assert(kXChunks == 1 || (kChunks / kSplits % kXChunks == 0 && !kStreamK),
              "f23: two chunks a stage need an even number of chunks a block, no stream-K");
static_assert(kChunks % kSplits == 0, "f23: the C splits must take whole 16-channel chunks");
static_assert(!(kRowPairs && kCompactRows) || kH % 2 == 0,
              "f23: row pairs of compact rows pair the rows of an image: H even");
static_assert(!(kPersist && kSplits > 1), "f23: persistent blocks do not split C");
static_assert(!kStreamK || kPersist, "f23: stream-K is a schedule of persistent blocks");
// F23Config.smem_bytes computes the launch's dynamic shared memory on its own; they must agree.
static_assert(kSmemBytes == {{SMEM_BYTES}}, "f23: F23Config.smem_bytes is out of step");

// The warpgroup's own barrier (ids 1, 2; 0 is __syncthreads).
__device__ __forceinline__ void group_sync(int warpgroup) {
  named_barrier(1 + warpgroup, kGroupThreads);
}

// By thread 0: iteration it's U chunk (24 KB at src) into the stage at u_dst, completing on
// `full`; first waits until both warpgroups are done with the stage's last chunk.
__device__ __forceinline__ void stage_u(uint32_t u_dst, uint32_t full, uint32_t empty,
                                        const unsigned char* src, int it) {
  if (it >= kUStages) mbarrier_wait(empty, ((unsigned)it / kUStages - 1) & 1);
  mbarrier_expect_tx(full, kUBytes);
  tma_copy(u_dst, src, kUBytes, full);
}

// d = a b (accumulate false: a tile's first product) or d += a b; a from registers.
__device__ __forceinline__ void wgmma(float (&d)[32], const uint32_t (&a)[4], uint64_t b,
                                      bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,"
      "%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"((int)accumulate));
}

// The MMA's k index of channel c of a chunk: lane q's A registers hold k = 2q, 2q + 1, 2q + 8,
// 2q + 9, which are then the chunk's channels 4q .. 4q + 3 (one 8-byte load a pixel).
__host__ __device__ constexpr int k_slot(int c) { return 8 * (c % 4 / 2) + 2 * (c / 4) + c % 2; }

// A lane's 16 output channels, as y is stored: kRuns runs of 16 bytes, kRun channels each; run r
// of lane q is channels run_channel(r, q) .. + kRun - 1 of its block, so that one store of a
// run by a warp writes 4 lanes' 64 contiguous bytes per pixel, whole 32-byte sectors
// (experiments: f23_sectors; a lane's 16 adjacent channels took an fp16 or f32 y's sectors in
// halves).
constexpr int kRun = 16 / (int)sizeof(YT), kRuns = 16 / kRun;
__host__ __device__ constexpr int run_channel(int r, int q) { return 4 * kRun * r + kRun * q; }

// Row of U (within its 64-channel block) that holds output channel kk: accumulator column
// 8 nb + 2 q + e of lane q is its value i = 2 nb + e, channel i % kRun of its run i / kRun.
__host__ __device__ constexpr int u_row(int kk) {
  const int q = kk % (4 * kRun) / kRun, i = kk / (4 * kRun) * kRun + kk % kRun;
  return 8 * (i / 2) + 2 * q + i % 2;
}
constexpr bool u_rows_are_a_permutation() {
  bool seen[kBlockK] = {};
  for (int kk = 0; kk < kBlockK; ++kk) {
    const int row = u_row(kk);
    if (row < 0 || row >= kBlockK || seen[row]) return false;
    seen[row] = true;
  }
  return true;
}
static_assert(u_rows_are_a_permutation(), "f23: KTrans's rows of U must be a permutation");

// A thread's copies and transform tasks are the same in every chunk but for the channel offset,
// so their addresses are computed once (recomputed per chunk they cost ~300 instructions a warp
// and chunk; experiments: f23_wgmma, run 3).
constexpr int kXPieces = kPatchRows * kPatchCols * kPixelPieces;  // 16-byte pieces of the patch
constexpr int kXSteps = (kXPieces + kGroupThreads - 1) / kGroupThreads;

// A persistent block's copies run kXAhead chunks ahead of its transform, into the next tile, so
// each has its own plan, made at the first chunk of each of the warpgroup's tiles.
struct CopyPlan {
  int src[kXSteps];  // element offset of the piece in x at chunk 0; -1: zero (outside)
};
struct TransformPlan {
  int src[2];  // patch offset (elements) of A row g + 8 hh's first pixel and channels, filter row 0
};

// Padded row of row of tiles o: the padded row of its filter row 0's input row, h - 1.
__device__ __forceinline__ int padded_row(int o) {
  return kCompactRows ? o / kH * kHp + o % kH : o;
}

// The row of tiles (o) and tile (t) of GEMM row 16 w + g + 8 hh of the warpgroup at row g0.
struct TileAt {
  int o, t;
};
__device__ __forceinline__ TileAt tile_at(int g0, int warp, int g, int hh) {
  if constexpr (kRowPairs) {
    const int pair = g0 / 2 + 8 * warp + g;
    return {2 * (pair / kT) + hh, pair % kT};
  }
  const int row = g0 + 16 * warp + g + 8 * hh;
  return {row / kT, row % kT};
}

// The first row of tiles of the GEMM rows from g0: a patch of them starts at its padded row.
__device__ __forceinline__ int first_row(int g0) { return tile_at(g0, 0, 0, 0).o; }
// The first GEMM row of the patch that serves the warpgroup at row g0.
__device__ __forceinline__ int patch_start(int g0) { return g0 / kPatchGemmRows * kPatchGemmRows; }

// For thread tid of the copying warpgroup, the patch whose GEMM rows start at g0.
__device__ __forceinline__ CopyPlan plan_copies(int tid, int g0) {
  CopyPlan plan;
#pragma unroll
  for (int s = 0; s < kXSteps; ++s) {
    const int i = tid + s * kGroupThreads;
    const int pixel = i >> kPieceShift, pr = pixel / kPatchCols, px = pixel % kPatchCols;
    const int p = padded_row(first_row(g0)) + pr, v = p / kHp, h = p % kHp - 1;
    const int n = v / kStrips, w = v % kStrips * 2 * kT + px - 1;
    const bool inside = i < kXPieces && v < kImages && h >= 0 && (unsigned)w < (unsigned)kW;
    plan.src[s] = inside ? ((n * kH + h) * kW + w) * kC +
                               (i & (kPixelPieces - 1)) * (16 / (int)sizeof(XT))
                         : -1;
  }
  return plan;
}

// Lane (g, q) of warp w holds A rows 16 w + g (+ 8) and, by k_slot's order, channels 4 q .. 4 q + 3
// of the chunk: for filter row r, V of the same tiles r patch rows lower.
__device__ __forceinline__ TransformPlan plan_transform(int tid, int g0) {
  TransformPlan plan;
  const int warp = tid >> 5, g = (tid & 31) >> 2, q = tid & 3;
#pragma unroll
  for (int hh = 0; hh < 2; ++hh) {
    const TileAt at = tile_at(g0, warp, g, hh);
    const int pr = padded_row(at.o) - padded_row(first_row(patch_start(g0)));
    plan.src[hh] = pr * kRowElems + 2 * at.t * kPix + 4 * q;
  }
  return plan;
}

// Chunk `chunk` of an input patch into `stage`, one commit group.
__device__ __forceinline__ void stage_x(uint32_t stage, const XT* __restrict__ x,
                                        const CopyPlan& plan, int tid, int chunk) {
#pragma unroll
  for (int s = 0; s < kXSteps; ++s) {
    const int i = tid + s * kGroupThreads;
    if (kXPieces % kGroupThreads != 0 && s == kXSteps - 1 && i >= kXPieces) break;
    const bool inside = plan.src[s] >= 0;
    const int pixel = i >> kPieceShift, piece = i & (kPixelPieces - 1);
    const int dst = pixel * kPix + pixel / kPatchCols * kRowPad + piece * (16 / (int)sizeof(XT));
    cp_async_16(stage + (uint32_t)sizeof(XT) * (uint32_t)dst,
                inside ? x + plan.src[s] + chunk * kChunkC : x, inside ? 16 : 0);
  }
  cp_async_commit();
}

// The V rows of a chunk: filter row r takes V rows v_row(0, r) (A row g) and v_row(1, r) (g + 8);
// with kRowPairs V rows 0-3 are the 4 patch rows from row g's, else 0-2 are row g's 3 and 3-5 row
// g + 8's.
constexpr int kVRows = kRowPairs ? 4 : 6;
__host__ __device__ constexpr int v_row(int hh, int r) { return kRowPairs ? r + hh : 3 * hh + r; }
// The filter row whose transform first takes V row v (its pixels are loaded one row before).
__host__ __device__ constexpr int first_use(int v) {
  return kRowPairs ? (v > 0 ? v - 1 : 0) : v % 3;
}

// int8 in: the loaded values carry kInputBias (load_channels).
constexpr float kInputBias = kInt8In ? 1152.f : 0.f;
{{LOAD_CHANNELS}}

// V row v's patch values: 4 pixels of 4 channels each.
using Pixels = uint2[4];
__device__ __forceinline__ void load_v_row(const XT* xs, const TransformPlan& plan, int v,
                                           Pixels& d) {
  const int hh = kRowPairs ? 0 : v / 3, r = kRowPairs ? v : v % 3;
#pragma unroll
  for (int e = 0; e < 4; ++e)
    d[e] = load_channels(xs + plan.src[hh] + r * kRowElems + e * kPix);
}

// The V rows filter row r first takes.
__device__ __forceinline__ void load_v_rows(const XT* xs, const TransformPlan& plan, int r,
                                            Pixels (&d)[kVRows]) {
#pragma unroll
  for (int v = 0; v < kVRows; ++v)
    if (first_use(v) == r) load_v_row(xs, plan, v, d[v]);
}

// wgmma's A fragments of V_j = B^T d for each tap j, filter row r, from its V rows' pixels:
// a[j][r] = {rows g, g + 8 of channels 4q, 4q + 1; the same of 4q + 2, 4q + 3}. int8 in: V_1 =
// d1 + d2 takes 2 kInputBias off d1 first, so that each partial sum is an integer below 2048
// (d1 - 2304 in [-1280, -1025], then + d2 in [-256, 254]), exact in fp16.
__device__ __forceinline__ void transform(const Pixels (&d)[kVRows], int r,
                                          uint32_t (&a)[4][3][4]) {
#pragma unroll
  for (int hh = 0; hh < 2; ++hh)
#pragma unroll
    for (int part = 0; part < 2; ++part) {  // channels 4q, 4q + 1, then 4q + 2, 4q + 3
      const auto at = [&](int e) {
        const uint32_t word = part ? d[v_row(hh, r)][e].y : d[v_row(hh, r)][e].x;
        return *reinterpret_cast<const half2*>(&word);
      };
      const half2 d1 = kInt8In ? __hsub2(at(1), __float2half2_rn(2 * kInputBias)) : at(1);
      const half2 v[4] = {__hsub2(at(0), at(2)), __hadd2(d1, at(2)), __hsub2(at(2), at(1)),
                          __hsub2(at(1), at(3))};
#pragma unroll
      for (int j = 0; j < 4; ++j)
        a[j][r][2 * part + hh] = *reinterpret_cast<const uint32_t*>(&v[j]);
    }
}

// A thread's output slots (2 rows x 2 pixels of its tile rows), 16 channels each. With C split
// over a cluster, slot s is finished by rank s % kSplits.
constexpr int kSlots = 4;
static_assert(kSlots % kSplits == 0, "f23: C splits must divide the 4 output slots");

// Adds the other ranks' partial sums to the slots this rank finishes. Each block leaves the
// slots others finish in its own shared memory (U's ring, idle after the loop), slot-major so
// that a warp's 16-byte stores and loads are conflict-free; the owners read them through
// distributed shared memory between two cluster barriers (the second keeps each block's shared
// memory alive until every owner has read it).
template <int rank>
__device__ __forceinline__ void reduce_splits(float (&part)[kSlots][16], uint32_t base) {
  const auto at = [&](int slot, int quad) {
    return base + 16u * ((slot * 4 + quad) * kThreads + threadIdx.x);
  };
  static_assert(kSlots * 4 * kThreads * 16 <= kUStages * kUBytes, "f23: partials exceed U's ring");
  __syncthreads();  // both warpgroups are done with U's ring
#pragma unroll
  for (int slot = 0; slot < kSlots; ++slot) {
    if (slot % kSplits == rank) continue;
#pragma unroll
    for (int quad = 0; quad < 4; ++quad)
      asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(at(slot, quad)),
                   "f"(part[slot][4 * quad]), "f"(part[slot][4 * quad + 1]),
                   "f"(part[slot][4 * quad + 2]), "f"(part[slot][4 * quad + 3]) : "memory");
  }
  cluster_sync();
#pragma unroll
  for (int slot = 0; slot < kSlots; ++slot) {
    if (slot % kSplits != rank) continue;
#pragma unroll
    for (int peer = 1; peer < kSplits; ++peer) {
#pragma unroll
      for (int quad = 0; quad < 4; ++quad) {
        const uint32_t remote = cluster_address(at(slot, quad), (rank + peer) % kSplits);
        float4 v;
        asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(remote) : "memory");
        part[slot][4 * quad] += v.x, part[slot][4 * quad + 1] += v.y;
        part[slot][4 * quad + 2] += v.z, part[slot][4 * quad + 3] += v.w;
      }
    }
  }
  cluster_sync();
}

// Stream-K's split tiles. A tile's pieces after the one with its first chunk are the first
// pieces of the next blocks' shares (so one slot a block suffices), done as they start; the block
// with the first chunk does it last and finishes the tile, adding the others' partial sums (after
// OTrans: 64 floats a thread) from global memory. Each warpgroup has its own half slot and flag,
// so the two stay out of step. A block waits only for later blocks, which write before they wait
// for anything, and all are resident: no deadlock. The flags are 0 between launches
// (wino_f23_clear_flags in the weight transform, then each finisher clears what it waited for).
enum class Piece { kWhole, kStore, kGather };

// Where block b's share of all tiles' chunks (iterations) starts.
__device__ __forceinline__ int share_begin(int block) {
  return (int)((long long)block * kTiles * kRankChunks / gridDim.x);
}

// The warpgroup's slot in partials: [block][warpgroup][slot * 4 + quad][thread] float4s.
__device__ __forceinline__ int partial_slot(int block, int warpgroup) {
  return (block * kWarpgroups + warpgroup) * kSlots * 4 * kGroupThreads;
}
// wino_tvm/kernels/f23 sizes the partials' workspace on its own (SK_THREAD_FLOATS a thread).
static_assert(kSlots * 16 == {{SK_THREAD_FLOATS}}, "f23: SK_THREAD_FLOATS is out of step");

__device__ __forceinline__ void store_partials(const float (&part)[kSlots][16],
                                               float* __restrict__ partials,
                                               unsigned* __restrict__ flags) {
  const int warpgroup = threadIdx.x / kGroupThreads, tid = threadIdx.x % kGroupThreads;
  float4* dst = reinterpret_cast<float4*>(partials) + partial_slot(blockIdx.x, warpgroup) + tid;
#pragma unroll
  for (int slot = 0; slot < kSlots; ++slot)
#pragma unroll
    for (int quad = 0; quad < 4; ++quad)
      __stcg(dst + (slot * 4 + quad) * kGroupThreads,
             make_float4(part[slot][4 * quad], part[slot][4 * quad + 1],
                         part[slot][4 * quad + 2], part[slot][4 * quad + 3]));
  group_sync(warpgroup);  // the warpgroup's stores, then one release (CUTLASS's barrier pattern)
  if (tid == 0)
    asm volatile("st.release.gpu.global.u32 [%0], 1;" ::"l"(flags + blockIdx.x * kWarpgroups +
                                                            warpgroup) : "memory");
}

// Adds the partial sums of the tile's later pieces (the blocks after this one whose shares
// start before tile_end, the iteration after the tile's last chunk) to the accumulators, before
// OTrans: output pixel 0 of a tile takes M_0 once and pixel 1 -M_3 once, so adding a partial
// pixel 0 to M_0 and subtracting pixel 1 from M_3 sums them (in the partials' 64 registers
// instead, the reduction spilled beside the 128 accumulators).
__device__ __forceinline__ void gather_partials(float (&acc)[4][32], int tile_end,
                                                const float* __restrict__ partials,
                                                unsigned* __restrict__ flags) {
  const int warpgroup = threadIdx.x / kGroupThreads, tid = threadIdx.x % kGroupThreads;
  int last = blockIdx.x + 1;
  while (last + 1 < (int)gridDim.x && share_begin(last + 1) < tile_end) ++last;
  if (tid == 0)
    for (int block = blockIdx.x + 1; block <= last; ++block) {
      unsigned* flag = flags + block * kWarpgroups + warpgroup;
      for (uint32_t ready = 0; ready != 1;)
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(ready) : "l"(flag) : "memory");
      *flag = 0;  // for the next launch
    }
  group_sync(warpgroup);
  for (int block = blockIdx.x + 1; block <= last; ++block) {
    const float4* src =
        reinterpret_cast<const float4*>(partials) + partial_slot(block, warpgroup) + tid;
#pragma unroll
    for (int slot = 0; slot < kSlots; ++slot)
#pragma unroll
      for (int quad = 0; quad < 4; ++quad) {
        const float4 v = __ldcg(src + (slot * 4 + quad) * kGroupThreads);
        const float add[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int e = 0; e < 4; ++e) {  // part[slot][n]: n = 2 nb + (i % 2), rows hh = slot / 2
          const int n = 4 * quad + e, i = n / 2 * 4 + slot / 2 * 2 + n % 2;
          if (slot % 2 == 0) acc[0][i] += add[e];
          else acc[3][i] -= add[e];
        }
      }
  }
}

// A run of the epilogue's bias (through the read-only path) or residual at `at`, as it lies in
// memory (fp16: kept packed until used; float with int8 in), in 16-byte loads; value(words, j)
// is its channel j as a float.
constexpr int kRunLoads = kRun * (int)sizeof(ET) / 16;
template <bool kReadOnly>
__device__ __forceinline__ void load_run(const ET* at, uint4 (&words)[kRunLoads]) {
  const uint4* src = reinterpret_cast<const uint4*>(at);
#pragma unroll
  for (int i = 0; i < kRunLoads; ++i) words[i] = kReadOnly ? __ldg(src + i) : src[i];
}
__device__ __forceinline__ float value(const uint4 (&words)[kRunLoads], int j) {
  constexpr int kPerLoad = kRun / kRunLoads;  // channels per 16-byte load
  const uint4& v = words[j / kPerLoad];
  const int e = j % kPerLoad * 4 / kPerLoad;  // its word
  const uint32_t word = e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
  if constexpr (std::is_same_v<ET, half>) {
    const float2 pair = __half22float2(*reinterpret_cast<const half2*>(&word));
    return j % 2 ? pair.y : pair.x;
  } else {
    return __uint_as_float(word);
  }
}

// A run of y at `at` from floats, one 16-byte store: fp16 rounded to nearest, float as is, int8
// saturated to [-127, 127] and rounded to nearest even by the float32 magic number 1.5 * 2^23
// (its sum's low byte is then rint(v)), as the int8 IMMA kernels write.
__device__ __forceinline__ void store_run(YT* at, const float (&v)[kRun]) {
  uint32_t out[4];
#pragma unroll
  for (int i = 0; i < kRun; i += 2) {
    if constexpr (std::is_same_v<YT, half>) {
      const half2 pair = __floats2half2_rn(v[i], v[i + 1]);
      out[i / 2] = *reinterpret_cast<const uint32_t*>(&pair);
    } else if constexpr (std::is_same_v<YT, float>) {
      out[i] = __float_as_uint(v[i]), out[i + 1] = __float_as_uint(v[i + 1]);
    } else {
      constexpr float kMagic = 12582912.f;
      const float lo = fminf(fmaxf(v[i], -127.f), 127.f) + kMagic;
      const float hi = fminf(fmaxf(v[i + 1], -127.f), 127.f) + kMagic;
      const uint32_t pair = __byte_perm(__float_as_uint(lo), __float_as_uint(hi), 0x0040);
      out[i / 4] = i % 4 ? __byte_perm(out[i / 4], pair, 0x5410) : pair;
    }
  }
  *reinterpret_cast<uint4*>(at) = make_uint4(out[0], out[1], out[2], out[3]);
}

// y's offset of output pixel px of the tile at GEMM row 16 w + g + 8 hh of the warpgroup at
// row g0, at channel k_block; -1 past the tiles, on the garbage row (padded rows) or past W.
// One test a pixel: tested a tile row at a time, the compiler split the first 16-byte run of
// each pixel on strips into four 4-byte stores (experiments: f23_store_width).
__device__ __forceinline__ long long pixel_offset(int g0, int warp, int g, int hh, int px,
                                                  int k_block) {
  const TileAt tile = tile_at(g0, warp, g, hh);
  const int v = tile.o / kImageRows, n = v / kStrips, h = tile.o % kImageRows;
  const int w = v % kStrips * 2 * kT + 2 * tile.t + px;
  if (tile.o >= kTileRows || h >= kH || w >= kW) return -1;
  return ((long long)(n * kH + h) * kW + w) * kK + k_block;
}

// A tile's outputs after its chunks: OTrans, the C split's or stream-K's reduction, the
// epilogue. The rank is a template argument so that the slots other ranks finish die at their
// stores.
template <int rank>
__device__ __forceinline__ void finish(const float (&acc)[4][32], int g0, int k_block,
                                       uint32_t base, Piece piece, float* __restrict__ partials,
                                       unsigned* __restrict__ flags, const ET* __restrict__ bias,
                                       const ET* __restrict__ residual, float y_multiplier,
                                       YT* __restrict__ y) {
  // OTrans y = A^T M (A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]) in fp32. Lane (g, q) of warp w
  // holds rows 16 (w % 4) + g + 8 hh of its warpgroup, and 16 channels of them (KTrans's
  // permutation): part[2 hh + px][i] is output pixel 2 t + px of row hh's tile, channel
  // k_block + run_channel(i / kRun, q) + i % kRun.
  float part[kSlots][16];
#pragma unroll
  for (int hh = 0; hh < 2; ++hh)
#pragma unroll
    for (int nb = 0; nb < 8; ++nb)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int i = nb * 4 + hh * 2 + e;
        part[2 * hh][2 * nb + e] = acc[0][i] + acc[1][i] + acc[2][i];
        part[2 * hh + 1][2 * nb + e] = acc[1][i] - acc[2][i] - acc[3][i];
      }
  if constexpr (kSplits > 1) reduce_splits<rank>(part, base);
  if constexpr (kStreamK)
    if (piece == Piece::kStore) return store_partials(part, partials, flags);

  // The epilogue relu(conv + bias + residual) in fp32 of the slots this block owns; a scaled y
  // times y_multiplier last.
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  uint4 bias_words[kRuns][kRunLoads];
  if constexpr (kBias)
#pragma unroll
    for (int r = 0; r < kRuns; ++r)
      load_run<true>(bias + k_block + run_channel(r, q), bias_words[r]);
#pragma unroll
  for (int hh = 0; hh < 2; ++hh) {
#pragma unroll
    for (int px = 0; px < 2; ++px) {
      const int slot = 2 * hh + px;
      if (slot % kSplits != rank) continue;
      const long long pixel = pixel_offset(g0, warp, g, hh, px, k_block);
      if (pixel < 0) continue;
#pragma unroll
      for (int r = 0; r < kRuns; ++r) {
        const long long at = pixel + run_channel(r, q);
        uint4 res_words[kRunLoads];
        if constexpr (kResidual) load_run<false>(residual + at, res_words);
        float v[kRun];
#pragma unroll
        for (int j = 0; j < kRun; ++j) {
          v[j] = part[slot][r * kRun + j];
          if constexpr (kBias) v[j] += value(bias_words[r], j);
          if constexpr (kResidual) v[j] += value(res_words, j);
          if constexpr (kRelu) v[j] = fmaxf(v[j], 0.f);
          if constexpr (kScaledOut) v[j] *= y_multiplier;
        }
        store_run(y + at, v);
      }
    }
  }
}

__device__ __forceinline__ void forward(const XT* __restrict__ x, const half* __restrict__ U,
                                        const ET* __restrict__ bias,
                                        const ET* __restrict__ residual,
                                        float* __restrict__ partials, unsigned* __restrict__ flags,
                                        const float* __restrict__ y_scale, YT* __restrict__ y) {
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t base = smem_address(smem);
  int warpgroup = threadIdx.x / kGroupThreads, tid = threadIdx.x % kGroupThreads;
  // Opaque to ptxas, so that it keeps them in registers instead of reading threadIdx.x again
  // (S2R) in the chunk loop, in front of the warpgroup's barrier (experiments: f23_rows, run 4).
  asm volatile("" : "+r"(warpgroup), "+r"(tid));
  const uint32_t x_base = base + kUStages * kUBytes + (kProducer ? 0 : warpgroup) * kRingBytes;
  const uint32_t bars = base + kUStages * kUBytes + kRings * kRingBytes;
  const auto full = [&](int stage) { return bars + 8u * stage; };
  const auto empty = [&](int stage) { return bars + 8u * (kUStages + stage); };
  // With kProducer: a warpgroup input stage's pixels have landed (x_full, the producer's 128
  // threads' copies), and both warpgroups' 8 warps are done with them (x_empty).
  const auto x_full = [&](int stage) { return bars + 8u * (2 * kUStages + stage); };
  const auto x_empty = [&](int stage) { return bars + 8u * (2 * kUStages + kXStages + stage); };
  const int lane_id = threadIdx.x & 31;
  // The block's tiles (128 rows x 64 channels, channels fastest): its own, with kPersist every
  // gridDim.x-th from blockIdx.x, with kStreamK the chunks from share_begin(blockIdx.x) to the
  // next block's (iterations of all tiles' chunks in order). Its iterations run through their
  // chunks one after the other, so the rings and copies run on into the next tile.
  if (kStreamK && gridDim.x > kMaxBlocks) __trap();  // the launch keeps to the partials' slots
  const int first = kPersist ? blockIdx.x : blockIdx.y * kKBlocks + blockIdx.x;
  const int stride = kPersist ? gridDim.x : 1;
  const int begin = kStreamK ? share_begin(blockIdx.x) : 0;
  const int iterations = kStreamK ? share_begin(blockIdx.x + 1) - begin
                         : (kPersist ? (kTiles - first + stride - 1) / stride : 1) * kRankChunks;
  const auto tile_of = [&](int it) {
    return kStreamK ? (int)(unsigned(begin + it) / kRankChunks)
                    : first + (int)((unsigned)it / kRankChunks) * stride;
  };
  const auto chunk_of = [&](int it) { return (int)(unsigned(begin + it) % kRankChunks); };
  const auto rows_of = [&](int tile) {
    return tile / kKBlocks * kBlockRows + warpgroup * kGroupRows;
  };
  // The block's share of each tile's C loop: chunks rank * kRankChunks on, of x and of U.
  const int rank = kSplits > 1 ? cluster_rank() : 0;
  const XT* x_rank = x + rank * kRankChunks * kChunkC;
  const auto u_src = [&](int it) {
    const int chunk = tile_of(it) % kKBlocks * kChunks + rank * kRankChunks + chunk_of(it);
    return reinterpret_cast<const unsigned char*>(U) + (long long)chunk * kUBytes;
  };
  // Chunk it - 2's U stage released by `releaser` (a warpgroup's thread 0 after its barrier, or
  // with kProducer each warp's lane 0 after __syncwarp), then chunk it + kUAhead's copy into it
  // by thread 0 (stage_u waits for the stage's other releases).
  const auto next_u = [&](int it, bool releaser) {
    if (it + kUAhead >= iterations) return;
    const int next = unsigned(it + kUAhead) % kUStages;  // held it - 2
    if (releaser && it >= kUStages - kUAhead) mbarrier_arrive(empty(next));
    if (threadIdx.x == 0)
      stage_u(base + next * kUBytes, full(next), empty(next), u_src(it + kUAhead), it + kUAhead);
  };
  CopyPlan copies;
  // Iteration it's patch into its stage where it starts one (else nothing), one commit group.
  const auto copy_x = [&](int it) {
    if (it == 0 || chunk_of(it) == 0) copies = plan_copies(tid, rows_of(tile_of(it)));
    if ((unsigned)it % kXChunks == 0)
      stage_x(x_base + (unsigned)it / kXChunks % kXStages * kXBytes, x_rank, copies, tid,
              chunk_of(it));
    else
      cp_async_commit();
  };
  // Descriptor of U's slice (j, r) = (0, 0) at stage 0; the slice and stage add constants.
  const uint64_t b_desc0 = descriptor(base, 16u * kBlockK);

  float acc[4][32];  // not zeroed: a tile's first wgmma has scale-d 0 (experiments: sk_fixup, d-)

  if (threadIdx.x == 0) {
    for (int s = 0; s < kUStages; ++s) {
      mbarrier_init(full(s), 1);
      mbarrier_init(empty(s), kProducer ? 4 * kWarpgroups : kWarpgroups);
    }
    if constexpr (kProducer)
      for (int s = 0; s < kXStages; ++s) {
        mbarrier_init(x_full(s), kGroupThreads);
        mbarrier_init(x_empty(s), kWarpgroups * kGroupThreads);
      }
    mbarrier_init_fence();
  }
  __syncthreads();  // the barriers are initialised before any copy or wait
  if constexpr (kProducer) {
    if (warpgroup == kWarpgroups) {
      setmaxnreg_dec<kProducerRegisters>();
      CopyPlan plan;  // the block's patch
      for (int it = 0; it < iterations; ++it) {
        if ((unsigned)it % kXChunks == 0) {
          const int group = (unsigned)it / kXChunks, s = (unsigned)group % kXStages;
          if (chunk_of(it) == 0) plan = plan_copies(tid, tile_of(it) / kKBlocks * kBlockRows);
          if (group >= kXStages) mbarrier_wait(x_empty(s), ((unsigned)group / kXStages - 1) & 1);
          stage_x(x_base + s * kXBytes, x_rank, plan, tid, chunk_of(it));
          cp_async_arrive(x_full(s));
        }
      }
      return;
    }
    setmaxnreg_inc<kConsumerRegisters>();
  }
  // U's first chunks by thread 0 (with kProducer too: U by the producer, one thread waiting on
  // both warpgroups, held up its x copies: experiments: f23_producer).
  if (threadIdx.x == 0)
    for (int it = 0; it < kUAhead && it < iterations; ++it)
      stage_u(base + it * kUBytes, full(it), empty(it), u_src(it), it);
  if constexpr (!kProducer) {
    for (int it = 0; it < kXAhead; ++it) {
      if (it < iterations) copy_x(it);
      else cp_async_commit();
    }
  }

  // finish for this block's rank (a template argument there).
  const float y_multiplier = kScaledOut ? 1.f / __ldg(y_scale) : 1.f;
  const auto finish_tile = [&](int tile, Piece piece) {
    const int g0 = rows_of(tile), k_block = tile % kKBlocks * kBlockK;
    const auto with_rank = [&](auto rank_tag) {
      finish<decltype(rank_tag)::value>(acc, g0, k_block, base, piece, partials, flags, bias,
                                        residual, y_multiplier, y);
    };
    if (rank == 0) with_rank(std::integral_constant<int, 0>());
    if constexpr (kSplits > 1)
      if (rank == 1) with_rank(std::integral_constant<int, 1 % kSplits>());
    if constexpr (kSplits > 2) {
      if (rank == 2) with_rank(std::integral_constant<int, 2 % kSplits>());
      if (rank == 3) with_rank(std::integral_constant<int, 3 % kSplits>());
    }
  };

  uint32_t a[4][3][4];  // wgmma's A fragments, [tap][filter row]
  int gather_tile = -1;  // stream-K: the tile of a share's last piece when others finish it
  for (int it = 0; it < iterations;) {
    // The tile's piece: all its chunks but with stream-K, where a share may start or end inside.
    const int tile = tile_of(it), chunk0 = chunk_of(it);
    const int chunks = kStreamK ? min(kRankChunks - chunk0, iterations - it) : kRankChunks;
    const TransformPlan tasks = plan_transform(tid, rows_of(tile));
    for (int chunk = 0; chunk < chunks; ++chunk, ++it) {
      const int u_stage = (unsigned)it % kUStages, x_stage = (unsigned)it / kXChunks % kXStages;
      if constexpr (kProducer) {
        if ((unsigned)it % kXChunks == 0) {
          // The last stage's pixels are in this warp's registers (its transforms are past).
          if (it > 0) mbarrier_arrive(x_empty((x_stage + kXStages - 1) % kXStages));
          mbarrier_wait(x_full(x_stage), (unsigned)it / kXChunks / kXStages & 1);
        }
        mbarrier_wait(full(u_stage), (unsigned)it / kUStages & 1);
      } else {
        cp_async_wait<kXAhead - 1>();
        mbarrier_wait(full(u_stage), (unsigned)it / kUStages & 1);
        // The chunk has landed for the warpgroup; its MMAs of it - 2 are done in all 4 warps.
        group_sync(warpgroup);
        next_u(it, tid == 0);
        if (it + kXAhead < iterations) copy_x(it + kXAhead);
        else cp_async_commit();
      }
      // the stage's pixels at this chunk's channels
      const XT* xs = reinterpret_cast<const XT*>(smem + (x_base - base) + x_stage * kXBytes) +
                     (unsigned)it % kXChunks * kChunkC;
      const uint64_t b_desc = b_desc0 + (uint64_t)(u_stage * kUBytes >> 4);
      // One commit group per filter row r: its transform overlaps the MMAs of the two before.
      // a[.][r]'s registers belong to the last chunk's group r until it is done (wait 2). With
      // kRowPairs V rows 1 and 2 are each read by two groups (the compiler computes them once),
      // and a register a pending group reads must not be written (the PTX ISA; with wait 2
      // ptxas reused such registers while their groups were in flight; experiments: f23_pairs,
      // run 1): so filter rows 0 and 1 wait until the last chunk's groups 1 and 2 are done
      // (wait 1) and overlap one group's MMAs. The next V rows' loads are issued before the wait.
      Pixels d[kVRows];
      load_v_rows(xs, tasks, 0, d);
#pragma unroll
      for (int r = 0; r < 3; ++r) {
        if (r < 2) load_v_rows(xs, tasks, r + 1, d);
        if (kRowPairs && r < 2) wgmma_wait<1>();
        else wgmma_wait<2>();
        if constexpr (kProducer)
          if (r == 0) {  // this warp's MMAs of it - 2 are done: U's stage is free
            __syncwarp();
            next_u(it, lane_id == 0);
          }
        transform(d, r, a);
        wgmma_fence();  // a written, the accumulators read by the last tile's epilogue
#pragma unroll
        for (int j = 0; j < 4; ++j)
          wgmma(acc[j], a[j][r], b_desc + (uint64_t)((j * 3 + r) * 2 * kBlockK * 16 >> 4),
                chunk > 0 || r > 0);
        wgmma_commit();
      }
    }
    wgmma_wait<0>();
    // Ties the accumulators to the wait, so that no read of them moves above it.
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(acc[j][i]));
    const Piece piece = !kStreamK || chunks == kRankChunks ? Piece::kWhole
                        : chunk0 > 0                       ? Piece::kStore
                                                           : Piece::kGather;
    if (piece == Piece::kGather) {  // the share's last piece: finished after the loop
      gather_tile = tile;
      break;
    }
    finish_tile(tile, piece);
  }
  if constexpr (kStreamK) {
    // Outside the loop the loop's state is dead, so the partials' loads fit beside the
    // accumulators (inside it they took 254 registers; experiments: sk_fixup).
    if (gather_tile >= 0) {
      gather_partials(acc, (gather_tile + 1) * kRankChunks, partials, flags);
      finish_tile(gather_tile, Piece::kWhole);
    }
  }
}

}  // namespace wino_f23

// U_jr = (G g_r)_j in fp16, [K / 64][C / 16][j * 3 + r][c % 16 / 8][64 rows, permuted][c % 8]:
// a block's chunk is 24 KB in one piece, laid out as the stage holds it.
extern "C" __global__ void wino_f23_ktrans(const wino_f23::XT* __restrict__ w,
                                           half* __restrict__ U) {
  using namespace wino_f23;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= kC * kK) return;
  const int k = idx % kK, c = idx / kK;
  const int row = u_row(k % kBlockK);
  const long long chunk_base = ((long long)(k / kBlockK) * kChunks + c / kChunkC) * 12;
  const int kappa = k_slot(c % kChunkC);
  for (int r = 0; r < 3; ++r) {
    const float g0 = (float)w[((r * 3 + 0) * kC + c) * kK + k];
    const float g1 = (float)w[((r * 3 + 1) * kC + c) * kK + k];
    const float g2 = (float)w[((r * 3 + 2) * kC + c) * kK + k];
    const float u[4] = {g0, 0.5f * (g0 + g1 + g2), 0.5f * (g0 - g1 + g2), g2};
    for (int j = 0; j < 4; ++j)
      U[(((chunk_base + j * 3 + r) * 2 + kappa / 8) * kBlockK + row) * 8 + kappa % 8] =
          __float2half_rn(u[j]);
  }
}

// Stream-K's flags start at 0 (each finisher clears the ones it waited for).
extern "C" __global__ void wino_f23_clear_flags(unsigned* __restrict__ flags) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < wino_f23::kMaxBlocks * wino_f23::kWarpgroups) flags[idx] = 0;
}

extern "C" __global__ void __launch_bounds__(wino_f23::kThreads, 1) {{CLUSTER_DIMS}}
    wino_f23_forward({{FORWARD_PARAMS}}) {
  wino_f23::forward(x, U, {{BIAS_ARG}}, {{RESIDUAL_ARG}}, {{PARTIALS_ARG}}, {{FLAGS_ARG}},
                    {{Y_SCALE_ARG}}, y);
}
