"""Lab only: patch a fused f44 program.cu with a per-kernel timeline (globaltimer spans, the SMs each
kernel's blocks ran on, block-time sums, and the time the GEMM's producer and OTrans's blocks
waited on counters), printed after the timing as one TRACE line of JSON."""
import sys
from pathlib import Path

TRACE = r'''
__device__ unsigned long long wt_span[4][2];
__device__ unsigned wt_sms[4][256];
__device__ unsigned long long wt_busy[4], wt_wait[4];
__device__ __forceinline__ unsigned long long wt_now() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned wt_smid() {
  unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
struct WtScope {
  int k; bool lead; unsigned long long t0;
  __device__ WtScope(int kernel, bool leader) : k(kernel), lead(leader), t0(wt_now()) {
    if (lead) { atomicMin(&wt_span[k][0], t0); atomicAdd(&wt_sms[k][wt_smid() & 255], 1u); } }
  __device__ ~WtScope() {
    if (lead) { const unsigned long long t1 = wt_now(); atomicMax(&wt_span[k][1], t1);
                            atomicAdd(&wt_busy[k], t1 - t0); } }
};
'''
DUMP = r'''
  {
    unsigned long long span[4][2], busy[4], wait[4]; unsigned sms[4][256];
    for (int k = 0; k < 4; ++k) { span[k][0] = ~0ull; span[k][1] = 0; busy[k] = wait[k] = 0; }
    for (int k = 0; k < 4; ++k) for (int s = 0; s < 256; ++s) sms[k][s] = 0;
    WB_CHECK(cudaMemcpyToSymbol(wt_span, span, sizeof span));
    WB_CHECK(cudaMemcpyToSymbol(wt_busy, busy, sizeof busy));
    WB_CHECK(cudaMemcpyToSymbol(wt_wait, wait, sizeof wait));
    WB_CHECK(cudaMemcpyToSymbol(wt_sms, sms, sizeof sms));
    WB_CHECK(cudaDeviceSynchronize());
    forward(x, w, bias, residual, y_scale, y, stream);
    WB_CHECK(cudaDeviceSynchronize());
    WB_CHECK(cudaMemcpyFromSymbol(span, wt_span, sizeof span));
    WB_CHECK(cudaMemcpyFromSymbol(busy, wt_busy, sizeof busy));
    WB_CHECK(cudaMemcpyFromSymbol(wait, wt_wait, sizeof wait));
    WB_CHECK(cudaMemcpyFromSymbol(sms, wt_sms, sizeof sms));
    unsigned long long t0 = ~0ull;
    for (int k = 0; k < 4; ++k) if (span[k][1]) t0 = std::min(t0, span[k][0]);
    fprintf(stderr, "TRACE {");
    const char* names[4] = {"itrans", "gemm_consumers", "otrans_team", "clear"};
    for (int k = 0; k < 4; ++k) {
      if (!span[k][1]) continue;
      int used = 0, most = 0; long long blocks = 0;
      for (int s = 0; s < 256; ++s) { used += sms[k][s] > 0; most = std::max(most, (int)sms[k][s]); blocks += sms[k][s]; }
      fprintf(stderr, "\"%s\": {\"start_us\": %.1f, \"end_us\": %.1f, \"sms\": %d, \"blocks\": %lld, \"most_on_an_sm\": %d, \"block_us\": %.1f, \"wait_us\": %.1f}, ",
              names[k], (span[k][0] - t0) / 1e3, (span[k][1] - t0) / 1e3, used, blocks, most, busy[k] / 1e3, wait[k] / 1e3);
    }
    fprintf(stderr, "\"end\": 0}\n");
  }
'''

def patch(path: Path) -> None:
    s = path.read_text()
    s = s.replace("namespace wino_f44 {", TRACE + "\nnamespace wino_f44 {", 1)
    s = s.replace("for (; rows_ready < rows; ++rows_ready) wait_count(sync + rows_ready, row_items(rows_ready));",
                  "const unsigned long long wt0 = wt_now(); for (; rows_ready < rows; ++rows_ready) wait_count(sync + rows_ready, row_items(rows_ready)); atomicAdd(&wt_wait[1], wt_now() - wt0);")
    s = s.replace("wait_count(sync + kVRows + band, band_halves(band));",
                  "const unsigned long long wt0 = wt_now(); wait_count(sync + kVRows + band, band_halves(band)); atomicAdd(&wt_wait[2], wt_now() - wt0);")
    for old, new in (
        ("    gemm_warps(V, U, M, sync, base, bars);\n    return;",
         "    { WtScope wt_scope(1, threadIdx.x == 0); gemm_warps(V, U, M, sync, base, bars); }\n    return;"),
        ("  if constexpr (kFused == 1) itrans_team(x, V, sync, regions, tid, blockIdx.x, gridDim.x, 1);",
         "  if constexpr (kFused == 1) { WtScope wt_scope(0, tid == 0); itrans_team(x, V, sync, regions, tid, blockIdx.x, gridDim.x, 1); }\n  WtScope wt_scope(2, tid == 0);"),
        ("  wino_f44::input_transform(x, V,", "  WtScope wt_scope(0, threadIdx.x == 0);\n  wino_f44::input_transform(x, V,"),
        ("  for (long long i = threadIdx.x; i < wino_f44::kSyncWords;",
         "  WtScope wt_scope(3, threadIdx.x == 0);\n  for (long long i = threadIdx.x; i < wino_f44::kSyncWords;")):
        assert s.count(old) == 1, old
        s = s.replace(old, new)
    anchor = '    fprintf(stderr, "forward: median %.2f us, min %.2f us, mean %.2f us\\n", median_us, min_us,\n            mean_us);\n'
    assert anchor in s
    s = s.replace(anchor, anchor + DUMP)
    path.write_text(s)

for p in sys.argv[1:]:
    patch(Path(p))
