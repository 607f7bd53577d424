"""One artifact folder from (workload, family config): the family's kernels, the filled
program around them, and config.json (how they were made)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .commit import commit_id
from .errors import WinoError
from .harness import workload_spec, write_artifact
from .kernels import FamilyConfig, generate
from .workload import OUTPUTS, Conv2dWorkload

CONFIG_FILE = "config.json"
RECONSTRUCTED_FILE = "reconstructed.cu"


def artifact_name(wl: Conv2dWorkload, cfg: FamilyConfig) -> str:
    """Folder name of one case: workload, config, epilogue and a non-default output type."""
    default_out = wl.out == OUTPUTS[wl.dtype][0]
    return "-".join([wl.key, cfg.name(wl), *(["_".join(wl.epilogue)] if wl.epilogue else []),
                     *([] if default_out else [f"out_{wl.out}"])])


def build_artifact(
    wl: Conv2dWorkload,
    cfg: FamilyConfig,
    out_dir: Path,
    arch: str = "sm_90",
    log=print,
    dropped_barriers: Sequence[str] = (),
) -> Path:
    """Generate the family's kernels and write the artifact; returns out_dir/program.cu."""
    options = {}
    if dropped_barriers:
        if cfg.FAMILY != "pkf":
            raise WinoError(f"--drop-barrier applies to TVM-generated kernels, not to the "
                            f"{cfg.FAMILY} family: drop the flag")
        options["dropped_barriers"] = tuple(dropped_barriers)
    made = generate(wl, cfg, arch, log, **options)
    steps = 3 if made.files else 2
    log(f"[{steps}/{steps}] harness: write {out_dir}")
    spec = workload_spec(wl, cfg.fusion, cfg.name(wl), commit_id(), made.kernels)
    config = {
        "config": cfg.name(wl),
        "family": cfg.FAMILY,
        "workload": wl.shape_dict(),
        "dtype": wl.dtype,
        "accum": wl.accum,
        "m": wl.m,
        "epilogue": list(wl.epilogue),
        "out": wl.out,
        "knobs": {name: list(v) if isinstance(v, tuple) else v
                  for name, v in cfg.as_dict().items()},
        "arch": arch,
        "tolerance_rel_l2": spec.tolerance,
        **made.record,
        "commit": spec.commit,
    }
    return write_artifact(spec, out_dir, {
        **made.files,
        RECONSTRUCTED_FILE: made.kernels.source,
        CONFIG_FILE: json.dumps(config, indent=2) + "\n",
    })
