"""GroupNorm+SiLU: the kernel against PyTorch (channels_last and contiguous) at the VAE's shapes."""
import torch, torch.nn.functional as F
from wino_tvm.runtime import norm
from wino_tvm.runtime.select import timer, TIMING
from wino_tvm.device import gpu_limits
print(gpu_limits().name)
for (c, s) in ((512, 64), (512, 128), (512, 256), (256, 512), (128, 1024), (256, 1024), (128, 512)):
    x = (torch.rand(1, c, s, s, device="cuda") * 2 - 1).half().contiguous(memory_format=torch.channels_last)
    xn = x.contiguous()
    g, b = (torch.rand(c, device="cuda") + .5).half(), (torch.rand(c, device="cuda") - .5).half()
    ours = timer().time(lambda _: norm.run(x, 32, g, b, 1e-6, True), 1, TIMING)["median_us"]
    tcl = timer().time(lambda _: F.silu(F.group_norm(x, 32, g, b, 1e-6)), 1, TIMING)["median_us"]
    tn = timer().time(lambda _: F.silu(F.group_norm(xn, 32, g, b, 1e-6)), 1, TIMING)["median_us"]
    floor = 3 * x.numel() * 2 / 4.2e12 * 1e6
    y = norm.run(x, 32, g, b, 1e-6, True).double()
    ref = F.silu(F.group_norm(x.double(), 32, g.double(), b.double(), 1e-6))
    rel = float((y - ref).norm() / ref.norm())
    print(f"1x{c}x{s}x{s}: ours {ours:.1f} us (bytes floor {floor:.1f}), torch CL {tcl:.1f} ({tcl/ours:.2f}x), "
          f"torch NCHW {tn:.1f} ({tn/ours:.2f}x), rel L2 {rel:.1e}", flush=True)
