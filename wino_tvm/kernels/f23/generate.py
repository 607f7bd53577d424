"""The F(2, 3) kernel for one workload and config: templates/f23_wgmma.cu filled, its U
workspace (and stream-K's partials and flags) and its launches (KTrans, the flags' clearing,
forward). TVM-free."""

from __future__ import annotations

from ...harness import TEMPLATES, Kernels, Launch, Workspace, fill_template, template_fills
from ...workload import OUTPUT_SCALE, Conv2dWorkload
from .config import SK_MAX_BLOCKS, SK_THREAD_FLOATS, WARPGROUP_ROWS, F23Config

TEMPLATE_PATH = TEMPLATES / "f23_wgmma.cu"
KTRANS_THREADS = 256
# U_jr: 4 taps x 3 filter rows per (c, k).
U_SLICES = 12


def f23_kernels(wl: Conv2dWorkload, cfg: F23Config) -> Kernels:
    """Fill the template for wl and cfg (validated here)."""
    cfg.validate(wl)
    inputs, fills = template_fills(wl)
    scaled = (OUTPUT_SCALE,) if OUTPUT_SCALE in wl.forward_inputs else ()
    stream_k = ("partials", "flags") if cfg.stream_k else ()
    params = [f"const {fills['X_T']}* __restrict__ x", "const half* __restrict__ U",
              *(f"const {fills['E_T']}* __restrict__ {name}" for name in inputs),
              *(["float* __restrict__ partials", "unsigned* __restrict__ flags"] if stream_k
                else []),
              *(f"const float* __restrict__ {name}" for name in scaled),
              f"{fills['Y_T']}* __restrict__ y"]
    source = fill_template(TEMPLATE_PATH.read_text(), {
        "CONFIG": cfg.name(wl),
        "N": str(wl.n), "H": str(wl.h), "W": str(wl.w), "C": str(wl.c), "K": str(wl.k),
        "X_STAGES": str(cfg.stages),
        "X_CHUNKS": str(cfg.x_chunks),
        "C_SPLITS": str(cfg.c_split),
        "PERSIST": "true" if cfg.persist else "false",
        "STREAM_K": "true" if cfg.stream_k else "false",
        "PRODUCER": "true" if cfg.producer else "false",
        "COMPACT_ROWS": "true" if cfg.compact_rows else "false",
        "ROW_PAIRS": "true" if cfg.row_pairs else "false",
        "STRIP_TILES": str(cfg.strip),
        "SK_MAX_BLOCKS": str(SK_MAX_BLOCKS),
        "SK_THREAD_FLOATS": str(SK_THREAD_FLOATS),
        "PARTIALS_ARG": "partials" if stream_k else "nullptr",
        "FLAGS_ARG": "flags" if stream_k else "nullptr",
        "CLUSTER_DIMS": f"__cluster_dims__(1, 1, {cfg.c_split})" if cfg.c_split > 1 else "",
        "ROW_PAD_BYTES": str(cfg.row_pad_bytes(wl)),
        **fills,
        "SMEM_BYTES": str(cfg.smem_bytes(wl)),
        "FORWARD_PARAMS": ", ".join(params),
    })
    ktrans = Launch("wino_f23_ktrans", (-(-wl.k * wl.c // KTRANS_THREADS), 1, 1),
                    (KTRANS_THREADS, 1, 1), 0, ("w", "U"))
    forward = Launch("wino_f23_forward", cfg.grid(wl), (cfg.threads(wl), 1, 1),
                     cfg.smem_bytes(wl), ("x", "U", *inputs, *stream_k, *scaled, "y"),
                     persistent=cfg.persist)
    workspaces = [Workspace("U", "half", U_SLICES * wl.c * wl.k)]
    weight_launches = [ktrans]
    if cfg.stream_k:
        # a slot of partial sums per block, a flag per block and warpgroup
        flags = SK_MAX_BLOCKS * (cfg.tb_m // WARPGROUP_ROWS)
        partials = SK_MAX_BLOCKS * cfg.threads(wl) * SK_THREAD_FLOATS
        workspaces += [Workspace("partials", "float", partials),
                       Workspace("flags", "unsigned", flags)]
        weight_launches.append(Launch("wino_f23_clear_flags", (-(-flags // KTRANS_THREADS), 1, 1),
                                      (KTRANS_THREADS, 1, 1), 0, ("flags",)))
    return Kernels(source, tuple(workspaces), tuple(weight_launches), (forward,))
