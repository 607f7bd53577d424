"""Eager forward of models at N=1: host-only time (GPU kept busy) and event latency, PyTorch's
channels_last model against the converted one; one tree per process (PYTHONPATH)."""
import copy, json, sys
import torch
import wino_tvm
from wino_tvm import nn as wino_nn
from wino_tvm.bench.models import time_calls, prebuild, model_input
from wino_tvm.bench.zoo import CASES, randomise
from wino_tvm.runtime.choice import Policy
sys.path.insert(0, ".lab/host")
from host_cost import host_us as layer_host_us  # noqa
import statistics, time

def host_us(fn, calls=20, reps=9):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(200_000_000)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        times.append((t1 - t0) / calls * 1e6)
    return statistics.median(times)

label, out = sys.argv[1], sys.argv[2]
res = {"tree": wino_tvm.__file__, "label": label}
torch.backends.cudnn.benchmark = True
for name in ("vgg16_n1", "resnet34_n1"):
    case = next(c for c in CASES if c.name == name)
    torch.manual_seed(0)
    model = randomise(case.build()).eval()
    x = model_input(case)
    base = copy.deepcopy(model).cuda().half().to(memory_format=torch.channels_last)
    policy = Policy()
    converted = wino_nn.convert(copy.deepcopy(base), policy=policy, verbose=False)
    with torch.inference_mode():
        x16 = x.half().contiguous(memory_format=torch.channels_last)
        base(x16)
        prebuild(base, converted, x16, policy)
        ref = base(x16).float()
        y = converted(x16).float()
        torch.cuda.synchronize()
        err = ((y - ref).norm() / ref.norm()).item()
        r = {"rel_l2_vs_torch_fp16": err, "host_us_wino": [], "eager_ms_torch": [], "eager_ms_wino": []}
        for rep in range(3):
            r["host_us_wino"].append(host_us(lambda: converted(x16)))
            r["eager_ms_torch"].append(time_calls(lambda: base(x16), 200))
            r["eager_ms_wino"].append(time_calls(lambda: converted(x16), 200))
        res[name] = r
        print(label, name, json.dumps(r), flush=True)
json.dump(res, open(out, "w"), indent=1)
