"""Host us per call of the ways to allocate a channels_last output, get the raw stream, pad
channels, and of ctypes calls with differing argument handling (GPU kept busy)."""
import ctypes, json, statistics, sys, time
import torch, torch.nn.functional as F
sys.path.insert(0, ".lab/host")
from host_cost import host_us  # noqa
n, k, h, w = 1, 512, 28, 28
x = torch.randn(1, 3, 224, 224, device="cuda", dtype=torch.half).contiguous(memory_format=torch.channels_last)
dev = x.device
idx = dev.index or 0
CL = torch.channels_last
half = torch.float16
size, stride = (n, k, h, w), (h * w * k, 1, w * k, k)
nhwc = (n, h, w, k)
p = x.permute(0, 2, 3, 1)
rows = {
    "empty CL kw": lambda: torch.empty(size, dtype=half, device=dev, memory_format=CL),
    "empty_strided": lambda: torch.empty_strided(size, stride, dtype=half, device=dev),
    "x.new_empty_strided": lambda: x.new_empty_strided(size, stride),
    "empty nhwc .permute": lambda: torch.empty(nhwc, dtype=half, device=dev).permute(0, 3, 1, 2),
    "x.new_empty nhwc .permute": lambda: x.new_empty(nhwc).permute(0, 3, 1, 2),
    "empty_like-ish torch.empty(size) NCHW": lambda: torch.empty(size, dtype=half, device=dev),
    "current_stream().cuda_stream": lambda: torch.cuda.current_stream(dev).cuda_stream,
    "_cuda_getCurrentRawStream(idx)": lambda: torch._C._cuda_getCurrentRawStream(idx),
    "x.get_device()": lambda: x.get_device(),
    "x.device.index": lambda: x.device.index,
    "F.pad nhwc": lambda: F.pad(p, (0, 13)).permute(0, 3, 1, 2),
    "constant_pad_nd nhwc": lambda: torch.constant_pad_nd(p, (0, 13)).permute(0, 3, 1, 2),
    "zeros + slice copy": lambda: x.new_zeros((1, 224, 224, 16))[..., :3].copy_(p),
}
out = {name: host_us(fn) for name, fn in rows.items()}
for name, us in out.items():
    print(f"{us:7.2f} us  {name}")
json.dump(out, open(sys.argv[1] + "/alloc_cost.json", "w"), indent=1)
