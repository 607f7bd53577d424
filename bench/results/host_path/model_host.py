"""VGG-16 N=1 eager: host-only time of a forward (GPU kept busy), its event latency as
bench.models times it, a cProfile of the converted forward and a torch.profiler table of one
forward each, to find what makes the converted model's eager call slower than PyTorch's."""
import copy, cProfile, io, json, pstats, statistics, sys, time
import torch
from wino_tvm import nn as wino_nn
from wino_tvm.bench.models import time_calls, prebuild, model_input
from wino_tvm.bench.zoo import CASES, randomise
from wino_tvm.runtime.choice import Policy

def host_us(fn, calls=20, reps=9):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(100_000_000)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        times.append((t1 - t0) / calls * 1e6)
    return statistics.median(times)

out = sys.argv[1]
case = next(c for c in CASES if c.name == "vgg16_n1")
torch.backends.cudnn.benchmark = True
model = randomise(case.build()).eval()
x = model_input(case)
base = copy.deepcopy(model).cuda().half().to(memory_format=torch.channels_last)
policy = Policy()
converted = wino_nn.convert(copy.deepcopy(base), policy=policy, verbose=False)
res = {}
with torch.inference_mode():
    x16 = x.half().contiguous(memory_format=torch.channels_last)
    base(x16)
    prebuild(base, converted, x16, policy)
    converted(x16)
    torch.cuda.synchronize()
    for rep in range(2):
        res[f"host_us_torch_{rep}"] = host_us(lambda: base(x16))
        res[f"host_us_wino_{rep}"] = host_us(lambda: converted(x16))
        res[f"eager_ms_torch_{rep}"] = time_calls(lambda: base(x16), 50)
        res[f"eager_ms_wino_{rep}"] = time_calls(lambda: converted(x16), 50)
    print(json.dumps(res, indent=1), flush=True)
    print(converted.code, flush=True)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(10):
        torch.cuda._sleep(100_000_000)
        for _ in range(20):
            converted(x16)
        torch.cuda.synchronize()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
    print(s.getvalue(), flush=True)
    for name, m in (("torch", base), ("wino", converted)):
        for _ in range(3):
            m(x16)
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                torch.profiler.ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                m(x16)
                torch.cuda.synchronize()
        table = p.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
        print(name, table, flush=True)
        p.export_chrome_trace(f"{out}/trace_{name}.json")
json.dump(res, open(f"{out}/model_host.json", "w"), indent=1)
