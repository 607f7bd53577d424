"""Render the standalone CUDA benchmark/check program (templates/harness.cu.tpl). TVM-free."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wino_tvm.errors import WinoError
from wino_tvm.math.tolerance import rel_l2_tolerance
from wino_tvm.workload import (
    EPILOGUE_INPUTS,
    EPILOGUE_OPS,
    OUTPUT_SCALE,
    Conv2dWorkload,
    canonical_epilogue,
    epilogue_dtype,
    epilogue_text,
    forward_inputs,
    resolve_output,
)

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
COMMON = TEMPLATES / "common"  # device code the template families share
TEMPLATE_PATH = TEMPLATES / "harness.cu.tpl"
PROGRAM_FILE = "program.cu"
SPEC_FILE = "harness_spec.json"

# C type of each tensor precision. int8_t is signed char, as TVM spells it.
C_TYPES = {"fp16": "half", "fp32": "float", "int8": "int8_t"}
# Input dtypes the programs take (x and w).
DTYPES = ("fp16", "int8")
# An int8 output is poisoned with -128, which the kernels' saturation to [-127, 127] never writes.
QUANT_POISON = -128

# Launches above the default 48 KB of dynamic shared memory need cudaFuncSetAttribute;
# 227 KB is the most any supported GPU (sm_90) allows per block.
DEFAULT_SHARED_BYTES = 48 * 1024
MAX_SHARED_BYTES = 227 * 1024

_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# A launch argument: a buffer, or a host helper of kernels_source applied to one (e.g. the TMA
# tensor map of x: wino_lane_x_map(x)). The helper is `T helper(buffer, cudaError_t* error)`;
# the launch code calls it first and checks its error like any CUDA call's.
_LAUNCH_ARG = re.compile(
    r"(?P<helper>[A-Za-z_]\w*)\((?P<buffer>[A-Za-z_]\w*)\)|(?P<plain>[A-Za-z_]\w*)")
_C_TYPE = re.compile(r"[A-Za-z_]\w*( [A-Za-z_]\w*)*")
# Names the template itself uses at file or function scope.
_RESERVED = re.compile(
    r"x|w|y|bias|residual|y_scale|stream|main|forward|weight_transform|IN_T|OUT_T|EPI_T|wb_\w*|"
    r"k[A-Z]\w*"
)
# Largest input magnitude the harness draws per dtype (uniform data).
INPUT_MAX = {"fp16": 1.0, "int8": 127.0}


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_dim3(what: str, dims: tuple[int, ...]) -> None:
    if len(dims) != 3 or not all(_is_int(d) and d > 0 for d in dims):
        raise WinoError(f"{what} must be three positive ints, got {dims!r}")


@dataclass(frozen=True)
class Launch:
    """One kernel launch: kernel<<<grid, block, shared_bytes, stream>>>(*args); persistent: the
    kernel loops over grid[0] blocks, so it gets only as many as stay resident; early: its blocks
    may start while the previous launch drains (programmatic dependent launch), so the kernel
    must call grid_dependency_wait() before it touches that launch's outputs."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[str, ...]
    persistent: bool = False
    early: bool = False

    def __post_init__(self) -> None:
        # Sequences (e.g. lists from JSON) are stored as tuples so the launch stays hashable.
        for name in ("grid", "block", "args"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if not _IDENTIFIER.fullmatch(self.kernel):
            raise WinoError(f"launch kernel {self.kernel!r} is not a C identifier")
        _check_dim3(f"grid of {self.kernel}", self.grid)
        _check_dim3(f"block of {self.kernel}", self.block)
        threads = math.prod(self.block)
        if threads > 1024:
            raise WinoError(f"block of {self.kernel} has {threads} threads (max 1024)")
        if not _is_int(self.shared_bytes) or not 0 <= self.shared_bytes <= MAX_SHARED_BYTES:
            raise WinoError(
                f"shared_bytes of {self.kernel} must be in [0, {MAX_SHARED_BYTES}], "
                f"got {self.shared_bytes!r}"
            )


@dataclass(frozen=True)
class Workspace:
    """A device buffer of `count` elements of `c_type`, visible to launches as `name`."""

    name: str
    c_type: str
    count: int

    def __post_init__(self) -> None:
        if not _IDENTIFIER.fullmatch(self.name) or _RESERVED.fullmatch(self.name):
            raise WinoError(f"workspace name {self.name!r} is not a C identifier or is reserved")
        if not _C_TYPE.fullmatch(self.c_type):
            raise WinoError(f"workspace {self.name}: bad C type {self.c_type!r}")
        if not _is_int(self.count) or self.count <= 0:
            raise WinoError(f"workspace {self.name}: count must be positive, got {self.count!r}")


@dataclass(frozen=True)
class Kernels:
    """A generator's output for the harness: the source, its buffers and its launch lists."""

    source: str
    workspaces: tuple[Workspace, ...]
    weight_launches: tuple[Launch, ...]
    forward_launches: tuple[Launch, ...]


@dataclass(frozen=True)
class HarnessSpec:
    """Everything the benchmark program needs: workload, kernels, buffers and launch lists."""

    n: int
    h: int
    w: int
    c: int
    k: int
    dtype: str
    m: int
    fusion: str
    config_name: str
    commit: str
    tolerance: float
    kernels_source: str
    workspaces: tuple[Workspace, ...] = ()
    weight_launches: tuple[Launch, ...] = ()
    forward_launches: tuple[Launch, ...] = ()
    epilogue: tuple[str, ...] = ()
    out: str = ""  # y's dtype; "" is the dtype's default (workload.OUTPUTS)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epilogue", canonical_epilogue(self.epilogue))
        object.__setattr__(self, "workspaces", tuple(self.workspaces))
        object.__setattr__(self, "weight_launches", tuple(self.weight_launches))
        object.__setattr__(self, "forward_launches", tuple(self.forward_launches))
        for name in ("n", "h", "w", "c", "k", "m"):
            value = getattr(self, name)
            if not _is_int(value) or value <= 0:
                raise WinoError(f"{name} must be a positive int, got {value!r}")
        if self.dtype not in DTYPES:
            raise WinoError(f"unknown dtype {self.dtype!r}; expected one of {sorted(DTYPES)}")
        object.__setattr__(self, "out", resolve_output(self.dtype, self.out))
        if not isinstance(self.tolerance, int | float) or not math.isfinite(self.tolerance) or (
            self.tolerance < 0
        ):
            raise WinoError(f"tolerance must be a finite number >= 0, got {self.tolerance!r}")
        for name in ("fusion", "config_name", "commit", "kernels_source"):
            if not isinstance(getattr(self, name), str):
                raise WinoError(f"{name} must be a string")
        if not self.forward_launches:
            raise WinoError("forward_launches is empty: nothing would compute y")
        names = [ws.name for ws in self.workspaces]
        if len(set(names)) != len(names):
            raise WinoError(f"duplicate workspace names in {names}")
        self._check_launches(self.weight_launches, "weight_transform", {"w", *names})
        self._check_launches(self.forward_launches, "forward",
                             {"x", "w", "y", *self.forward_inputs, *names})

    @property
    def forward_inputs(self) -> tuple[str, ...]:
        return forward_inputs(self.epilogue, self.dtype, self.out)

    @property
    def c_types(self) -> dict[str, str]:
        """IN_T (x, w), OUT_T (y), EPI_T (bias, residual: y's, float for int8 inputs)."""
        return {"IN_T": C_TYPES[self.dtype], "OUT_T": C_TYPES[self.out],
                "EPI_T": C_TYPES[epilogue_dtype(self.dtype, self.out)]}

    def _check_launches(self, launches: tuple[Launch, ...], where: str, buffers: set[str]) -> None:
        if launches and launches[0].early:
            raise WinoError(f"{where} launch of {launches[0].kernel} is early but first: it "
                            "would overlap whatever the caller ran before; make it a plain launch")
        shapes = {(launch.kernel, launch.grid, launch.block, launch.shared_bytes)
                  for launch in launches if launch.persistent}
        if len(shapes) > len({shape[0] for shape in shapes}):
            raise WinoError(f"{where} launches a persistent kernel with two shapes: its resident "
                            "grid is computed once; give the second its own kernel")
        for launch in launches:
            if not re.search(rf"\b{launch.kernel}\s*\(", self.kernels_source):
                raise WinoError(f"{where} launches {launch.kernel}, not defined in kernels_source")
            unknown = []
            for arg in launch.args:
                parts = _LAUNCH_ARG.fullmatch(arg)
                if parts is None:
                    raise WinoError(f"{where} launch of {launch.kernel}: argument {arg!r} is "
                                    "neither a buffer nor helper(buffer)")
                if parts["helper"] and not re.search(rf"\b{parts['helper']}\s*\(",
                                                     self.kernels_source):
                    raise WinoError(f"{where} launch of {launch.kernel}: helper "
                                    f"{parts['helper']} is not defined in kernels_source")
                if (parts["buffer"] or parts["plain"]) not in buffers:
                    unknown.append(arg)
            if unknown:
                raise WinoError(
                    f"{where} launch of {launch.kernel} uses unknown buffers {unknown}; "
                    f"available there: {sorted(buffers)}"
                )


def workload_spec(wl: Conv2dWorkload, fusion: str, config_name: str, commit: str,
                  kernels: Kernels) -> HarnessSpec:
    """The spec of wl's program around kernels, checked against wl's tolerance."""
    return HarnessSpec(wl.n, wl.h, wl.w, wl.c, wl.k, wl.dtype, wl.m, fusion, config_name, commit,
                       rel_l2_tolerance(wl), kernels.source, kernels.workspaces,
                       kernels.weight_launches, kernels.forward_launches, wl.epilogue, wl.out)


def epilogue_fills(wl: Conv2dWorkload) -> tuple[tuple[str, ...], dict[str, str]]:
    """What a template kernel needs of wl's epilogue: the inputs it reads (in EPILOGUE_INPUTS
    order) and its placeholders, BIAS / RESIDUAL / RELU (C++ bools) and BIAS_ARG / RESIDUAL_ARG
    (the parameter, or nullptr)."""
    inputs = tuple(name for name in EPILOGUE_INPUTS if name in wl.epilogue)
    values = {op.upper(): str(op in wl.epilogue).lower() for op in EPILOGUE_OPS}
    values |= {f"{name.upper()}_ARG": name if name in inputs else "nullptr"
               for name in EPILOGUE_INPUTS}
    return inputs, values


def template_fills(wl: Conv2dWorkload) -> tuple[tuple[str, ...], dict[str, str]]:
    """What the template kernels (lane, F(2, 3)) need of wl: the epilogue's inputs and
    placeholders (epilogue_fills); X_T, Y_T, E_T (the C types of x and w, of y, of bias and
    residual), SCALED_OUT (C++ bool: y divided by y_scale) and Y_SCALE_ARG (the parameter, or
    nullptr); and the device code both share, from templates/common/: PTX (ptx.cuh, the PTX
    primitives) and LOAD_CHANNELS (load_channels.cuh, a staged pixel's 4 channels as halves)."""
    inputs, fills = epilogue_fills(wl)
    scaled = OUTPUT_SCALE in wl.forward_inputs
    return inputs, {
        **fills, "X_T": C_TYPES[wl.dtype], "Y_T": C_TYPES[wl.out],
        "E_T": C_TYPES[wl.epilogue_dtype], "SCALED_OUT": str(scaled).lower(),
        "Y_SCALE_ARG": OUTPUT_SCALE if scaled else "nullptr",
        "PTX": (COMMON / "ptx.cuh").read_text().rstrip("\n"),
        "LOAD_CHANNELS": (COMMON / "load_channels.cuh").read_text().rstrip("\n")}


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Replace every {{NAME}}; raise if one is left unfilled or a value names no placeholder."""
    found = set(_PLACEHOLDER.findall(template))
    missing = sorted(found - values.keys())
    unknown = sorted(values.keys() - found)
    if missing or unknown:
        raise WinoError(f"template placeholders: unfilled {missing}, unknown {unknown}")
    # One pass, so placeholder-like text inside values (e.g. kernel source) is left alone.
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def c_string(text: str) -> str:
    """A C string literal for ASCII text without control characters (e.g. json.dumps output)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _resident_grid(launch: Launch) -> tuple[list[str], str]:
    """C++ that sets a persistent launch's grid.x once per process (the blocks that fit on the
    device at once, over grid.y * grid.z), and the expression that reads it."""
    var = f"wb_grid_{launch.kernel}"
    tiles, others = launch.grid[0], launch.grid[1] * launch.grid[2]
    return [
        f"  // {launch.kernel} loops over its {tiles} x-blocks, so any grid computes all of them;",
        "  // it gets as many as stay resident (set once: a stale count costs time, not results).",
        f"  static std::atomic<int> {var}{{0}};",
        f"  if ({var}.load(std::memory_order_relaxed) == 0) {{",
        "    int wb_device = 0, wb_sms = 0, wb_per_sm = 0;",
        "    WB_CHECK(cudaGetDevice(&wb_device));",
        "    WB_CHECK(cudaDeviceGetAttribute(&wb_sms, cudaDevAttrMultiProcessorCount, wb_device));",
        f"    WB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wb_per_sm, {launch.kernel}, "
        f"{math.prod(launch.block)}, {launch.shared_bytes}));",
        f"    const int wb_resident = wb_sms * wb_per_sm / {others};",
        f"    {var}.store(wb_resident < 1 ? 1 : wb_resident < {tiles} ? wb_resident : {tiles},",
        "                std::memory_order_relaxed);",
        "  }",
    ], f"{var}.load(std::memory_order_relaxed)"


def _early_launch(launch: Launch, grid: str, block: str, args: str) -> list[str]:
    """C++ that launches with programmatic stream serialization (checked like the others)."""
    return [
        "  {",
        "    cudaLaunchAttribute wb_early[1] = {};",
        "    wb_early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;",
        "    wb_early[0].val.programmaticStreamSerializationAllowed = 1;",
        f"    cudaLaunchConfig_t wb_config = {{dim3({grid}), dim3({block}), "
        f"{launch.shared_bytes}, stream, wb_early, 1}};",
        f"    WB_CHECK(cudaLaunchKernelEx(&wb_config, {launch.kernel}, {args}));",
        "  }",
    ]


def render_launches(launches: tuple[Launch, ...]) -> str:
    lines, resident = [], set()
    for launch in launches:
        grid_x = str(launch.grid[0])
        if launch.persistent:
            setup, grid_x = _resident_grid(launch)
            if launch.kernel not in resident:  # a kernel launched twice sets its grid once
                lines += setup
                resident.add(launch.kernel)
        grid = ", ".join([grid_x, *map(str, launch.grid[1:])])
        block = ", ".join(map(str, launch.block))
        values = []
        for i, arg in enumerate(launch.args):
            parts = _LAUNCH_ARG.fullmatch(arg)  # checked by HarnessSpec
            if not parts["helper"]:
                values.append(arg)
                continue
            var = f"wb_{launch.kernel}_arg{i}"
            lines += [f"  cudaError_t {var}_error = cudaSuccess;",
                      f"  const auto {var} = {parts['helper']}({parts['buffer']}, &{var}_error);",
                      f"  WB_CHECK({var}_error);"]
            values.append(var)
        args = ", ".join(values)
        if launch.early:
            lines += _early_launch(launch, grid, block, args)
            continue
        lines.append(
            f"  {launch.kernel}<<<dim3({grid}), dim3({block}), {launch.shared_bytes}, stream>>>"
            f"({args});"
        )
        lines.append(f'  WB_CHECK_LAUNCH("{launch.kernel}");')
    return "\n".join(lines)


def render_kernel_attrs(launches: tuple[Launch, ...]) -> str:
    most: dict[str, int] = {}
    for launch in launches:
        most[launch.kernel] = max(most.get(launch.kernel, 0), launch.shared_bytes)
    return "\n".join(
        f"  WB_CHECK(cudaFuncSetAttribute({kernel}, "
        f"cudaFuncAttributeMaxDynamicSharedMemorySize, {size}));"
        for kernel, size in most.items()
        if size > DEFAULT_SHARED_BYTES
    )


def epilogue_scale(dtype: str, c: int) -> float:
    """Standard deviation of the conv's outputs on the harness's uniform data (9C products of
    two uniform values): the scale of the bias and residual it draws."""
    return INPUT_MAX[dtype] ** 2 * math.sqrt(9 * c) / 3


def tensor_values(spec: HarnessSpec) -> dict[str, str]:
    """Template values both programs share: EPILOGUE_BIAS / EPILOGUE_RESIDUAL / SCALED_OUT,
    whether the kernels read bias, residual, y_scale (C++ bool), and the tensors' C types."""
    reads = {f"EPILOGUE_{op.upper()}": op for op in EPILOGUE_INPUTS} | {"SCALED_OUT": OUTPUT_SCALE}
    return {key: str(name in spec.forward_inputs).lower() for key, name in reads.items()} | (
        spec.c_types)


def render_harness(spec: HarnessSpec) -> str:
    """The complete CUDA program for `spec`."""
    ws = spec.workspaces
    values = {
        **tensor_values(spec),
        "EPILOGUE_RELU": str("relu" in spec.epilogue).lower(),
        "EPILOGUE_SCALE": f"{epilogue_scale(spec.dtype, spec.c):.9e}f",
        "EPILOGUE_JSON": c_string(json.dumps(epilogue_text(spec.epilogue))),
        "KERNELS": spec.kernels_source,
        "N": str(spec.n),
        "H": str(spec.h),
        "W": str(spec.w),
        "C": str(spec.c),
        "K": str(spec.k),
        "M": str(spec.m),
        "TOLERANCE": repr(float(spec.tolerance)),
        "DTYPE_JSON": c_string(json.dumps(spec.dtype)),
        "OUT_JSON": c_string(json.dumps(spec.out)),
        "QUANT_POISON": str(QUANT_POISON),
        "FUSION_JSON": c_string(json.dumps(spec.fusion)),
        "CONFIG_JSON": c_string(json.dumps(spec.config_name)),
        "COMMIT_JSON": c_string(json.dumps(spec.commit)),
        "WORKSPACE_DECLS": "\n".join(f"static {b.c_type}* {b.name} = nullptr;" for b in ws),
        "WORKSPACE_ALLOC": "\n".join(
            f"  WB_CHECK(cudaMalloc(&{b.name}, sizeof({b.c_type}) * {b.count}ull));\n"
            f"  WB_CHECK(cudaMemset({b.name}, 0xFF, sizeof({b.c_type}) * {b.count}ull));"
            for b in ws
        ),
        "WORKSPACE_FREE": "\n".join(f"  WB_CHECK(cudaFree({b.name}));" for b in ws),
        "KERNEL_ATTRS": render_kernel_attrs(spec.weight_launches + spec.forward_launches),
        "WEIGHT_TRANSFORM_BODY": render_launches(spec.weight_launches),
        "FORWARD_BODY": render_launches(spec.forward_launches),
    }
    return fill_template(TEMPLATE_PATH.read_text(), values)


def write_artifact(
    spec: HarnessSpec, out_dir: Path, extra_files: dict[str, str] | None = None
) -> Path:
    """Write out_dir/program.cu, out_dir/harness_spec.json and extra_files; return program.cu."""
    program = render_harness(spec)
    extra = extra_files or {}
    for name in extra:
        if "/" in name or name in ("", ".", "..", PROGRAM_FILE, SPEC_FILE):
            raise WinoError(
                f"extra file name {name!r} must be a plain file name other than "
                f"{PROGRAM_FILE} and {SPEC_FILE}"
            )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # program.cu already holds the kernel source.
    record = {k: v for k, v in dataclasses.asdict(spec).items() if k != "kernels_source"}
    (out_dir / SPEC_FILE).write_text(json.dumps(record, indent=2) + "\n")
    for name, text in extra.items():
        (out_dir / name).write_text(text)
    program_path = out_dir / PROGRAM_FILE
    program_path.write_text(program)
    return program_path
