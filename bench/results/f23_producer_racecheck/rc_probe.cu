// racecheck probe: a producer warpgroup's cp.async writes into a 2-stage ring, handed to a
// consumer warpgroup through mbarriers (cp.async.mbarrier.arrive.noinc on `full`, the consumers'
// arrivals on `empty`), as in f23_producer. SYNC=1: the consumer waits on `full` (correct by
// the PTX memory model); SYNC=0: it reads the other stage (a real race, the control).
#include <cstdio>
#include <cstdint>
#ifndef SYNC
#define SYNC 1
#endif
#ifndef WARP_ARRIVE  // 1: one arrival per consumer warp on `empty`, by lane 0 after __syncwarp
#define WARP_ARRIVE 0
#endif
__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void init(uint32_t b, int n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory"); }
__device__ __forceinline__ void arrive(uint32_t b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory"); }
__device__ __forceinline__ void wait(uint32_t b, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(b), "r"(parity) : "memory");
}
__global__ void probe(const int4* __restrict__ src, int* __restrict__ out, int iters) {
  __shared__ alignas(16) int4 buf[2][128];
  __shared__ alignas(8) uint64_t full[2], empty[2];
  const int tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) init(sa(&full[s]), 128), init(sa(&empty[s]), WARP_ARRIVE ? 4 : 128);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x < 128) {  // producer
    for (int it = 0; it < iters; ++it) {
      const int s = it % 2;
      if (it >= 2) wait(sa(&empty[s]), ((it / 2) - 1) & 1);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa(&buf[s][tid])), "l"(src + it * 128 + tid));
      asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(sa(&full[s])) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {  // consumer: reads another thread's piece
    int sum = 0;
    for (int it = 0; it < iters; ++it) {
      const int s = it % 2;
      wait(sa(&full[s]), (it / 2) & 1);
      // SYNC=0 reads the other stage, which the producer may be filling: a real race
      const int4 v = buf[SYNC ? s : s ^ 1][(tid + 37) % 128];
      sum += v.x + v.y + v.z + v.w;
      if (WARP_ARRIVE) {
        __syncwarp();
        if (threadIdx.x % 32 == 0) arrive(sa(&empty[s]));
      } else {
        arrive(sa(&empty[s]));
      }
    }
    out[tid] = sum;
  }
}
int main() {
  const int iters = 16;
  int4* src; int* out;
  cudaMalloc(&src, iters * 128 * sizeof(int4)); cudaMalloc(&out, 128 * sizeof(int));
  cudaMemset(src, 1, iters * 128 * sizeof(int4));
  probe<<<1, 256>>>(src, out, iters);
  cudaError_t e = cudaDeviceSynchronize();
  int h[128]; cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  printf("SYNC=%d WARP_ARRIVE=%d %s out[0]=%d (expect %d)\n", SYNC, WARP_ARRIVE, cudaGetErrorString(e), h[0], iters * 4 * 0x01010101);
  return e != cudaSuccess;
}
