"""Layers with C < 16 through the runtime: every candidate (C padded to 16, the padding in its
time) and cuDNN at its fastest, timed by the runtime's own measure(); then wino_tvm.conv2d in
verify mode against float64."""
import json, sys, torch
import torch.nn.functional as F
import wino_tvm
from wino_tvm.runtime.choice import Policy, candidates
from wino_tvm.runtime.dispatch import device_of
from wino_tvm.runtime.select import measure
from wino_tvm.workload import Conv2dWorkload
limits, arch = device_of(0)
for n, h, w, c, k, ops in [(32, 224, 224, 3, 64, ("bias", "relu")), (1, 224, 224, 3, 64, ("bias", "relu")),
                           (1, 360, 640, 3, 64, ("bias",)), (1, 128, 128, 4, 512, ("bias",)),
                           (1, 64, 64, 4, 512, ("bias",)), (8, 112, 112, 3, 64, ("bias", "relu"))]:
    base = Conv2dWorkload(n, h, w, c, k, dtype="fp16", epilogue=ops)
    timed, cudnn_us = measure(candidates(base, limits, Policy(mode="autotune")), base, limits, arch, None)
    print(json.dumps({"shape": [n, h, w, c, k], "epilogue": ops, "cudnn_us": round(cudnn_us, 1),
                      "candidates": [[wl.c, cfg.name(wl)[40:], round(us, 1), round(cudnn_us / us, 2)] for us, wl, cfg, _ in timed]}), flush=True)
    torch.manual_seed(0)
    x = (torch.rand(n, c, h, w, device="cuda") * 2 - 1).half().contiguous(memory_format=torch.channels_last)
    wt = ((torch.rand(k, c, 3, 3, device="cuda") * 2 - 1) / (3 * c ** 0.5)).half()
    b = (torch.rand(k, device="cuda") * 2 - 1).half()
    y = wino_tvm.conv2d(x, wt, b, relu="relu" in ops)
    ref = F.conv2d(x.double(), wt.double(), b.double(), padding=1)
    ref = ref.relu() if "relu" in ops else ref
    rel = float((y.double() - ref).norm() / ref.norm())
    from wino_tvm.functional import _LAYERS
    (choice,) = _LAYERS[id(wt)][1].choices.values()
    print(json.dumps({"verify": choice.name[40:], "reason": choice.reason, "rel_l2": rel, "finite": bool(torch.isfinite(y).all())}), flush=True)
