"""The F(4x4) kernels for one workload and config: templates/f44_nonfused.cu filled with the
transform matrices of wino_tvm/math/winograd.py, its workspaces (V, M, U) and its launches
(KTrans; ITrans, BGEMM, OTrans). TVM-free."""

from __future__ import annotations

import numpy as np

from ...harness import COMMON, TEMPLATES, Kernels, Launch, Workspace, epilogue_fills, fill_template
from ...math.winograd import tap_scale_exponents, transform_matrices
from ...workload import Conv2dWorkload
from .config import (
    ITRANS_PATCH,
    ITRANS_SLICE,
    ITRANS_THREADS,
    OTRANS_CHANNELS,
    TRANSFORM_THREADS,
    F44Config,
    M,
    tiles,
)
from .shared_sums import c_function

TEMPLATE_PATH = TEMPLATES / "f44_nonfused.cu"


def c_matrix(mat: np.ndarray) -> str:
    """A float64 matrix as a C float initialiser (each entry's shortest round-trip decimal;
    B and A are exact in binary, G's thirds and fifteenths round to float)."""
    return "{" + ", ".join("{" + ", ".join(f"{float(v)!r}f" for v in row) + "}"
                           for row in mat) + "}"


def transform_threads(count: int) -> tuple[int, int, int]:
    return -(-count // TRANSFORM_THREADS), 1, 1


def f44_kernels(wl: Conv2dWorkload, cfg: F44Config) -> Kernels:
    """Fill the template for wl and cfg (validated here)."""
    cfg.validate(wl)
    inputs, fills = epilogue_fills(wl)
    a, b, g = transform_matrices(M)
    params = ["const half* __restrict__ M",
              *(f"const half* __restrict__ {name}" for name in inputs), "half* __restrict__ y"]
    source = fill_template(TEMPLATE_PATH.read_text(), {
        "CONFIG": cfg.name(wl),
        "N": str(wl.n), "H": str(wl.h), "W": str(wl.w), "C": str(wl.c), "K": str(wl.k),
        "BLOCK_M": str(cfg.block_m), "BLOCK_N": str(cfg.block_n), "STAGES": str(cfg.stages),
        "PERSIST": "true" if cfg.persist else "false",
        "SMEM_BYTES": str(cfg.smem_bytes(wl)),
        "ITRANS_ITEMS": str(cfg.itrans_items(wl)), "ITRANS_THREADS": str(ITRANS_THREADS),
        "PATCH_H": str(ITRANS_PATCH[0]), "PATCH_W": str(ITRANS_PATCH[1]),
        "SLICE_C": str(ITRANS_SLICE), "OTRANS_CHANNELS": str(OTRANS_CHANNELS),
        "B_T": c_matrix(b.T), "G": c_matrix(g), "A_T": c_matrix(a.T),
        "TAP_SCALE": c_matrix(2.0 ** -tap_scale_exponents(M)),
        "BT_APPLY": c_function(b.T, "bt_apply"),
        "E_T": "half", "OTRANS_PARAMS": ", ".join(params),
        "PTX": (COMMON / "ptx.cuh").read_text().rstrip("\n"),
        **fills,
    })
    ktrans = Launch("wino_f44_ktrans", transform_threads(wl.c * wl.k), (TRANSFORM_THREADS, 1, 1),
                    0, ("w", "U"))
    itrans = Launch("wino_f44_itrans", (cfg.itrans_items(wl), 1, 1), (ITRANS_THREADS, 1, 1), 0,
                    ("x", "V"), persistent=True)
    bgemm = Launch("wino_f44_bgemm", cfg.grid(wl), (cfg.threads(), 1, 1), cfg.smem_bytes(wl),
                   ("V", "U", "M"), persistent=cfg.persist, early=True)
    otrans = Launch("wino_f44_otrans", transform_threads(tiles(wl) * wl.k // OTRANS_CHANNELS),
                    (TRANSFORM_THREADS, 1, 1), 0, ("M", *inputs, "y"), early=True)
    workspaces = tuple(Workspace(name, "half", count)
                       for name, count in cfg.workspace_elements(wl).items())
    return Kernels(source, workspaces, (ktrans,), (itrans, bgemm, otrans))
