# Scratch experiment (not product): F(4x4) unfused in slabs of tiles whose V and M stay in L2
# (ITrans, cuBLAS bmm, OTrans per slab), against cuDNN via torch, one process, graph replays.
import json, os, statistics, sys
import numpy as np
import torch
from torch.utils.cpp_extension import load_inline

from wino_tvm.math.winograd import transform_matrices
A, B, Gm = transform_matrices(4)
def _mat(name, m):
    rows = ",".join("{" + ",".join(f"{float(v)!r}f" for v in row) + "}" for row in m)
    return f"__device__ constexpr float {name}[{m.shape[0]}][{m.shape[1]}] = {{{rows}}};\n"
SRC = _mat("kBT", B.T) + _mat("kAT", A.T) + r"""
#include <cuda_fp16.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
// x NHWC -> v[36][T][C]; a thread per (tile, 2 channels).
__global__ void itrans(const half2* __restrict__ x, half2* __restrict__ v, int N, int H, int W, int C2,
                       int TH, int TW, long T, long t0) {
  long id = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (id >= T * C2) return;
  int c = id % C2; long ts = id / C2, t = t0 + ts;
  int tw = t % TW, th = (t / TW) % TH, n = t / ((long)TW * TH);
  float2 tmp[6][6];
#pragma unroll
  for (int a = 0; a < 6; ++a)
#pragma unroll
    for (int j = 0; j < 6; ++j) tmp[a][j] = make_float2(0.f, 0.f);
#pragma unroll
  for (int i = 0; i < 6; ++i) {
    int h = th * 4 + i - 1;
    float2 d[6];
#pragma unroll
    for (int j = 0; j < 6; ++j) {
      int w = tw * 4 + j - 1;
      d[j] = (h >= 0 && h < H && w >= 0 && w < W)
                 ? __half22float2(x[(((long)n * H + h) * W + w) * C2 + c]) : make_float2(0.f, 0.f);
    }
#pragma unroll
    for (int a = 0; a < 6; ++a)
      if (kBT[a][i] != 0.f)
#pragma unroll
        for (int j = 0; j < 6; ++j) { tmp[a][j].x += kBT[a][i] * d[j].x; tmp[a][j].y += kBT[a][i] * d[j].y; }
  }
#pragma unroll
  for (int a = 0; a < 6; ++a)
#pragma unroll
    for (int b = 0; b < 6; ++b) {
      float s0 = 0.f, s1 = 0.f;
#pragma unroll
      for (int j = 0; j < 6; ++j) if (kBT[b][j] != 0.f) { s0 += kBT[b][j] * tmp[a][j].x; s1 += kBT[b][j] * tmp[a][j].y; }
      v[((long)(a * 6 + b) * T + ts) * C2 + c] = __floats2half2_rn(s0, s1);
    }
}
// m[36][T][K] -> y NHWK; a thread per (tile, 2 channels).
__global__ void otrans(const half2* __restrict__ m, half2* __restrict__ y, int N, int H, int W, int K2,
                       int TH, int TW, long T, long t0) {
  long id = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (id >= T * K2) return;
  int k = id % K2; long ts = id / K2, t = t0 + ts;
  int tw = t % TW, th = (t / TW) % TH, n = t / ((long)TW * TH);
  float2 tmp[4][6];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int b = 0; b < 6; ++b) tmp[i][b] = make_float2(0.f, 0.f);
#pragma unroll
  for (int a = 0; a < 6; ++a)
#pragma unroll
    for (int b = 0; b < 6; ++b) {
      float2 f = __half22float2(m[((long)(a * 6 + b) * T + ts) * K2 + k]);
#pragma unroll
      for (int i = 0; i < 4; ++i) if (kAT[i][a] != 0.f) { tmp[i][b].x += kAT[i][a] * f.x; tmp[i][b].y += kAT[i][a] * f.y; }
    }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int h = th * 4 + i, w = tw * 4 + j;
      if (h >= H || w >= W) continue;
      float s0 = 0.f, s1 = 0.f;
#pragma unroll
      for (int b = 0; b < 6; ++b) if (kAT[j][b] != 0.f) { s0 += kAT[j][b] * tmp[i][b].x; s1 += kAT[j][b] * tmp[i][b].y; }
      y[(((long)n * H + h) * W + w) * K2 + k] = __floats2half2_rn(s0, s1);
    }
}
void run_itrans(torch::Tensor x, torch::Tensor v, int64_t TH, int64_t TW, int64_t t0) {
  int N = x.size(0), H = x.size(1), W = x.size(2), C = x.size(3); long T = v.size(1);
  long threads = T * (C / 2);
  itrans<<<(threads + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      (const half2*)x.data_ptr(), (half2*)v.data_ptr(), N, H, W, C / 2, TH, TW, T, t0);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void run_otrans(torch::Tensor m, torch::Tensor y, int64_t TH, int64_t TW, int64_t t0) {
  int N = y.size(0), H = y.size(1), W = y.size(2), K = y.size(3); long T = m.size(1);
  long threads = T * (K / 2);
  otrans<<<(threads + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      (const half2*)m.data_ptr(), (half2*)y.data_ptr(), N, H, W, K / 2, TH, TW, T, t0);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""
CPP = "void run_itrans(torch::Tensor x, torch::Tensor v, int64_t TH, int64_t TW, int64_t t0);\n" \
      "void run_otrans(torch::Tensor m, torch::Tensor y, int64_t TH, int64_t TW, int64_t t0);"
ext = load_inline("f44s", CPP, cuda_sources=SRC, functions=["run_itrans", "run_otrans"],
                  extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
G = torch.tensor(Gm, dtype=torch.float64, device="cuda")
SHAPES = [(1,128,128,512,512),(1,256,256,512,512),(8,28,28,512,512),(1,256,256,256,256)]
SLABS = (1, 2, 4, 8, 16)
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def graph_time(fn, copies, reps=20):
    """Median us per call of fn(i) over graph replays, rotating through `copies` inputs."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(copies): fn(i)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(copies): fn(i)
    for _ in range(3): g.replay()
    times = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); g.replay(); e1.record(); torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1) * 1000 / copies)
    return statistics.median(times)


out = []
name = torch.cuda.get_device_name()
for (N, H, W, C, K) in SHAPES:
    TH, TW = -(-H // 4), -(-W // 4); T = N * TH * TW
    copies = max(2, min(8, -(-200_000_000 // (N * H * W * C * 2))))
    torch.manual_seed(0)
    xs = [torch.empty(N, H, W, C, device="cuda", dtype=torch.float16).uniform_(-1, 1) for _ in range(copies)]
    w = (torch.rand(K, C, 3, 3, device="cuda", dtype=torch.float64) * 2 - 1) / (9 * C) ** 0.5
    w16 = w.half()
    u = torch.einsum("hi,kcij,wj->hwck", G, w16.double(), G).reshape(36, C, K).half().contiguous()
    ys = [torch.empty(N, H, W, K, device="cuda", dtype=torch.float16) for _ in range(copies)]
    wcl = w16.contiguous(memory_format=torch.channels_last)
    xcl = [x.permute(0, 3, 1, 2) for x in xs]
    def cudnn(i): torch.nn.functional.conv2d(xcl[i], wcl, padding=1)
    t_cudnn = graph_time(cudnn, copies)
    for slabs in SLABS:
        S = -(-T // slabs)
        v = torch.empty(36, S, C, device="cuda", dtype=torch.float16)
        mm = torch.empty(36, S, K, device="cuda", dtype=torch.float16)
        def wino(i):
            for t0 in range(0, T, S):
                n = min(S, T - t0)
                vs, ms = v.view(-1)[:36 * n * C].view(36, n, C), mm.view(-1)[:36 * n * K].view(36, n, K)
                ext.run_itrans(xs[i], vs, TH, TW, t0)
                torch.bmm(vs, u, out=ms)
                ext.run_otrans(ms, ys[i], TH, TW, t0)
        for y in ys: y.fill_(float("nan"))
        wino(0); torch.cuda.synchronize()
        n1 = min(N, 2)
        ref = torch.nn.functional.conv2d(xs[0][:n1].permute(0, 3, 1, 2).double(), w16.double(), padding=1).permute(0, 2, 3, 1)
        rel = ((ys[0][:n1].double() - ref).norm() / ref.norm()).item()
        finite = bool(torch.isfinite(ys[0]).all())
        t = graph_time(wino, copies)
        row = dict(shape=[N, H, W, C, K], slabs=slabs, slab_tiles=S,
                   v_slab_mb=round(36 * S * C * 2 / 1e6, 1), cudnn_torch_us=round(t_cudnn, 1),
                   f44_us=round(t, 1), speedup=round(t_cudnn / t, 2), rel_l2=float(f"{rel:.2e}"),
                   finite=finite, device=name)
        print(json.dumps(row), flush=True)
        out.append(row)
        del v, mm
    del xs, ys, xcl
    torch.cuda.empty_cache()
os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
with open(os.path.join(os.environ.get("OUT", "."), "f44_slab.jsonl"), "w") as f:
    for r in out: f.write(json.dumps(r) + "\n")
