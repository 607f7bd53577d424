"""Build the tuning batch of the ot_channels axis (CPU side, TVM): every tuned config the
bench_full suite takes (not its fixed 32/32/32 tiles; int8 output shares the fp32 one's config),
with its epilogue, at ot_channels 1 and 2, through python -m wino_tvm.tune build into one batch.

python bench/results/h100/tune_ot_channels/plan.py .gpu/tune_oc
"""

import subprocess
import sys

from wino_tvm.suites import FULL_TILES, bench_full


def main(out: str) -> None:
    for wl, cfg in bench_full():
        if cfg == FULL_TILES or wl.out == "int8":
            continue
        cmd = [sys.executable, "-m", "wino_tvm.tune", "build",
               "--workload", ",".join(map(str, (wl.n, wl.h, wl.w, wl.c, wl.k))),
               "--dtype", wl.dtype, "--accum", wl.accum, "--epilogue", ",".join(wl.epilogue),
               "--m", str(wl.m), "--tb-m", str(cfg.tb_m), "--tb-n", str(cfg.tb_n),
               "--tb-k", str(cfg.tb_k), "--frag", "x".join(map(str, cfg.fragment)),
               "--fusion", cfg.fusion, "--vec", str(cfg.vec), "--pad", str(cfg.pad),
               "--u-smem", str(int(cfg.u_smem)), "--persist", str(int(cfg.persist)),
               "--groups", str(cfg.groups), "--ot-channels", "1,2",
               "--device", "h100", "--jobs", "2", "--out", out]
        print(" ".join(cmd[3:]), flush=True)
        subprocess.run(cmd, check=True)

if __name__ == "__main__":
    main(sys.argv[1])
