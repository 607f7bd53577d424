"""Where the VAE decoder's torch time goes: channels_last vs contiguous, op breakdown."""
import copy, statistics, sys, torch
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity
from wino_tvm.bench.zoo import VAEDecoder, randomise
from wino_tvm.bench.models import time_calls, graphed

torch.backends.cudnn.benchmark = True
for side in (64, 128):
    model = randomise(VAEDecoder()).eval().cuda().half()
    x = (torch.rand(1, 4, side, side, device="cuda") * 2 - 1).half()
    for fmt in ("channels_last", "contiguous"):
        mf = getattr(torch, "channels_last" if fmt == "channels_last" else "contiguous_format")
        m = copy.deepcopy(model).to(memory_format=mf)
        xi = x.contiguous(memory_format=mf)
        with torch.inference_mode():
            t = time_calls(lambda: m(xi), 20)
            g, _ = graphed(m, xi)
            tg = time_calls(g, 20)
            print(f"## {side*8}^2 {fmt}: eager {t:.3f} ms graph {tg:.3f} ms", flush=True)
            with profile(activities=[ProfilerActivity.CUDA]) as p:
                for _ in range(3):
                    m(xi)
                torch.cuda.synchronize()
            print(p.key_averages().table(sort_by="cuda_time_total", row_limit=18, max_name_column_width=70), flush=True)
