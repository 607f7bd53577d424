"""A/B: group_norm.cu at 8505854 (a) against the working tree's (b), interleaved rounds."""
import statistics, torch, torch.nn.functional as F
from pathlib import Path
from wino_tvm.runtime import cache, norm
from wino_tvm.runtime.select import timer, TIMING
libs = {"a": norm.GroupNormLibrary(cache.build_source("gn_a", Path("lab_vae/group_norm_old.cu").read_text(), "sm_90")),
        "b": norm.GroupNormLibrary(cache.build_source("gn_b", norm.SOURCE.read_text(), "sm_90"))}
def call(lib, x, g, b, y, ws):
    n, c, h, w = x.shape
    lib.forward(x.data_ptr(), g.data_ptr(), b.data_ptr(), y.data_ptr(), ws.data_ptr(), (n, h*w, c, 32), 1e-6, True, torch.cuda.current_stream().cuda_stream)
for (n, c, s) in ((1, 512, 64), (1, 512, 128), (1, 512, 256), (1, 256, 512), (1, 128, 1024), (2, 512, 64), (8, 256, 32), (1, 128, 64)):
    x = (torch.rand(n, c, s, s, device="cuda") * 2 - 1).half().contiguous(memory_format=torch.channels_last)
    g, b = (torch.rand(c, device="cuda") + .5).half(), (torch.rand(c, device="cuda") - .5).half()
    ref = F.silu(F.group_norm(x.double(), 32, g.double(), b.double(), 1e-6))
    times = {k: [] for k in libs}
    for _ in range(3):
        for k, lib in libs.items():
            ws = torch.empty(lib.workspace_bytes(n, s*s, c, 32), dtype=torch.uint8, device="cuda")
            y = torch.full_like(x, float("nan"))
            call(lib, x, g, b, y, ws)
            rel = float((y.double() - ref).norm() / ref.norm())
            assert rel < 1e-3, (k, rel)
            times[k].append(timer().time(lambda _: call(lib, x, g, b, y, ws), 1, TIMING)["median_us"])
    a, bb = statistics.median(times["a"]), statistics.median(times["b"])
    print(f"{n}x{c}x{s}x{s}: a {a:.1f} us, b {bb:.1f} us, b/a speed {a/bb:.2f}x, floor {3*x.numel()*2/4.2e6:.1f} us", flush=True)
