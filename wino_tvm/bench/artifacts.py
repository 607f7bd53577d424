"""Benchmark artifacts against cuDNN on the GPU machine: results.jsonl, report.md, speedup.png.

python -m wino_tvm.bench ARTIFACTS_ROOT --out bench/h200/ [--workloads standard]
    [--workloads N,H,W,C,K ...] [--iters 100] [--warmup 10] [--jobs 16] [--arch sm_90]

Finds every artifact folder (harness_spec.json + reconstructed.cu) under ARTIFACTS_ROOT, builds
their shared libraries and the cuDNN helper in parallel (nvcc), then measures one workload at
a time, each in a fresh process (PyTorch; no TVM): the cuDNN baselines first, then the
artifacts, every output checked against float64 in the same run. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

from wino_tvm.bench import report
from wino_tvm.commit import commit_id
from wino_tvm.errors import WinoError
from wino_tvm.harness import SPEC_FILE
from wino_tvm.library import KERNELS_FILE, compile_library
from wino_tvm.runner import detect_arch

if TYPE_CHECKING:
    from wino_tvm.bench.timing import Options

Shape = tuple[int, int, int, int, int]  # N, H, W, C, K
RESULTS_FILE = "results.jsonl"
# The workloads: C=K=64 at N=1 (the paper's sizes) and N=8, ResNet's 3x3 layers.
STANDARD_WORKLOADS: tuple[Shape, ...] = (
    *((1, s, s, 64, 64) for s in (224, 448, 640, 960)),
    (8, 224, 224, 64, 64),
    *((n, s, s, c, c) for n in (32, 128) for s, c in ((56, 64), (28, 128), (14, 256), (7, 512))),
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def shape_dict(shape: Shape) -> dict[str, int]:
    return dict(zip("NHWCK", shape, strict=True))


def shape_key(shape: Shape) -> str:
    return report.workload_key(shape_dict(shape))


def discover(root: Path) -> dict[Shape, list[Path]]:
    """Artifact folders under root (each with harness_spec.json and reconstructed.cu), by shape."""
    groups: dict[Shape, list[Path]] = {}
    for spec_path in sorted(Path(root).rglob(SPEC_FILE)):
        folder = spec_path.parent
        if not (folder / KERNELS_FILE).is_file():
            log(f"skipping {folder}: no {KERNELS_FILE}")
            continue
        try:
            spec = json.loads(spec_path.read_text())
            shape = tuple(int(spec[key]) for key in "nhwck")
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise WinoError(f"{spec_path} is not a harness spec: {exc}") from exc
        groups.setdefault(shape, []).append(folder)
    return groups


def parse_shape(text: str) -> Shape:
    """'N,H,W,C,K' -> shape."""
    try:
        shape = tuple(int(v) for v in text.split(","))
    except ValueError:
        shape = ()
    if len(shape) != 5 or min(shape) <= 0:
        raise WinoError(f"workload {text!r} must be 'standard' or N,H,W,C,K (five positive "
                        "integers, e.g. 1,224,224,64,64)")
    return shape


def parse_workloads(items: Sequence[str]) -> list[Shape]:
    """'standard' or 'N,H,W,C,K' items -> shapes, in order, without repeats."""
    shapes: list[Shape] = []
    for item in items:
        new = STANDARD_WORKLOADS if item == "standard" else (parse_shape(item),)
        shapes += [s for s in new if s not in shapes]
    return shapes


def build_all(dirs: Sequence[Path], arch: str, jobs: int,
              helper_dir: Path) -> tuple[dict[Path, Path | str], Path | str]:
    """nvcc in parallel: each artifact's libwino.so and the cuDNN helper; errors as strings."""
    from wino_tvm.bench.cudnn import compile_helper

    def attempt(build, *args) -> Path | str:
        try:
            return build(*args)
        except WinoError as exc:
            return str(exc)

    log(f"building {len(dirs)} libraries and the cuDNN helper for {arch} with {jobs} jobs")
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        helper = pool.submit(attempt, compile_helper, helper_dir, arch)
        futures = {d: pool.submit(attempt, compile_library, d, arch) for d in dirs}
        libs = {}
        for i, (d, future) in enumerate(futures.items(), 1):
            libs[d] = future.result()
            failed = isinstance(libs[d], str)
            log(f"[build {i}/{len(dirs)}] {d.name}: {'FAILED' if failed else 'ok'}")
        helper_result = helper.result()
    if isinstance(helper_result, str):
        log(f"cuDNN helper not built, its baselines are marked unavailable: {helper_result}")
    return libs, helper_result


def measure_isolated(shape: Shape, artifacts: list[tuple[str, str | None, str | None]],
                     helper: Path | str, options: Options, commit: str) -> list[dict]:
    """measure.measure_workload in a fresh process, so that a crash or a sticky CUDA error in
    one workload cannot spoil the others; a crash leaves error records for its artifacts."""
    from wino_tvm.bench import measure  # PyTorch: GPU side only

    helper_path, helper_error = (str(helper), None) if isinstance(helper, Path) else (None, helper)
    context = multiprocessing.get_context("spawn")  # a CUDA context does not survive fork
    try:
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            return pool.submit(measure.measure_workload, shape, artifacts, helper_path,
                               helper_error, options, commit).result()
    except BrokenProcessPool as exc:
        log(f"the measuring process of {shape} died: {exc}")
        return [{**measure.wino_record(Path(artifact)), "workload": shape_dict(shape),
                 "status": "error", "correct": False, "median_us": None,
                 "error": f"measuring process died: {exc}"} for artifact, _, _ in artifacts]


def write_records(path: Path, records: Sequence[dict]) -> None:
    with path.open("a") as f:
        for record in records:
            f.write(json.dumps(report.derive(record)) + "\n")


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("root", type=Path, help="folder holding artifact folders")
    p.add_argument("--out", type=Path, required=True,
                   help=f"folder for {RESULTS_FILE} (overwritten), report.md and speedup.png")
    p.add_argument("--workloads", nargs="+", default=[],
                   help="'standard' and/or N,H,W,C,K shapes (default: the artifacts' shapes); "
                        "shapes without artifacts get the baselines only")
    p.add_argument("--iters", type=int, default=100, help="timed calls per variant (median)")
    p.add_argument("--warmup", type=int, default=10, help="untimed calls first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel nvcc builds")
    p.add_argument("--arch", help="e.g. sm_90 (default: detected with nvidia-smi)")
    p.add_argument("--commit", help="commit for the baselines' records (default: this "
                   "checkout's, else the artifacts' if they agree)")
    args = p.parse_args(argv)
    if args.iters < 1 or args.warmup < 0:
        p.error("--iters must be >= 1 and --warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: 0 when every artifact variant is correct, 1 if not, 2 on errors."""
    args = _parse_args(argv)
    try:
        groups = discover(args.root)
        shapes = parse_workloads(args.workloads) if args.workloads else sorted(groups)
        if not shapes:
            raise WinoError(f"no artifacts under {args.root} and no --workloads given")
        for shape in shapes:
            if shape not in groups:
                log(f"{shape_key(shape)}: no artifacts, baselines only")
        arch = args.arch or detect_arch()
        try:
            from wino_tvm.bench.timing import Options  # PyTorch: GPU side only
        except ImportError as exc:
            raise WinoError(f"the benchmark needs PyTorch with CUDA ({exc})") from exc
        options = Options(warmup=args.warmup, iters=args.iters, seed=args.seed)
    except WinoError as exc:
        log(f"error: {exc}")
        return 2
    dirs = [d for shape in shapes for d in groups.get(shape, [])]
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / RESULTS_FILE
    results.write_text("")
    commit = args.commit or commit_id()
    if commit == "unknown":  # e.g. a copy without .git: the artifacts' commit, if they agree
        commits = {json.loads((d / SPEC_FILE).read_text()).get("commit") for d in dirs}
        commit = commits.pop() if len(commits) == 1 else commit
    records: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="wino-bench-") as helper_dir:
        libs, helper = build_all(dirs, arch, args.jobs, Path(helper_dir))
        for i, shape in enumerate(shapes, 1):
            # (folder, library or None, build error or None) per artifact
            artifacts = [(str(d), str(libs[d]), None) if isinstance(libs[d], Path)
                         else (str(d), None, libs[d]) for d in groups.get(shape, [])]
            log(f"[workload {i}/{len(shapes)}] {shape_key(shape)}: {len(artifacts)} artifacts "
                "+ baselines")
            new = measure_isolated(shape, artifacts, helper, options, commit)
            write_records(results, new)
            records += new
    paths = report.write_report(records, args.out)
    ours = [r for r in records if not report.is_baseline(r)]
    bad = [r for r in ours if not r.get("correct")]
    log(f"wrote {results}, {paths['markdown']}, {paths['plot']}; "
        f"{len(ours) - len(bad)}/{len(ours)} artifact variants correct")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
