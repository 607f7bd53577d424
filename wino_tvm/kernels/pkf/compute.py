"""TE compute for the four Winograd stages in the BGEMM layout (design brief section 1).

ITrans  x[N,H,W,C]          -> V[alpha, alpha, ntiles_pad, C]   (N images of padded tile rows)
KTrans  w[3,3,C,K] (HWIO)   -> U[alpha, alpha, K, C]   (+ U_scale[alpha, alpha, K] for int8)
BGEMM   V, U                -> M[alpha, alpha, ntiles_pad, K]
OTrans  M (+ bias, residual) -> y[N,H,W,K]   (epilogue: + bias[k] + residual, relu)
Each stage is its own PrimFunc so each gets its own schedule and its own CUDA kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from tvm import te, tirx
from tvm.topi.utils import const_matrix

from ...math import quant
from ...math.winograd import transform_matrices
from ...workload import OUTPUT_SCALE, Conv2dWorkload

TVM_DTYPE = {"fp32": "float32", "fp16": "float16", "int8": "int8", "int32": "int32"}


@dataclass(frozen=True)
class StageDtypes:
    """TVM dtypes of each tensor for one workload precision."""

    storage: str  # x, w, V, U
    accum: str  # BGEMM accumulator and M
    out: str  # y

    @classmethod
    def of(cls, wl: Conv2dWorkload) -> StageDtypes:
        return cls(TVM_DTYPE[wl.dtype], TVM_DTYPE[wl.accum], TVM_DTYPE[wl.out])


def _tile_origin(wl: Conv2dWorkload, t, stride: int):
    """(image, row, col) of the top-left input pixel (before padding) of Winograd tile row t
    (images `stride` rows apart), and whether t is a real tile."""
    b = t // stride
    r = t % stride
    # One of the two is always true (TVM drops it): images back to back, or each padded.
    real = tirx.all(r < wl.tiles_per_image, t < wl.n * stride)
    return b, r // wl.tiles_w * wl.m - 1, r % wl.tiles_w * wl.m - 1, real


def input_tiles(x: te.Tensor, wl: Conv2dWorkload, ntiles_multiple: int) -> te.Tensor:
    """d[t, r1, r2, c]: zero-padded alpha x alpha input tiles; padded tile rows are all zero."""
    zero = tirx.const(0, x.dtype)
    stride = wl.image_tile_stride(ntiles_multiple)

    def tile(t, r1, r2, c):
        b, row, col, real = _tile_origin(wl, t, stride)
        i, j = row + r1, col + r2
        inside = tirx.all(real, i >= 0, i < wl.h, j >= 0, j < wl.w)
        return tirx.if_then_else(inside, x[b, i, j, c], zero)

    return te.compute((wl.ntiles_padded(ntiles_multiple), wl.alpha, wl.alpha, wl.c), tile,
                      name="d")


def _matrices(wl: Conv2dWorkload):
    """A, B, G of wl's scheme; int8's B integer, so that its input transform sums exactly."""
    return transform_matrices(wl.m, integer_b=wl.dtype == "int8")


def itrans_work_dtype(wl: Conv2dWorkload, half_itrans: bool = True) -> str:
    """Arithmetic type of V = B^T d B: int32 for int8 (exact); with half_itrans fp16 for fp16
    with m=2, whose B is 0/+-1, so V is d's sums and differences (three fp16 roundings instead
    of one, and no half-float conversions: 39% fewer instructions per warp in the fused kernel);
    else float32."""
    if wl.dtype == "int8":
        return "int32"
    return "float16" if half_itrans and (wl.dtype, wl.m) == ("fp16", 2) else "float32"


def input_transform(x: te.Tensor, wl: Conv2dWorkload, ntiles_multiple: int,
                    half_itrans: bool = True) -> te.Tensor:
    """V = B^T d B per tile; int8 sums exactly in int32 (B is integer) then requantises per tap."""
    dt = StageDtypes.of(wl)
    d = input_tiles(x, wl, ntiles_multiple)
    ntiles_pad = wl.ntiles_padded(ntiles_multiple)
    _, b_np, _ = _matrices(wl)
    integer = wl.dtype == "int8"
    work = itrans_work_dtype(wl, half_itrans)
    b_mat = const_matrix(b_np.astype(work), "B")
    # Separable: T = d B (rows), then V = B^T T, 2 alpha^3 instead of alpha^4 multiply-adds.
    r2 = te.reduce_axis((0, wl.alpha), name="r2")
    d_b = te.compute(
        (ntiles_pad, wl.alpha, wl.alpha, wl.c),
        lambda t, r1, w, c: te.sum(d[t, r1, r2, c].astype(work) * b_mat[r2, w], axis=r2),
        name="dB",
    )
    r1 = te.reduce_axis((0, wl.alpha), name="r1")
    v_acc = te.compute(
        (wl.alpha, wl.alpha, ntiles_pad, wl.c),
        lambda h, w, t, c: te.sum(b_mat[r1, h] * d_b[t, r1, w, c], axis=r1),
        name="V_acc",
    )
    if not integer:
        return te.compute(v_acc.shape, lambda *i: v_acc(*i).astype(dt.storage), name="V")
    inv_scale = const_matrix(quant.input_tap_inv_scales(wl.m), "V_inv_scale")
    return te.compute(
        v_acc.shape,
        lambda h, w, t, c: quant.saturate_int8(
            v_acc[h, w, t, c].astype("float32") * inv_scale[h, w]
        ),
        name="V",
    )


def kernel_transform(w: te.Tensor, wl: Conv2dWorkload) -> list[te.Tensor]:
    """[U] = G g G^T (float32 math); int8 gives [U, U_scale] quantised per tap and out channel."""
    dt = StageDtypes.of(wl)
    _, _, g_np = _matrices(wl)
    g_mat = const_matrix(g_np.astype("float32"), "G")
    # Written out as 9 terms rather than a reduction, so schedules can inline it into both
    # consumers (the int8 absmax and the quantiser) instead of keeping a float32 buffer.
    u_f32 = te.compute(
        (wl.alpha, wl.alpha, wl.k, wl.c),
        lambda h, v, k, c: sum(
            g_mat[h, r1] * w[r1, r2, c, k].astype("float32") * g_mat[v, r2]
            for r1 in range(3)
            for r2 in range(3)
        ),
        name="U_f32",
    )
    if wl.dtype != "int8":
        return [te.compute(u_f32.shape, lambda *i: u_f32(*i).astype(dt.storage), name="U")]
    rc = te.reduce_axis((0, wl.c), name="rc")
    u_absmax = te.compute(
        (wl.alpha, wl.alpha, wl.k),
        lambda h, v, k: te.max(tirx.abs(u_f32[h, v, k, rc]), axis=rc),
        name="U_absmax",
    )
    u_scale = te.compute(
        u_absmax.shape,
        lambda h, v, k: (
            tirx.max(u_absmax[h, v, k], tirx.const(quant.MIN_ABSMAX, "float32"))
            / tirx.const(quant.QMAX, "float32")
        ),
        name="U_scale",
    )
    u_q = te.compute(
        u_f32.shape,
        lambda h, v, k, c: quant.saturate_int8(u_f32[h, v, k, c] / u_scale[h, v, k]),
        name="U",
    )
    return [u_q, u_scale]


def batched_gemm(v: te.Tensor, u: te.Tensor, accum: str) -> te.Tensor:
    """M[h, w, n, k] = sum_c V[h, w, n, c] * U[h, w, k, c]: alpha^2 independent GEMMs."""
    c_axis = te.reduce_axis((0, v.shape[3]), name="c")
    return te.compute(
        (v.shape[0], v.shape[1], v.shape[2], u.shape[2]),
        lambda h, w, n, k: te.sum(
            v[h, w, n, c_axis].astype(accum) * u[h, w, k, c_axis].astype(accum), axis=c_axis
        ),
        name="M",
    )


def epilogue_inputs(wl: Conv2dWorkload) -> list[te.Tensor]:
    """Placeholders OTrans reads besides M, in parameter order (wl.forward_inputs): bias[K],
    residual[N, H, W, K] (of wl.epilogue_dtype), y_scale[1] (float32) of int8's fp16/int8 y."""
    shapes = {"bias": (wl.k,), "residual": (wl.n, wl.h, wl.w, wl.k), OUTPUT_SCALE: (1,)}
    dtypes = {OUTPUT_SCALE: "float32"}
    return [te.placeholder(shapes[op], dtypes.get(op, TVM_DTYPE[wl.epilogue_dtype]), name=op)
            for op in wl.forward_inputs]


def output_transform(
    mm: te.Tensor, wl: Conv2dWorkload, ntiles_multiple: int, u_scale: te.Tensor | None = None,
    epilogue: list[te.Tensor] = (),
) -> te.Tensor:
    """y = A^T M A per tile (float32 math), then the epilogue, written NHWC; int8 dequantises
    each tap first and divides an fp16 or int8 y by y_scale (int8: rounded, saturated).
    `epilogue` holds epilogue_inputs(wl)."""
    dt = StageDtypes.of(wl)
    a_np, _, _ = _matrices(wl)
    a_mat = const_matrix(a_np.astype("float32"), "A")
    if u_scale is not None:
        v_scale = const_matrix(quant.input_tap_scales(wl.m).astype("float32"), "V_scale")
    rw = te.reduce_axis((0, wl.alpha), name="rw")

    def tap(h, w, t, k):
        value = mm[h, w, t, k].astype("float32")
        if u_scale is not None:
            value = value * v_scale[h, w] * u_scale[h, w, k]
        return value

    # Separable: Z = M A over columns, then Y = A^T Z; Y_tile holds one tile's m x m outputs,
    # so a schedule can keep them in registers.
    m_a = te.compute(
        (mm.shape[2], wl.alpha, wl.m, wl.k),
        lambda t, h, j, k: te.sum(tap(h, rw, t, k) * a_mat[rw, j], axis=rw),
        name="MA",
    )
    rh = te.reduce_axis((0, wl.alpha), name="rh")
    y_tile = te.compute(
        (mm.shape[2], wl.m, wl.m, wl.k),
        lambda t, i, j, k: te.sum(a_mat[rh, i] * m_a[t, rh, j, k], axis=rh),
        name="Y_tile",
    )

    stride = wl.image_tile_stride(ntiles_multiple)
    inputs = {t.op.name: t for t in epilogue}

    def pixel(b, i, j, k):
        t = b * stride + i // wl.m * wl.tiles_w + j // wl.m
        value = y_tile[t, i % wl.m, j % wl.m, k]
        # float32 like the transform: one rounding to the output type at the end.
        if "bias" in inputs:
            value = value + inputs["bias"][k].astype("float32")
        if "residual" in inputs:
            value = value + inputs["residual"][b, i, j, k].astype("float32")
        if "relu" in wl.epilogue:
            value = tirx.max(value, tirx.const(0, "float32"))
        if OUTPUT_SCALE in inputs:
            # Times the reciprocal, which nvcc computes once per y_scale load: a division per
            # output cost the m=4 kernel 2x (IEEE division's slow path).
            value = value * (tirx.const(1, "float32") / inputs[OUTPUT_SCALE][0])
        return quant.saturate_int8(value) if dt.out == "int8" else value.astype(dt.out)

    return te.compute((wl.n, wl.h, wl.w, wl.k), pixel, name="y")


@dataclass(frozen=True)
class WinogradStages:
    """Placeholders and outputs of the four stage PrimFuncs."""

    x: te.Tensor
    w: te.Tensor
    v: te.Tensor
    u: list[te.Tensor]
    v_in: te.Tensor
    u_in: list[te.Tensor]
    m_out: te.Tensor
    m_in: te.Tensor
    epilogue_in: list[te.Tensor]
    y: te.Tensor

    def prim_funcs(self) -> dict:
        """name -> PrimFunc, one per stage (names become CUDA kernel names)."""
        funcs = {
            "itrans": te.create_prim_func([self.x, self.v]),
            "ktrans": te.create_prim_func([self.w, *self.u]),
            "bgemm": te.create_prim_func([self.v_in, self.u_in[0], self.m_out]),
            "otrans": te.create_prim_func([self.m_in, *self.u_in[1:], *self.epilogue_in, self.y]),
        }
        return {name: f.with_attr("global_symbol", name) for name, f in funcs.items()}


def winograd_stages(wl: Conv2dWorkload, ntiles_multiple: int = 1,
                    half_itrans: bool = True) -> WinogradStages:
    """Build all four stages, tile rows laid out by wl.image_tile_stride(ntiles_multiple).
    half_itrans: see itrans_work_dtype."""
    dt = StageDtypes.of(wl)
    x = te.placeholder((wl.n, wl.h, wl.w, wl.c), dt.storage, name="x")
    w = te.placeholder((3, 3, wl.c, wl.k), dt.storage, name="w")
    v = input_transform(x, wl, ntiles_multiple, half_itrans)
    u = kernel_transform(w, wl)
    v_in = te.placeholder(v.shape, dt.storage, name="V")
    u_in = [te.placeholder(t.shape, t.dtype, name=t.op.name) for t in u]
    m_out = batched_gemm(v_in, u_in[0], dt.accum)
    m_in = te.placeholder(m_out.shape, dt.accum, name="M")
    epilogue_in = epilogue_inputs(wl)
    y = output_transform(m_in, wl, ntiles_multiple, u_in[1] if len(u_in) > 1 else None,
                         epilogue_in)
    return WinogradStages(x, w, v, u, v_in, u_in, m_out, m_in, epilogue_in, y)
