"""The generated sources' fingerprints: what a refactoring must leave byte-identical.

`python -m tests.golden_sources write` records the sha256 of every generated file (TVM's
prototype, the reconstructed kernels, the filled program with its commit masked) for each case
of the benchmark suites; `check` regenerates them all and compares (tests/test_golden_sources.py
checks one case per family and feature on every run). `--family lane` limits either to one
family's cases: an intended change to one family's sources rewrites only its hashes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "source_hashes.json"
HASHED_FILES = ("prototype.cu", "reconstructed.cu", "program.cu")
COMMIT_LINE = re.compile(r'(kCommitJson = )"[^\n]*";')


def case_key(shape: dict, config: str, epilogue: str, out: str) -> str:
    """'N1_H224_W224_C64_K64 <config> <epilogue> <out>': a case as records name it."""
    dims = "_".join(f"{k}{v}" for k, v in shape.items())
    return " ".join([dims, config, epilogue or "-", out or "-"])


def parse_key(key: str) -> tuple[dict, str, str, str]:
    dims, config, epilogue, out = key.split(" ")
    shape = {part[0]: int(part[1:]) for part in dims.split("_")}
    return shape, config, "" if epilogue == "-" else epilogue, "" if out == "-" else out


def fingerprints(key: str) -> dict[str, str]:
    """sha256 of each generated file of the case, the program's commit masked."""
    from wino_tvm.artifact import build_artifact
    from wino_tvm.kernels import parse_config
    from wino_tvm.workload import Conv2dWorkload, parse_epilogue

    shape, config, epilogue, out = parse_key(key)
    meta, cfg = parse_config(config)
    wl = Conv2dWorkload(**{k.lower(): v for k, v in shape.items()}, **meta,
                        epilogue=parse_epilogue(epilogue), out=out)
    with tempfile.TemporaryDirectory() as tmp:
        build_artifact(wl, cfg, Path(tmp), "sm_90", log=lambda _m: None)
        out = {}
        for name in HASHED_FILES:
            path = Path(tmp) / name
            if path.exists():
                text = COMMIT_LINE.sub(r'\1"<commit>";', path.read_text())
                out[name] = hashlib.sha256(text.encode()).hexdigest()
        return out


def family_of_key(key: str) -> str:
    from wino_tvm.kernels import parse_config

    return parse_config(parse_key(key)[1])[1].FAMILY


def suite_keys() -> list[str]:
    """Every case of the benchmark suites (wino_tvm.bench.suites), once."""
    from wino_tvm.bench.suites import SUITES
    from wino_tvm.workload import OUTPUTS, epilogue_text

    keys = {}
    for suite in SUITES.values():
        for wl, cfg in suite():
            out = "" if wl.out == OUTPUTS[wl.dtype][0] else wl.out
            keys[case_key(wl.shape_dict(), cfg.name(wl), epilogue_text(wl.epilogue), out)] = None
    return list(keys)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.golden_sources", description=__doc__)
    p.add_argument("mode", choices=("write", "check"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--family", action="append", help="only this family's cases (repeatable)")
    args = p.parse_args(argv)
    stored = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}
    keys = suite_keys() if args.mode == "write" else list(stored)
    if args.family:
        keys = [key for key in keys if family_of_key(key) in args.family]
    got, bad = {}, []
    with ProcessPoolExecutor(args.jobs) as pool:
        for i, (key, hashes) in enumerate(zip(keys, pool.map(fingerprints, keys), strict=True), 1):
            got[key] = hashes
            if args.mode == "check" and stored[key] != hashes:
                bad.append(key)
            print(f"[{i}/{len(keys)}] {'DIFF ' if key in bad else ''}{key}", flush=True)
    if args.mode == "write":
        got = {**stored, **got} if args.family else got
        FIXTURE.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} cases to {FIXTURE}")
        return 0
    print(f"{len(keys) - len(bad)} of {len(keys)} cases byte-identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
