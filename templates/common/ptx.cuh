// PTX primitives shared by the template kernels (lane, F(2, 3), F(4x4)): one wrapper per
// instruction, filled into each template (placeholder PTX) so that a generated program stays one
// file.
// One clobber rule: what orders or waits (commits, waits, barriers, fences, mbarrier operations)
// and every TMA issue carries "memory", so that the compiler keeps memory accesses on their side
// of it; the per-thread movers (cp.async, ldmatrix) do not: the commits, waits and barriers
// around them order them, and a clobber on each of a loop's copies would pin the compiler's
// schedule around every one. The sm_90 instructions compile to nothing below sm_90a: the lane
// template builds for sm_80 too, where its wgmma and TMA paths are dead code.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WINO_SM90A 1
#else
#define WINO_SM90A 0
#endif

__device__ __forceinline__ uint32_t smem_address(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// cp.async of 16 bytes to shared memory, `bytes` of them read (the rest zero-filled).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int bytes = 16) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
// This thread's copies have landed but for the kPending youngest commit groups.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

// Named barrier `id` (0 is __syncthreads's) over `threads` threads.
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&b)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
               : "r"(addr));
}

// The executing thread's cp.async copies so far arrive on the mbarrier once they have landed
// (no pending count added: the barrier's count includes this arrival).
__device__ __forceinline__ void cp_async_arrive(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// Warp-specialised register budgets (sm_90): a warpgroup takes or gives back registers.
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

// mbarriers (CTA scope: cluster-scope waits put an L1 invalidation after each, experiments:
// f23_wgmma). An init is published to the async proxy by mbarrier_init_fence before any TMA
// copy completes on the barrier.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, int count) {
#if WINO_SM90A
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#endif
}
__device__ __forceinline__ void mbarrier_init_fence() {
#if WINO_SM90A
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
#if WINO_SM90A
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}
// Arrives and announces `bytes` of copies that complete the barrier's phase.
__device__ __forceinline__ void mbarrier_expect_tx(uint32_t bar, int bytes) {
#if WINO_SM90A
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
#endif
}
// Waits for phase `parity` of the barrier.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
#if WINO_SM90A
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#endif
}

// Orders this thread's generic-proxy shared-memory accesses before later async-proxy ones
// (TMA copies into, wgmma reads from, the same memory).
__device__ __forceinline__ void fence_proxy_async() {
#if WINO_SM90A
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// TMA: `bytes` contiguous bytes from global src to shared dst, completing on bar.
__device__ __forceinline__ void tma_copy(uint32_t dst, const void* src, int bytes, uint32_t bar) {
#if WINO_SM90A
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%0], [%1], %2, [%3];" ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
#endif
}
// TMA: the box of tensor map `map` at coordinates c (innermost first) to shared dst, zero
// outside the tensor, completing on bar.
__device__ __forceinline__ void tma_copy_5d(uint32_t dst, const void* map, const int (&c)[5],
                                            uint32_t bar) {
#if WINO_SM90A
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
      ::"r"(dst), "l"(map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(bar)
      : "memory");
#endif
}

// wgmma's async protocol: fence before the MMAs that read registers written since, commit them
// as a group, wait for groups before their A or accumulator registers are touched again.
__device__ __forceinline__ void wgmma_fence() {
#if WINO_SM90A
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if WINO_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#if WINO_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
#endif
}

// wgmma's descriptor of a matrix in shared memory, K-major without swizzle: core matrices of 8
// rows x 16 bytes; the next 8 channels `leading` bytes on, the next 8 rows 128 bytes on (rows
// are 16 bytes apart throughout).
__device__ __forceinline__ uint64_t descriptor(uint32_t address, uint32_t leading) {
  return (uint64_t)((address & 0x3FFFF) >> 4) | (uint64_t)(leading >> 4) << 16 |
         (uint64_t)(128 >> 4) << 32;
}

// Clusters: this block's rank in its cluster; a barrier over every thread of the cluster's
// blocks (release / acquire orders their shared-memory accesses); the address of the same
// shared-memory location in block `rank` of the cluster.
__device__ __forceinline__ int cluster_rank() {
  uint32_t rank = 0;
#if WINO_SM90A
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
  return (int)rank;
}
__device__ __forceinline__ void cluster_sync() {
#if WINO_SM90A
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;"
               ::: "memory");
#endif
}
__device__ __forceinline__ uint32_t cluster_address(uint32_t address, int rank) {
  uint32_t remote = address;
#if WINO_SM90A
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
#endif
  return remote;
}

// Programmatic dependent launch (a Launch with early=True): grid_dependency_wait returns once
// the previous kernel in the stream has finished and its writes are visible; launch_dependents
// lets the next kernel's blocks start on SMs this one frees. Both are no-ops outside such a
// launch pair.
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
