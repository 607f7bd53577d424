"""Build an artifact folder: TVM prototype -> reconstructor -> filled harness (+ config.json)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from reconstructor.barriers import barrier_sites, remove_barriers
from reconstructor.pipeline import reconstruct

from .codegen import Prototype, generate
from .commit import commit_id
from .config import KernelConfig
from .errors import WinoError
from .f23 import f23_kernels
from .harness import Kernels, Launch, Workspace, workload_spec, write_artifact
from .lane import lane_kernels
from .schedule import scheduled_module
from .workload import Conv2dWorkload

C_TYPES = {"fp16": "half", "int8": "int8_t", "fp32": "float", "int32": "int"}
CONFIG_FILE = "config.json"
PROTOTYPE_FILE = "prototype.cu"
RECONSTRUCTED_FILE = "reconstructed.cu"


def workspaces(wl: Conv2dWorkload, cfg: KernelConfig,
               launches: Sequence[Launch]) -> tuple[Workspace, ...]:
    """Intermediate buffers the host allocates (TVM kernels take them as parameters): those
    the launches name (the full kernel reads U alone; V and M never leave the SM)."""
    a2, ntp = wl.alpha * wl.alpha, wl.ntiles_padded(cfg.tb_m)
    every = [
        Workspace("V", C_TYPES[wl.dtype], a2 * ntp * wl.c),
        Workspace("U", C_TYPES[wl.dtype], a2 * wl.k * wl.c),
        # KTrans's U where a weight kernel reorders it (reconstructor.fragment_order)
        Workspace("U_kc", C_TYPES[wl.dtype], a2 * wl.k * wl.c),
        Workspace("M", C_TYPES[wl.accum], a2 * ntp * wl.k),
    ]
    if wl.dtype == "int8":
        every.append(Workspace("U_scale", "float", a2 * wl.k))
    named = {arg for launch in launches for arg in launch.args}
    return tuple(ws for ws in every if ws.name in named)


def _launch(entry: dict) -> Launch:
    return Launch(entry["name"], tuple(entry["grid"]), tuple(entry["block"]),
                  entry["shared_bytes"], tuple(entry["params"]), entry.get("persistent", False))


def drop_barriers(source: str, labels: list[str]) -> str:
    """Delete barriers labelled 'kernel:index[:call]' (as the GPU sync search records them)."""
    sites = {(s.kernel, s.index): s for s in barrier_sites(source)}
    chosen = []
    for label in labels:
        kernel, _, rest = label.partition(":")
        index = rest.split(":")[0]
        site = sites.get((kernel, int(index))) if index.isdigit() else None
        if site is None:
            raise WinoError(f"--drop-barrier {label!r}: no such barrier; the kernels have "
                            f"{', '.join(f'{k}:{i}' for k, i in sites) or 'none'}")
        chosen.append(site)
    return remove_barriers(source, chosen)


# A generator's kernels, what config.json records of how it got them, and its extra files.
Generated = tuple[Kernels, dict, dict[str, str]]


def _tvm_kernels(wl: Conv2dWorkload, cfg: KernelConfig, arch: str, log,
                 dropped_barriers: tuple[str, ...]) -> Generated:
    """TVM prototype -> reconstructor (every config but lane)."""
    log(f"[1/3] TVM: schedule {cfg.name(wl)} and generate CUDA for {arch}")
    prototype: Prototype = generate(scheduled_module(wl, cfg), arch)
    log(f"[2/3] reconstructor: fusion={cfg.fusion}")
    launches = [asdict(k) for k in prototype.launches]
    rebuilt = reconstruct(prototype.source, launches, cfg.fusion, persist=cfg.persist,
                          async_u=cfg.async_u, groups=cfg.groups, k_split=cfg.k_split,
                          input_pipeline=cfg.pipelines_input(wl),
                          u_rows=wl.alpha * wl.alpha * wl.k, min_blocks=cfg.min_blocks)
    kernels = drop_barriers(rebuilt.source, list(dropped_barriers))
    weight = tuple(_launch(e) for e in rebuilt.weight_launches)
    forward = tuple(_launch(e) for e in rebuilt.forward_launches)
    record = {
        "prototype_launches": launches,
        "weight_launches": list(rebuilt.weight_launches),
        "forward_launches": list(rebuilt.forward_launches),
        "removed_barriers": [*rebuilt.removed_barriers,
                             *(f"{b} deleted (--drop-barrier)" for b in dropped_barriers)],
    }
    return (Kernels(kernels, workspaces(wl, cfg, weight + forward), weight, forward), record,
            {PROTOTYPE_FILE: prototype.source})


def _template_kernels(wl: Conv2dWorkload, cfg: KernelConfig, log,
                      dropped_barriers: tuple[str, ...]) -> Generated:
    """A template filled, no TVM prototype: templates/lane_layout.cu (wino_tvm.lane says why)
    or templates/f23_wgmma.cu (wino_tvm.f23)."""
    kind, template, fill = (("f23", "f23_wgmma.cu", f23_kernels) if cfg.f23 else
                            ("lane", "lane_layout.cu", lane_kernels))
    if dropped_barriers:
        raise WinoError(f"--drop-barrier applies to TVM-generated kernels, not to {kind} "
                        "configs: drop the flag")
    log(f"[1/2] {kind}: fill templates/{template} for {cfg.name(wl)}")
    kernels = fill(wl, cfg)
    record = {
        "prototype_launches": [],
        "weight_launches": [asdict(launch) for launch in kernels.weight_launches],
        "forward_launches": [asdict(launch) for launch in kernels.forward_launches],
        "removed_barriers": [],
    }
    return kernels, record, {}


def build_artifact(
    wl: Conv2dWorkload,
    cfg: KernelConfig,
    out_dir: Path,
    arch: str = "sm_90",
    log=print,
    dropped_barriers: tuple[str, ...] = (),
) -> Path:
    """Generate (TVM and the reconstructor, or a template) and write the artifact;
    returns out_dir/program.cu."""
    cfg.validate(wl)
    templated = cfg.lane or cfg.f23
    if templated:
        kernels, record, files = _template_kernels(wl, cfg, log, dropped_barriers)
    else:
        kernels, record, files = _tvm_kernels(wl, cfg, arch, log, dropped_barriers)
    steps = 2 if templated else 3
    log(f"[{steps}/{steps}] harness: write {out_dir}")
    spec = workload_spec(wl, cfg.fusion, cfg.name(wl), commit_id(), kernels)
    config = {
        "config": cfg.name(wl),
        "workload": wl.shape_dict(),
        "dtype": wl.dtype,
        "accum": wl.accum,
        "m": wl.m,
        "epilogue": list(wl.epilogue),
        "out": wl.out,
        "knobs": cfg.as_dict(),
        "arch": arch,
        "tolerance_rel_l2": spec.tolerance,
        **record,
        "commit": spec.commit,
    }
    return write_artifact(spec, out_dir, {
        **files,
        RECONSTRUCTED_FILE: kernels.source,
        CONFIG_FILE: json.dumps(config, indent=2) + "\n",
    })
