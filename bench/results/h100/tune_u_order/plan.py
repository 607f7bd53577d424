"""Build the tuning batch that sweeps the int8 full kernels with U from L2 (ul2) after U went
into fragment order (../u_order_ab/), CPU side: per benchmark workload, every m=2 16x16x16
ul2 config of tb_m {16, 32}, tb_n {16, 32, 64}, tb_k {32, 64} with one OTrans channel (two
were slower in all three ul2 pairs of ../u_order_ab/) that the tuner's rules keep, less those
../u_order_ab/ measured already.

python bench/results/h100/tune_u_order/plan.py .gpu/tuo
"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Axes, config_space
from wino_tvm.workload import Conv2dWorkload

AXES = Axes(m=(2,), tb_m=(16, 32), tb_n=(16, 32, 64), tb_k=(32, 64),
            fragments=((16, 16, 16),), fusions=("full",), pad=(16,), u_smem=(False,),
            persist=(False,), groups=(1,), ot_channels=(1,), k_split=(1,))
DONE = Path(__file__).resolve().parent.parent / "u_order_ab" / "tune_uo.jsonl"


def main(out: str) -> None:
    done = {r.key for r in read_records(DONE)}
    todo = []
    for shape in BENCH_WORKLOADS:
        wl = Conv2dWorkload(*shape, dtype="int8", accum="int32")
        kept, _ = config_space(wl, KNOWN_DEVICES["h100"], AXES)
        todo += [c for c in kept if c.key not in done]
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"])


if __name__ == "__main__":
    main(*sys.argv[1:])
