"""The F(2, 3) kernel for one workload and config: templates/f23_wgmma.cu filled, its U
workspace and its two launches (KTrans, forward). TVM-free."""

from __future__ import annotations

from pathlib import Path

from .config import KernelConfig
from .harness import Kernels, Launch, Workspace, epilogue_fills, fill_template
from .workload import Conv2dWorkload

TEMPLATE_PATH = Path(__file__).resolve().parents[1] / "templates" / "f23_wgmma.cu"
KTRANS_THREADS = 256
# U_jr: 4 taps x 3 filter rows per (c, k).
U_SLICES = 12


def f23_kernels(wl: Conv2dWorkload, cfg: KernelConfig) -> Kernels:
    """Fill the template for wl and cfg (cfg.f23; validated here)."""
    cfg.validate(wl)
    inputs, epilogue = epilogue_fills(wl)
    params = ["const half* __restrict__ x", "const half* __restrict__ U",
              *(f"const half* __restrict__ {name}" for name in inputs), "half* __restrict__ y"]
    source = fill_template(TEMPLATE_PATH.read_text(), {
        "CONFIG": cfg.name(wl),
        "N": str(wl.n), "H": str(wl.h), "W": str(wl.w), "C": str(wl.c), "K": str(wl.k),
        "X_STAGES": str(cfg.stages),
        "C_SPLITS": str(cfg.c_split),
        "PERSIST": "true" if cfg.persist else "false",
        "CLUSTER_DIMS": f"__cluster_dims__(1, 1, {cfg.c_split})" if cfg.c_split > 1 else "",
        **epilogue,
        "SMEM_BYTES": str(cfg.smem_bytes(wl)),
        "FORWARD_PARAMS": ", ".join(params),
    })
    ktrans = Launch("wino_f23_ktrans", (-(-wl.k * wl.c // KTRANS_THREADS), 1, 1),
                    (KTRANS_THREADS, 1, 1), 0, ("w", "U"))
    forward = Launch("wino_f23_forward", cfg.f23_grid(wl), (cfg.threads(wl), 1, 1),
                     cfg.smem_bytes(wl), ("x", "U", *inputs, "y"), persistent=cfg.persist)
    return Kernels(source, (Workspace("U", "half", U_SLICES * wl.c * wl.k),), (ktrans,),
                   (forward,))
