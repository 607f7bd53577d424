"""GPU search for removable barriers (paper, after step 8); TVM-free, runs on the GPU machine.

python -m reconstructor.sync_search ARTIFACT_DIR [--checks 3] [--no-racecheck]

Each barrier of the forward kernels is deleted alone, the program rebuilt and checked against
the float64 reference on fresh inputs; the deletions that pass are then applied together and
checked again on other fresh inputs and with compute-sanitizer's racecheck (a deletion that
passes once can still be a race). Kept deletions are written to config.json so a build can
reproduce them without a GPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from wino_tvm.errors import WinoError
from wino_tvm.harness import HarnessSpec, write_artifact
from wino_tvm.library import load_spec
from wino_tvm.runner import compile_program, detect_arch, run_program

from .barriers import Site, barrier_sites, remove_barriers

CONFIG_FILE = "config.json"
KERNELS_FILE = "reconstructed.cu"
RESULT_FILE = "sync_search.json"


def site_label(site: Site) -> str:
    return f"{site.kernel}:{site.index}:{site.call}"


def _variant(spec: HarnessSpec, drop: list[Site], out: Path, arch: str) -> Path:
    """Write and compile the program without the barriers in drop; returns the binary."""
    source = remove_barriers(spec.kernels_source, drop)
    write_artifact(dataclasses.replace(spec, kernels_source=source), out)
    return compile_program(out, arch)


def _correct(binary: Path, checks: int, seed: int) -> tuple[bool, dict]:
    record = run_program(binary, ["--checks", str(checks), "--seed", str(seed), "--no-time"],
                         timeout_s=300)
    return bool(record.get("correct")), record


def racecheck(binary: Path) -> tuple[bool | None, str]:
    """(no hazard?, summary) from compute-sanitizer racecheck; None when it is not installed."""
    tool = shutil.which("compute-sanitizer")
    if tool is None:
        return None, "compute-sanitizer not found: racecheck not run"
    proc = subprocess.run([tool, "--tool", "racecheck", str(binary), "--checks", "1",
                           "--no-time"], capture_output=True, text=True, timeout=900)
    summary = [ln for ln in proc.stdout.splitlines() if "RACECHECK SUMMARY" in ln]
    text = summary[-1].strip() if summary else proc.stdout[-500:]
    return proc.returncode == 0 and " 0 hazards" in text, text


def search(artifact: Path, arch: str, checks: int, use_racecheck: bool, log=print) -> dict:
    """Run the search on one artifact folder; returns (and writes) the result record."""
    spec = load_spec(artifact)
    forward = {launch.kernel for launch in spec.forward_launches}
    sites = [s for s in barrier_sites(spec.kernels_source) if s.kernel in forward]
    work = artifact / "sync_search"
    log(f"{artifact.name}: {len(sites)} barriers in the forward kernels")

    def build(site: Site):
        try:
            return _variant(spec, [site], work / f"{site.kernel}-{site.index}", arch), None
        except WinoError as exc:
            return None, str(exc)

    with ThreadPoolExecutor() as pool:
        built = list(pool.map(build, sites))
    trials, passing = [], []
    for i, (site, (binary, error)) in enumerate(zip(sites, built, strict=True)):
        ok = False
        if binary is not None:
            ok, record = _correct(binary, checks, seed=1000 + 10 * i)
            error = None if ok else f"rel_l2_err {record.get('rel_l2_err')}"
        log(f"  delete {site_label(site)}: {'passes' if ok else 'fails (' + str(error) + ')'}")
        trials.append({"site": site_label(site), "passed": ok, "detail": error})
        if ok:
            passing.append(site)

    kept: list[Site] = []
    race_note = "no deletion passed: nothing to racecheck"
    # Deletions that pass alone may fail together; add them one at a time, keeping each only
    # if the accumulated program still passes fresh checks and racecheck.
    for j, site in enumerate(passing):
        binary = _variant(spec, [*kept, site], work / f"combined-{j}", arch)
        ok, _ = _correct(binary, checks, seed=5000 + 10 * j)
        race_ok, race_note = racecheck(binary) if use_racecheck else (None, "racecheck skipped")
        keep = ok and race_ok is not False
        log(f"  with {site_label(site)} added: checks {'pass' if ok else 'fail'}; {race_note}"
            f" -> {'kept' if keep else 'restored'}")
        if keep:
            kept.append(site)

    result = {
        "arch": arch,
        "checks_per_trial": checks,
        "trials": trials,
        "removed": [site_label(s) for s in kept],
        "racecheck": race_note,
    }
    if kept:
        source = remove_barriers(spec.kernels_source, kept)
        write_artifact(dataclasses.replace(spec, kernels_source=source), artifact)
        (artifact / KERNELS_FILE).write_text(source)
    config = json.loads((artifact / CONFIG_FILE).read_text())
    deleted = [f"{label} deleted (sync search)" for label in result["removed"]]
    config["removed_barriers"] = [*config.get("removed_barriers", []), *deleted]
    (artifact / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    (artifact / RESULT_FILE).write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reconstructor.sync_search", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifacts", type=Path, nargs="+", help="artifact folders")
    p.add_argument("--checks", type=int, default=3, help="fresh inputs per check (>= 3)")
    p.add_argument("--no-racecheck", action="store_true")
    p.add_argument("--arch", help="default: detected")
    args = p.parse_args(argv)
    if args.checks < 3:
        print("error: --checks must be at least 3 (a single pass can hide a race)",
              file=sys.stderr)
        return 2
    try:
        arch = args.arch or detect_arch()
        for artifact in args.artifacts:
            result = search(artifact, arch, args.checks, not args.no_racecheck)
            print(json.dumps({"artifact": artifact.name, **result}))
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
