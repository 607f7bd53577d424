"""Build the sweep of one-channel-chunk kernels at C >= 128, CPU side: per C = 128 workload the
persistent fp16 configs (both accumulators) and the int8 tb_k = C configs (U from L2, with and
without M in rounds, and the persistent ones) that the tuner's rules keep but no run measured;
per C = 256 workload int8 16/64/256 with U from L2 (tb_k = 256 is outside the tuner's axes);
plus every case's pick before this sweep, measured again in the same run.

python bench/results/h100/tune_one_chunk/plan.py .gpu/toc
"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
C128 = ((32, 28, 28, 128, 128), (128, 28, 28, 128, 128))
C256 = ((32, 14, 14, 256, 256), (128, 14, 14, 256, 256))
CASES = (("fp16", "fp32"), ("fp16", "fp16"), ("int8", "int32"))
# The persistent configs with padded rows (the padded picks won at C = 64).
PERSIST = Axes(m=(2,), tb_k=(128,), fusions=("full",), pad=(16,), persist=(True,),
               m_rounds=(1,))
INT8_UL2 = dict(tb_m=16, tb_n=64, fusion="full", u_smem=False)
ROUNDS_BLOCKS = {128: ((1, 0), (2, 0), (2, 4)), 256: ((1, 0), (2, 0), (2, 3))}
# Each case's pick in tuning_logs/h100.jsonl before this sweep (at 66ffb59).
PICKS = {
    ("N32_H28_W28_C128_K128", "fp16", "fp32"):
        "fp16-fp32-m2-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16",
    ("N32_H28_W28_C128_K128", "fp16", "fp16"):
        "fp16-fp16-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16",
    ("N128_H28_W28_C128_K128", "fp16", "fp32"):
        "fp16-fp32-m2-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16",
    ("N128_H28_W28_C128_K128", "fp16", "fp16"):
        "fp16-fp16-m2-tbm32-tbn64-tbk16-frag16x16x16-full-vec16-pad16-oc2",
    **{(key, "int8", "int32"): "int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2"
       for key in ("N32_H28_W28_C128_K128", "N128_H28_W28_C128_K128", "N128_H14_W14_C256_K256")},
    ("N32_H14_W14_C256_K256", "int8", "int32"):
        "int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2",
}
INT8_PERSIST = ("tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb",
                "tbm16-tbn16-tbk128-frag16x16x16-full-vec16-pad16-pb-ks2",
                "tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb-g2",
                "tbm32-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb")


def current_pick(wl: Conv2dWorkload) -> Candidate:
    return Candidate.from_config_name(wl.shape_dict(), PICKS[(wl.key, wl.dtype, wl.accum)])


def candidates() -> list[Candidate]:
    out = []
    for shape in C128 + C256:
        for dtype, accum in CASES:
            wl = Conv2dWorkload(*shape, dtype=dtype, accum=accum, m=2)
            if dtype == "fp16" and wl.c != 128:
                continue
            out.append(current_pick(wl))
            if dtype == "fp16":
                out += config_space(wl, H100, PERSIST)[0]
                continue
            out += [Candidate(wl, KernelConfig(**INT8_UL2, tb_k=wl.c, ot_channels=oc,
                                               m_rounds=rounds, min_blocks=blocks))
                    for oc in (1, 2) if wl.c == 128 or oc == 1
                    for rounds, blocks in ROUNDS_BLOCKS[wl.c]]
            if wl.c == 128:
                out += [Candidate.from_config_name(wl.shape_dict(), f"int8-int32-m2-{name}")
                        for name in INT8_PERSIST]
    return out


if __name__ == "__main__":
    build_plan(candidates(), Path(sys.argv[1]), H100)
