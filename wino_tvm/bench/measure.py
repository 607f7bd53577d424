"""GPU side of wino_tvm.bench: one workload's variants and cuDNN baselines, checked against a
float64 reference and timed with CUDA events, all in one process. Uses PyTorch; never TVM.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from wino_tvm.bench.cudnn import ENGINES, ConvSpec, CudnnHelper, CudnnRefused
from wino_tvm.bench.timing import Options, Timer, errors, rotation_count
from wino_tvm.errors import WinoError
from wino_tvm.harness import QUANT_POISON, SPEC_FILE, epilogue_scale
from wino_tvm.library import WinoLibrary
from wino_tvm.math.quant import QMAX
from wino_tvm.runtime.ops import forward, poisoned_bytes, scratch_for
from wino_tvm.workload import (
    OUTPUT_SCALE,
    epilogue_dtype,
    epilogue_text,
    forward_inputs,
    resolve_output,
)

Shape = tuple[int, int, int, int, int]  # N, H, W, C, K
C_TYPE_BYTES = {"half": 2, "__half": 2, "float": 4, "int": 4, "int32_t": 4, "int8_t": 1,
                "signed char": 1, "char": 1}
ELEM_BYTES = {"fp16": 2, "fp32": 4, "int8": 1}
TORCH_DTYPES = {"fp16": torch.float16, "fp32": torch.float32, "int8": torch.int8}
# Stated rel-L2 bars of the baselines, by (input, output) type. fp16: our fp16 m=4 bar (cuDNN
# may pick a Winograd or FFT algorithm inside); fp32/TF32: fp16-valued inputs are exact in TF32,
# so only the algorithm's own rounding counts; int8->fp32: sums of int8 products are exact in
# int32, then rounded once to float; int8->int8: requantized with alpha = 127/max|y|, whose
# rounding noise is about 1% of the RMS output.
BASELINE_TOLERANCE = {("fp16", "fp16"): 1e-2, ("fp32", "fp32"): 1e-4, ("int8", "fp32"): 1e-6,
                      ("int8", "int8"): 2e-2}
# cuDNN's engine configurations wanting more workspace than this are left out (and listed).
MAX_ENGINE_WORKSPACE = 2**31


class Unavailable(WinoError):
    """A baseline that cannot be measured here (e.g. no cuDNN headers to build the helper)."""


# Each of cuDNN's engine configurations is timed this briefly to find the fastest, which is then
# timed as every variant is.
ENGINE_SCREEN = Options(warmup=3, iters=20)


@dataclass
class Case:
    """One variant ready to run: enqueue a call on rotation slot r, read slot 0 as float64 NHWK."""

    call: Callable[[int], None]
    output: Callable[[], torch.Tensor]
    poison: Callable[[], None] = lambda: None
    notes: dict = field(default_factory=dict)  # record fields known only once built
    close: Callable[[], None] = lambda: None
    reference: torch.Tensor | None = None  # float64 expected output, when not ops.ref


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def reference(x_nhwc: torch.Tensor, w_hwio: torch.Tensor) -> torch.Tensor:
    """float64 NHWK conv of the same values, without cuDNN (the library under comparison):
    exact for int8 inputs, whose products and sums stay far below 2^53."""
    x = x_nhwc.double().permute(0, 3, 1, 2)
    w = w_hwio.double().permute(3, 2, 0, 1)
    with torch.backends.cudnn.flags(enabled=False):
        return F.conv2d(x, w, padding=1).permute(0, 2, 3, 1).contiguous()


class Operands:
    """Rotated random inputs of one dtype (x NHWC sets, w HWIO) and set 0's float64 reference."""

    def __init__(self, shape: Shape, dtype: str, rotate: int, gen: torch.Generator) -> None:
        n, h, w, c, k = shape
        self.shape, self.dtype, self.rotate = shape, dtype, rotate

        def fresh(*size: int) -> torch.Tensor:
            if dtype == "int8":
                return torch.randint(-127, 128, size, generator=gen, device="cuda",
                                     dtype=torch.int8)
            return (torch.rand(size, generator=gen, device="cuda") * 2 - 1).half()

        self.xs = [fresh(n, h, w, c) for _ in range(rotate)]
        self.w = fresh(3, 3, c, k)
        self.ref = reference(self.xs[0], self.w)

    def y_ring(self, dtype: torch.dtype, layout: str = "NHWC") -> list[torch.Tensor]:
        n, h, w, _, k = self.shape
        size = (n, k, h, w) if layout == "NCHW" else (n, h, w, k)
        return [torch.empty(size, dtype=dtype, device="cuda") for _ in range(self.rotate)]


def check(case: Case, ops: Operands, tolerance: float) -> tuple[float, float, int, bool]:
    """Poison, run once on rotation slot 0 and compare with float64: (rel L2, max abs, count of
    non-finite, correct)."""
    case.poison()
    case.call(0)
    torch.cuda.synchronize()
    expected = ops.ref if case.reference is None else case.reference
    rel, max_abs, nonfinite = errors(case.output(), expected)
    return rel, max_abs, nonfinite, nonfinite == 0 and rel <= tolerance


def run_case(record: dict, make: Callable[[], Case], ops: Operands, timer: Timer,
             opts: Options) -> dict:
    """Build, check and (if correct) time one variant; failures become the record's status."""
    rec = dict(record)
    try:
        case = make()
        try:
            rec.update(case.notes)
            rel, max_abs, nonfinite, correct = check(case, ops, rec["tolerance"])
            rec.update(rel_l2_err=rel, max_abs_err=max_abs, nonfinite=nonfinite,
                       correct=correct, status="ok" if correct else "wrong")
            if correct:  # a wrong result is reported, not timed
                rec.update(timer.time(case.call, ops.rotate, opts))
        finally:
            case.close()
    except CudnnRefused as exc:
        rec.update(status="unsupported" if exc.unsupported else "error", error=str(exc))
    except Unavailable as exc:
        rec.update(status="unavailable", error=str(exc))
    except (WinoError, RuntimeError) as exc:
        rec.update(status="error", error=str(exc))
    rec.setdefault("correct", False)
    rec.setdefault("median_us", None)
    timing = f"{rec['median_us']:9.1f} us" if rec["median_us"] else " " * 12
    err = f"rel_l2 {rec['rel_l2_err']:.2e}" if rec.get("rel_l2_err") is not None else ""
    detail = rec["status"] if rec["status"] in ("ok", "wrong") else rec.get("error", "")
    log(f"  {rec['fusion']:22s} {str(rec.get('config'))[:58]:58s} {timing} {err} {detail}")
    return rec


# ---- our variants ---------------------------------------------------------------------------
def wino_record(artifact_dir: Path) -> dict:
    """The record fields an artifact's harness_spec.json gives, also when it failed to build."""
    spec = json.loads((Path(artifact_dir) / SPEC_FILE).read_text())
    sizes = {ws["name"]: C_TYPE_BYTES.get(ws["c_type"]) for ws in spec.get("workspaces", ())}
    elem = {name: sizes[name] for name in ("V", "M") if sizes.get(name)}
    return {
        "fusion": spec["fusion"], "config": spec["config_name"], "dtype": spec["dtype"],
        "m": spec["m"], "tolerance": spec["tolerance"], "commit": spec["commit"],
        "epilogue": epilogue_text(spec.get("epilogue", ())),
        "out": resolve_output(spec["dtype"], spec.get("out", "")),
        "artifact": Path(artifact_dir).name, **({"elem_bytes": elem} if elem else {}),
    }


def wino_case(library: Path, ops: Operands, stream: torch.cuda.Stream) -> Case:
    lib = WinoLibrary(library)
    info = lib.describe()
    shape = tuple(info["workload"][key] for key in "NHWCK")
    if shape != ops.shape or info["dtype"] != ops.dtype:
        raise WinoError(f"{library} computes {info['workload']} {info['dtype']}, "
                        f"not {ops.shape} {ops.dtype}")
    handle = stream.cuda_stream
    # Poisoned like the harness's workspaces: reading an element no kernel wrote gives NaN.
    workspace = poisoned_bytes(lib.workspace_bytes(), "cuda")
    scratch = scratch_for(lib, "cuda", poison=True)
    lib.weight_transform(ops.w.data_ptr(), workspace.data_ptr(), handle)
    ys = ops.y_ring(TORCH_DTYPES[lib.out])
    scaled_y = OUTPUT_SCALE in forward_inputs(lib.epilogue, lib.dtype, lib.out)
    # Epilogue inputs, made only when the library reads them, at the scale of the outputs (as
    # in the harness); the residual rotates with x and y.
    scale = epilogue_scale(ops.dtype, ops.shape[3])
    epilogue_type = TORCH_DTYPES[epilogue_dtype(lib.dtype, lib.out)]

    def scaled(size: tuple[int, ...]) -> torch.Tensor:
        return (torch.rand(size, device="cuda") * 2 - 1).mul_(scale).to(epilogue_type)

    bias = scaled((ops.shape[4],)) if "bias" in lib.epilogue else None
    residuals = [scaled(y.shape) for y in ys] if "residual" in lib.epilogue else None
    expected = ops.ref
    if bias is not None:
        expected = expected + bias.double()
    if residuals is not None:
        expected = expected + residuals[0].double()
    if "relu" in lib.epilogue:
        expected = expected.clamp_min(0.0)
    # A scaled y: the scale maps the expected output's max to 127, as a calibration would.
    y_scale = (expected.abs().max() / QMAX).float().reshape(1) if scaled_y else None

    def call(r: int) -> None:
        forward(lib, ops.xs[r], ys[r], workspace, handle, scratch, bias,
                None if residuals is None else residuals[r], y_scale)

    def output() -> torch.Tensor:
        y = ys[0].double() * (y_scale.double() if scaled_y else 1.0)
        # int8's poison is a value the kernels never write: where it is left, NaN.
        return y.masked_fill_(ys[0] == QUANT_POISON, math.nan) if lib.out == "int8" else y

    def poison() -> None:
        ys[0].fill_(QUANT_POISON if lib.out == "int8" else math.nan)

    return Case(call, output, poison, reference=expected)


# ---- cuDNN through PyTorch ------------------------------------------------------------------
def torch_case(ops: Operands, dtype: torch.dtype, allow_tf32: bool = False) -> Case:
    """F.conv2d on channels_last tensors, which share x's NHWC storage: no layout conversion."""
    xs = [(x if x.dtype == dtype else x.to(dtype)).permute(0, 3, 1, 2) for x in ops.xs]
    w = ops.w.to(dtype).permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
    ys: list[torch.Tensor | None] = [None] * ops.rotate

    def call(r: int) -> None:
        torch.backends.cudnn.allow_tf32 = allow_tf32
        ys[r] = F.conv2d(xs[r], w, padding=1)

    return Case(call, lambda: ys[0].permute(0, 2, 3, 1).double())


# ---- cuDNN's own algorithms through templates/cudnn_conv.cu ---------------------------------
@dataclass
class CudnnIO:
    """x, w and y's rotation ring in a cuDNN layout, and y's scale alpha: for an int8 y, which
    saturates, the largest output maps to 127."""

    xs: list[torch.Tensor]
    wt: torch.Tensor
    ys: list[torch.Tensor]
    alpha: float
    nchw: bool

    def output(self) -> torch.Tensor:
        return (self.ys[0].permute(0, 2, 3, 1) if self.nchw else self.ys[0]).double() / self.alpha

    def poison(self) -> None:
        self.ys[0].fill_(-128 if self.ys[0].dtype == torch.int8 else math.nan)


def cudnn_io(ops: Operands, spec: ConvSpec, scale_to_int8: bool) -> CudnnIO:
    """NCHW: x as N,C,H,W and w as K,C,3,3 (copies, made before timing); NHWC: x as stored and
    w as K,3,3,C."""
    nchw = spec.layout == "NCHW"
    xs = [x.permute(0, 3, 1, 2).contiguous() for x in ops.xs] if nchw else ops.xs
    wt = (ops.w.permute(3, 2, 0, 1) if nchw else ops.w.permute(3, 0, 1, 2)).contiguous()
    alpha = 127.0 / float(ops.ref.abs().max()) if scale_to_int8 else 1.0
    return CudnnIO(xs, wt, ops.y_ring(TORCH_DTYPES[spec.out_type], spec.layout), alpha, nchw)


def cudnn_case(helper: CudnnHelper, ops: Operands, spec: ConvSpec, stream: torch.cuda.Stream,
               scale_to_int8: bool = False) -> Case:
    """One cuDNN algorithm as configured; raises CudnnRefused if cuDNN will not run it."""
    io = cudnn_io(ops, spec, scale_to_int8)
    plan = helper.plan(*ops.shape, spec)
    workspace = torch.empty(plan.workspace_bytes, dtype=torch.uint8, device="cuda")
    handle = stream.cuda_stream

    def call(r: int) -> None:
        plan.run(io.xs[r].data_ptr(), io.wt.data_ptr(), io.ys[r].data_ptr(),
                 workspace.data_ptr(), handle, io.alpha)

    notes = {"alpha": io.alpha} if scale_to_int8 else {}
    return Case(call, io.output, io.poison, notes, plan.close)


def cudnn_engines_case(helper: CudnnHelper, ops: Operands, spec: ConvSpec, tolerance: float,
                       stream: torch.cuda.Stream, timer: Timer,
                       scale_to_int8: bool = False) -> Case:
    """cuDNN's fastest engine configuration for the graph: each plan checked and timed briefly
    (ENGINE_SCREEN), the fastest correct one returned; its notes give every plan's time."""
    io = cudnn_io(ops, spec, scale_to_int8)
    engines = helper.engines(*ops.shape, spec, io.alpha)
    try:
        sizes = engines.workspace_bytes
        fits = [i for i, size in enumerate(sizes) if size <= MAX_ENGINE_WORKSPACE]
        workspace = torch.empty(max((sizes[i] for i in fits), default=0), dtype=torch.uint8,
                                device="cuda")

        def call_of(i: int) -> Callable[[int], None]:
            def call(r: int) -> None:
                engines.run(i, io.xs[r].data_ptr(), io.wt.data_ptr(), io.ys[r].data_ptr(),
                            workspace.data_ptr(), stream.cuda_stream)
            return call

        screen: dict[str, float | str] = {engines.names[i]: f"workspace {sizes[i]} B"
                                          for i in range(len(sizes)) if i not in fits}
        for i in fits:
            try:
                rel, _, nonfinite, correct = check(Case(call_of(i), io.output, io.poison), ops,
                                                   tolerance)
                if not correct:
                    screen[engines.names[i]] = f"wrong (rel L2 {rel:.2e}, {nonfinite} non-finite)"
                    continue
                screen[engines.names[i]] = timer.time(call_of(i), ops.rotate,
                                                      ENGINE_SCREEN)["median_us"]
            except CudnnRefused as exc:
                screen[engines.names[i]] = f"error: {exc}"
        timed = {i: screen[engines.names[i]] for i in fits
                 if isinstance(screen[engines.names[i]], float)}
        if not timed:
            raise CudnnRefused(f"none of cuDNN's {len(sizes)} engine configurations ran "
                               f"correctly: {screen}", 0)
        best = min(timed, key=timed.__getitem__)
    except BaseException:
        engines.close()
        raise
    notes = {"config": f"cuDNN engine {engines.names[best]}: fastest of {len(sizes)} "
                       f"(heuristics A + fallback), {spec.in_type}->{spec.out_type} NHWC "
                       f"compute={spec.compute_type}",
             "engine_screen_us": screen}
    if scale_to_int8:
        notes["alpha"] = io.alpha
    return Case(call_of(best), io.output, io.poison, notes, engines.close)


# ---- one workload ---------------------------------------------------------------------------
def cudnn_api_specs() -> list[tuple[str, ConvSpec]]:
    """(record name, configuration) of the baselines run through cuDNN's API. Each accepted
    configuration is its own record; the report takes the fastest of a name. ENGINES: the
    fastest of every engine configuration cuDNN's backend API builds for the graph."""
    half, gemm = "fp16", "IMPLICIT_PRECOMP_GEMM"
    return [
        # cuDNN's best fp16 without cudnn.benchmark's noisy pick (experiments: cudnn_spread),
        # accumulating in fp32 (as the torch baseline does) and in fp16 (as our fp16-accumulator
        # kernels).
        *(("cudnn_engines", ConvSpec(half, "NHWC", half, acc, ENGINES, "any"))
          for acc in ("fp32", half)),
        ("cudnn_int8_engines", ConvSpec("int8", "NHWC", "fp32", "int32", ENGINES, "any")),
        ("cudnn_int8_i8out_engines", ConvSpec("int8", "NHWC", "int8", "int32", ENGINES, "any")),
        # The paper's baseline, accumulating in fp32 (as our kernels do) and in fp16.
        *(("cudnn_winograd", ConvSpec(half, "NCHW", half, acc, "WINOGRAD_NONFUSED"))
          for acc in ("fp32", half)),
        *(("cudnn_winograd_fused", ConvSpec(half, "NCHW", half, acc, "WINOGRAD"))
          for acc in ("fp32", half)),
        # Float out, as our int8 kernels write; int8 out, requantized.
        *(("cudnn_int8", ConvSpec("int8", "NHWC", "fp32", "int32", gemm, math))
          for math in ("tensor_op", "default")),
        *(("cudnn_int8_i8out", ConvSpec("int8", "NHWC", "int8", "int32", gemm, math))
          for math in ("tensor_op", "default")),
    ]


def baselines(ops16: Operands, ops8: Operands, helper: CudnnHelper | None,
              helper_error: str | None, stream: torch.cuda.Stream, timer: Timer):
    """(record fields, operands, case factory) of every baseline, in the order they run."""
    out = [
        ({"fusion": "cudnn", "dtype": "fp16", "tolerance": BASELINE_TOLERANCE["fp16", "fp16"],
          "config": "torch F.conv2d fp16 channels_last cudnn.benchmark"},
         ops16, lambda: torch_case(ops16, torch.float16)),
        ({"fusion": "cudnn_fp32", "dtype": "fp32", "tolerance": BASELINE_TOLERANCE["fp32", "fp32"],
          "config": "torch F.conv2d fp32 channels_last cudnn.benchmark allow_tf32=False"},
         ops16, lambda: torch_case(ops16, torch.float32, allow_tf32=False)),
        ({"fusion": "cudnn_tf32", "dtype": "fp32", "tolerance": BASELINE_TOLERANCE["fp32", "fp32"],
          "config": "torch F.conv2d fp32 channels_last cudnn.benchmark allow_tf32=True"},
         ops16, lambda: torch_case(ops16, torch.float32, allow_tf32=True)),
    ]
    for fusion, spec in cudnn_api_specs():
        int8_out = spec.out_type == "int8"
        tolerance = BASELINE_TOLERANCE[spec.in_type, spec.out_type]
        record = {
            "fusion": fusion, "dtype": spec.in_type, "config": spec.describe(),
            "tolerance": tolerance,
            "elem_bytes": {"x": ELEM_BYTES[spec.in_type], "w": ELEM_BYTES[spec.in_type],
                           "y": ELEM_BYTES[spec.out_type]},
        }
        ops = ops8 if spec.in_type == "int8" else ops16
        if helper is None:
            make = _raises(Unavailable(f"cuDNN helper unavailable: {helper_error}"))
        elif spec.algo == ENGINES:
            def make(ops=ops, spec=spec, int8_out=int8_out, tolerance=tolerance) -> Case:
                return cudnn_engines_case(helper, ops, spec, tolerance, stream, timer, int8_out)
        else:
            def make(ops=ops, spec=spec, int8_out=int8_out) -> Case:
                return cudnn_case(helper, ops, spec, stream, int8_out)
        out.append((record, ops, make))
    return out


def measure_workload(shape: Shape, artifacts: Sequence[tuple[str, str | None, str | None]],
                     helper_path: str | None, helper_error: str | None, opts: Options,
                     commit: str) -> list[dict]:
    """Records of every baseline and artifact (dir, built library or None, build error)."""
    torch.backends.cudnn.benchmark = True
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0) or 128 * 2**20  # unknown: assume a large L2
    gen = torch.Generator(device="cuda").manual_seed(opts.seed)
    stream = torch.cuda.Stream()
    common = {
        "device": torch.cuda.get_device_name(0), "sm": f"sm_{props.major}{props.minor}",
        "workload": dict(zip("NHWCK", shape, strict=True)), "m": None, "commit": commit,
        "torch": torch.__version__, "cudnn_version": torch.backends.cudnn.version(),
    }
    records = []
    with torch.cuda.stream(stream):
        ops16 = Operands(shape, "fp16", rotation_count(shape, 2, l2), gen)
        ops8 = Operands(shape, "int8", rotation_count(shape, 1, l2), gen)
        timer = Timer()
        helper = CudnnHelper(helper_path) if helper_path else None
        if helper is not None:
            common["cudnn_helper_version"] = helper.version()
        cases = baselines(ops16, ops8, helper, helper_error, stream, timer)
        for record, ops, make in cases:
            records.append(run_case({**common, **record}, make, ops, timer, opts))
        for artifact, library, build_error in artifacts:
            record = {**common, **wino_record(Path(artifact))}
            ops = ops16 if record["dtype"] == "fp16" else ops8
            if library is None:
                make = _raises(WinoError(build_error or "no library"))
            else:
                def make(library=library, ops=ops) -> Case:
                    return wino_case(Path(library), ops, stream)
            records.append(run_case(record, make, ops, timer, opts))
    return records


def _raises(exc: Exception) -> Callable[[], Case]:
    """A case factory for a variant that cannot be built; run_case records why."""
    def make() -> Case:
        raise exc
    return make
