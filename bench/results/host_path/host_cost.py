"""Host cost of one eager 3x3 conv call (us per call, GPU kept busy so no call waits): PyTorch's
conv+relu against wino_tvm.nn.Conv2d and the pieces of its call path; then a cProfile."""
import cProfile, io, json, pstats, statistics, sys, time
import torch, torch.nn.functional as F
import wino_tvm
from wino_tvm.runtime import ops
from wino_tvm.runtime.choice import Policy
from wino_tvm.runtime.dispatch import unsupported_call

CALLS, REPS = 100, 9

def host_us(fn):
    times = []
    for _ in range(REPS):
        torch.cuda.synchronize()
        torch.cuda._sleep(60_000_000)  # ~30 ms of GPU work ahead of the calls
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        times.append((t1 - t0) / CALLS * 1e6)
    return statistics.median(times)

def main(out):
    torch.backends.cudnn.benchmark = True
    rows = {}
    for (n, c, k, hw) in [(1, 256, 512, 28), (1, 512, 512, 14), (1, 64, 128, 112)]:
        conv = wino_tvm.nn.Conv2d(c, k, relu=True, policy=Policy(mode="trust")).cuda().half().eval()
        tconv = torch.nn.Conv2d(c, k, 3, padding=1).cuda().half().eval().to(memory_format=torch.channels_last)
        trelu = torch.nn.ReLU()
        x = torch.randn(n, c, hw, hw, device="cuda", dtype=torch.half).contiguous(memory_format=torch.channels_last)
        with torch.inference_mode():
            conv(x); tconv(x); torch.cuda.synchronize()
            layer = conv._layer
            key = next(iter(layer.kernels))
            kernel = layer.kernels[key]
            w, b = conv.weight, conv.bias
            lib, ws = ops._KERNELS[kernel.handle]
            y = torch.empty((n, k, hw, hw), dtype=x.dtype, device=x.device, memory_format=torch.channels_last)
            stream = torch.cuda.current_stream().cuda_stream
            sp = ops.scratch_for(lib, x.device)
            ptrs = dict(scratch_ptr=None if sp is None else sp.data_ptr(), bias_ptr=b.data_ptr())
            raw = (x.data_ptr(), b.data_ptr(), None, None, y.data_ptr(), ws.data_ptr(), ptrs["scratch_ptr"], stream)
            pieces = {
                "torch conv+relu modules": lambda: trelu(tconv(x)),
                "torch F.conv2d+F.relu": lambda: F.relu(F.conv2d(x, tconv.weight, tconv.bias, padding=1)),
                "wino module": lambda: conv(x),
                "Layer.__call__": lambda: layer(x, w, b, None, True),
                "ConvKernel.__call__": lambda: kernel(x, b, None),
                "ops.run": lambda: ops.run(x, b, None, kernel.handle, k),
                "library.forward": lambda: lib.forward(x.data_ptr(), y.data_ptr(), ws.data_ptr(), stream, **ptrs),
                "ctypes wino_forward": lambda: lib._lib.wino_forward(*raw),
                "torch.empty CL": lambda: ops._output(x, k),
                "current_stream().cuda_stream": lambda: torch.cuda.current_stream(x.device).cuda_stream,
                "_cuda_getCurrentRawStream": lambda: torch._C._cuda_getCurrentRawStream(0),
                "unsupported_call": lambda: unsupported_call(x, w, None),
                "Layer.kernel": lambda: layer.kernel(x, w, ("bias", "relu")),
                "is_contiguous CL": lambda: x.is_contiguous(memory_format=torch.channels_last),
                "is_compiling": lambda: torch.compiler.is_compiling(),
                "data_ptr x5": lambda: (x.data_ptr(), y.data_ptr(), ws.data_ptr(), b.data_ptr(), x.data_ptr()),
            }
            name = f"{n}x{hw}x{hw}x{c}->{k}"
            rows[name] = {"config": str(layer.choices[key].config and layer.choices[key].config.name(layer.choices[key].wl)),
                          **{p: host_us(fn) for p, fn in pieces.items()}}
            print(name, json.dumps(rows[name], indent=1), flush=True)
            if hw == 28:
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(20):
                    torch.cuda._sleep(20_000_000)
                    for _ in range(100):
                        conv(x)
                    torch.cuda.synchronize()
                prof.disable()
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
                print(s.getvalue())
                open(f"{out}/cprofile.txt", "w").write(s.getvalue())
    json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows},
              open(f"{out}/host_cost.json", "w"), indent=1)

if __name__ == "__main__":
    main(sys.argv[1])
