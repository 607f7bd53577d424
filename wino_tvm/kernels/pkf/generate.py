"""The TVM family's kernels: TVM's prototype for the config, rewritten by the reconstructor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict

from ...errors import WinoError
from ...harness import Kernels, Launch, Workspace
from ...workload import Conv2dWorkload
from ..base import Generated
from .config import PkfConfig
from .reconstructor.barriers import barrier_sites, remove_barriers
from .reconstructor.pipeline import Options, reconstruct

C_TYPES = {"fp16": "half", "int8": "int8_t", "fp32": "float", "int32": "int"}
PROTOTYPE_FILE = "prototype.cu"


def workspaces(wl: Conv2dWorkload, cfg: PkfConfig,
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


def drop_barriers(source: str, labels: Sequence[str]) -> str:
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


def reconstruct_options(wl: Conv2dWorkload, cfg: PkfConfig) -> Options:
    """What the reconstructor's passes do for cfg."""
    return Options(cfg.fusion, persist=cfg.persist, async_u=cfg.async_u, groups=cfg.groups,
                   k_split=cfg.k_split, input_pipeline=cfg.pipelines_input(wl),
                   u_rows=wl.alpha * wl.alpha * wl.k, min_blocks=cfg.min_blocks)


def pkf_kernels(wl: Conv2dWorkload, cfg: PkfConfig, arch: str, log: Callable[[str], None],
                dropped_barriers: Sequence[str] = ()) -> Generated:
    """TVM prototype -> reconstructor -> the kernels, their launches and workspaces."""
    from .codegen import generate  # TVM: imported only here, so the family loads without it
    from .schedule import scheduled_module

    log(f"[1/3] TVM: schedule {cfg.name(wl)} and generate CUDA for {arch}")
    prototype = generate(scheduled_module(wl, cfg), arch)
    log(f"[2/3] reconstructor: fusion={cfg.fusion}")
    launches = [asdict(k) for k in prototype.launches]
    rebuilt = reconstruct(prototype.source, launches, reconstruct_options(wl, cfg))
    source = drop_barriers(rebuilt.source, dropped_barriers)
    weight = tuple(_launch(e) for e in rebuilt.weight_launches)
    forward = tuple(_launch(e) for e in rebuilt.forward_launches)
    record = {
        "prototype_launches": launches,
        "weight_launches": list(rebuilt.weight_launches),
        "forward_launches": list(rebuilt.forward_launches),
        "removed_barriers": [*rebuilt.removed_barriers,
                             *(f"{b} deleted (--drop-barrier)" for b in dropped_barriers)],
    }
    kernels = Kernels(source, workspaces(wl, cfg, weight + forward), weight, forward)
    return Generated(kernels, record, {PROTOTYPE_FILE: prototype.source})
