"""CUDA-graph replay time of a converted model (and PyTorch's channels_last one) in one tree
(PYTHONPATH): does the host-path change move the GPU side?"""
import copy, json, sys
import torch
import wino_tvm
from wino_tvm import nn as wino_nn
from wino_tvm.bench.models import time_calls, prebuild, model_input, graphed
from wino_tvm.bench.zoo import CASES, randomise
from wino_tvm.runtime.choice import Policy

label, out, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
res = {"tree": wino_tvm.__file__, "label": label}
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
for name in names:
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
        converted(x16)
        kernels = [str(c) for _, _, c in wino_nn.choices(converted)]
        r = {"graph_ms_torch": [], "graph_ms_wino": [], "kernels": kernels}
        gt, gw = graphed(base, x16)[0], graphed(converted, x16)[0]
        for rep in range(3):
            r["graph_ms_torch"].append(time_calls(gt, 100))
            r["graph_ms_wino"].append(time_calls(gw, 100))
        res[name] = r
        print(label, name, json.dumps({k: v for k, v in r.items() if k != "kernels"}), flush=True)
json.dump(res, open(out, "w"), indent=1)
