"""Write artifacts of the hand-written F(2, 3) wgmma kernel (f23_kernel.cu) for given shapes.

python3 bench/results/h100/f23_wgmma/make.py OUT COMMIT [--ablate] [--x-stages 3,4]
    [--v-stages 2,3] N,H,W,C,K ...
--x-stages: the depths of the input ring to build (default 3; 2 to 4); --v-stages: the depths of
V's ring (default 3; 2 or 3). A pair of depths whose rings do not fit in shared memory at a shape
(x4 with v3 at 28x28) is left out there, with a note on stderr.
Each OUT/<shape>-<config>/ is an ordinary artifact (program.cu, harness_spec.json,
reconstructed.cu), so `python -m wino_tvm.batch` and `python -m wino_tvm.bench` check and time
it like the generated kernels: same data, float64 reference, poisoned output, cuDNN in the same
process.
"""

from __future__ import annotations

import sys
from pathlib import Path

from wino_tvm.harness import HarnessSpec, Launch, Workspace, write_artifact
from wino_tvm.tolerance import rel_l2_tolerance
from wino_tvm.workload import Conv2dWorkload

KERNEL = Path(__file__).with_name("f23_kernel.cu")
# v8: two MMA warpgroups (256 threads) and one transform warpgroup (128) that copies and transforms
BLOCK_ROWS, BLOCK_K, THREADS = 128, 64, 384
VERSION = "v8"
SMEM_LIMIT = 227 * 1024
# --ablate: the kernel without a part (f23_kernel.cu's F23_* switches; wrong results, timing only)
ABLATIONS = {"-ab_nomma": ("F23_MMA",), "-ab_notrans": ("F23_TRANSFORM",),
             "-ab_nox": ("F23_COPY_X",), "-ab_copyonly": ("F23_MMA", "F23_TRANSFORM")}


def smem_bytes(h: int, w: int, x_stages: int, v_stages: int) -> int:
    """kSmemBytes of f23_kernel.cu for this image size and ring depths (the kernel
    static_asserts they agree)."""
    t = (w + 1) // 2
    v_rows = BLOCK_ROWS + 2 * t  # the block's V rows: one V for both MMA warpgroups
    v_pitch = (v_rows + 3) // 8 * 8 + 4
    x_bytes = (((v_rows - 1) // t + 2) * (2 * t + 2) * 24 * 2 + 127) // 128 * 128
    v_bytes = 4 * 2 * v_pitch * 16
    # mbarriers: U's full[4] and empty[4], V's full and empty per stage
    bars = 2 * 4 + 2 * v_stages
    return 4 * 12 * 16 * BLOCK_K * 2 + x_stages * x_bytes + v_stages * v_bytes + 8 * bars


def spec(n: int, h: int, w: int, c: int, k: int, commit: str, x_stages: int = 3,
         v_stages: int = 3, ablation: str = "") -> HarnessSpec:
    smem = smem_bytes(h, w, x_stages, v_stages)
    shape = (f"namespace f23 {{\nconstexpr int kN = {n}, kH = {h}, kW = {w}, kC = {c}, "
             f"kK = {k}, kXStageCount = {x_stages}, kVStageCount = {v_stages}, "
             f"kLaunchSmemBytes = {smem};\n}}\n")
    config = f"fp16-fp32-f23-wgmma-r128-n64-c16-u4x{x_stages}v{v_stages}-{VERSION}"
    if ablation:
        shape = "".join(f"#define {macro} 0\n" for macro in ABLATIONS[ablation]) + shape
    rows = n * (h + 1) * ((w + 1) // 2)
    wl = Conv2dWorkload(n, h, w, c, k, "fp16", 2, "fp32")
    return HarnessSpec(
        n, h, w, c, k, "fp16", 2, "full", config + ablation, commit,
        rel_l2_tolerance(wl), shape + KERNEL.read_text(),
        (Workspace("U", "half", 12 * c * k),),
        (Launch("wino_f23_ktrans", ((c * k + 255) // 256, 1, 1), (256, 1, 1), 0, ("w", "U")),),
        (Launch("wino_f23_forward", (k // BLOCK_K, -(-rows // BLOCK_ROWS), 1), (THREADS, 1, 1),
                smem, ("x", "U", "y")),),
    )


def _depths(args: list[str], flag: str, default: list[int], allowed: range) -> list[int]:
    if flag not in args:
        return default
    at = args.index(flag)
    depths = [int(v) for v in args[at + 1].split(",")]
    del args[at:at + 2]
    bad = [d for d in depths if d not in allowed]
    if bad:
        raise SystemExit(f"{flag}: {bad} not in {allowed.start}..{allowed.stop - 1}")
    return depths


def main(argv: list[str]) -> int:
    out, commit, args = Path(argv[0]), argv[1], argv[2:]
    ablate = "--ablate" in args
    x_stages = _depths(args, "--x-stages", [3], range(2, 5))
    v_stages = _depths(args, "--v-stages", [3], range(2, 4))
    for arg in (a for a in args if a != "--ablate"):
        n, h, w, c, k = (int(v) for v in arg.split(","))
        for xs in x_stages:
            for vs in v_stages:
                if smem_bytes(h, w, xs, vs) > SMEM_LIMIT:
                    print(f"skipped N{n}_H{h}_W{w}_C{c}_K{k} u4x{xs}v{vs}: "
                          f"{smem_bytes(h, w, xs, vs)} bytes of shared memory", file=sys.stderr)
                    continue
                for ablation in ABLATIONS if ablate else ("",):
                    s = spec(n, h, w, c, k, commit, xs, vs, ablation)
                    d = out / f"N{n}_H{h}_W{w}_C{c}_K{k}-{s.config_name}"
                    write_artifact(s, d, {"reconstructed.cu": s.kernels_source})
                    print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
