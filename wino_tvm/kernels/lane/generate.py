"""The lane-layout full kernel for one workload and config: templates/lane_layout.cu filled,
its U workspace and its two launches (KTrans, forward). TVM-free."""

from __future__ import annotations

from ...device import WGMMA_ARCH
from ...harness import TEMPLATES, Kernels, Launch, Workspace, fill_template, template_fills
from ...workload import OUTPUT_SCALE, Conv2dWorkload
from .config import LaneConfig

TEMPLATE_PATH = TEMPLATES / "lane_layout.cu"
KTRANS_THREADS = 256


def lane_kernels(wl: Conv2dWorkload, cfg: LaneConfig) -> Kernels:
    """Fill the template for wl and cfg (validated here)."""
    cfg.validate(wl)
    inputs, fills = template_fills(wl)
    scaled = OUTPUT_SCALE in wl.forward_inputs
    params = [*(["const __grid_constant__ CUtensorMap x_map"] if cfg.tma else []),
              f"const {fills['X_T']}* __restrict__ x", "const half* __restrict__ U",
              *(f"const {fills['E_T']}* __restrict__ {name}" for name in inputs),
              *([f"const float* __restrict__ {OUTPUT_SCALE}"] if scaled else []),
              f"{fills['Y_T']}* __restrict__ y"]
    source = fill_template(TEMPLATE_PATH.read_text(), {
        "CONFIG": cfg.name(wl),
        # wino_tvm.runner compiles a program with this line for the arch-specific target.
        "NEEDS_ARCH": f"// wino-tvm: needs {WGMMA_ARCH}" if cfg.needs_sm90a else "",
        "TMA": str(int(cfg.tma)),
        **fills, "PIXEL_PAD": str(cfg.pixel_pad(wl)),
        "N": str(wl.n), "H": str(wl.h), "W": str(wl.w), "C": str(wl.c), "K": str(wl.k),
        "WARP_K": str(cfg.tb_n), "K_SLICES": str(cfg.k_split), "GROUPS": str(cfg.groups),
        "TAP_SPLIT": str(cfg.tap_split), "EXCHANGE_OWN": str(cfg.exchange_own).lower(),
        "STACK": str(cfg.stack).lower(),
        "CHUNK_C": str(cfg.tb_k), "STAGES": str(cfg.stages),
        "F32_ACC": str(wl.accum == "fp32").lower(), "WGMMA": str(cfg.wgmma).lower(),
        "SMEM_BYTES": str(cfg.smem_bytes(wl)),
        "FORWARD_PARAMS": ", ".join(params),
        "X_MAP_ARG": "&x_map" if cfg.tma else "nullptr",
    })
    u_count = wl.alpha * wl.alpha * wl.k * wl.c
    ktrans = Launch("wino_lane_ktrans", (-(-wl.k * wl.c // KTRANS_THREADS), 1, 1),
                    (KTRANS_THREADS, 1, 1), 0, ("w", "U"))
    # grid.x counts block-sized sets of tile groups; persistent: the harness launches as many
    # as stay resident and the kernel loops over the rest.
    # TMA: x's tensor map, built on the host per x (wino_lane_x_map), goes first.
    x_map = ("wino_lane_x_map(x)",) if cfg.tma else ()
    forward = Launch("wino_lane_forward", (*cfg.grid(wl), 1), (cfg.threads(wl), 1, 1),
                     cfg.smem_bytes(wl),
                     (*x_map, "x", "U", *inputs, *([OUTPUT_SCALE] if scaled else []), "y"),
                     persistent=True)
    return Kernels(source, (Workspace("U", "half", u_count),), (ktrans,), (forward,))
