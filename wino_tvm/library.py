"""Shared-library build of an artifact (templates/library.cu.tpl) and its ctypes wrapper. TVM-free.

C ABI (every int is a cudaError_t, 0 = success):
  size_t wino_workspace_bytes(void); size_t wino_scratch_bytes(void);
  const char* wino_describe(void) (JSON); const char* wino_error_string(int);
  int wino_weight_transform(const void* w, void* workspace, cudaStream_t stream);
  int wino_forward(const void* x, const void* bias, const void* residual, const void* y_scale,
                   void* y, void* workspace, void* scratch, cudaStream_t stream);
x is NHWC, w HWIO, y and residual NHWK, bias K; bias and residual are NULL unless the library's
epilogue reads them; y_scale (one float: y = conv / y_scale, int8 rounded and saturated) is NULL
unless the library maps int8 inputs to an fp16 or int8 y. The workspace holds the transformed
weights; the scratch (NULL where wino_scratch_bytes() is 0) holds what one forward keeps between
its kernels, so calls that run in turn may share it. Pointers are device pointers and the
caller owns all memory.
"""

from __future__ import annotations

import ctypes
import json
import re
from collections.abc import Sequence
from pathlib import Path

from wino_tvm.errors import WinoError
from wino_tvm.harness import (
    SPEC_FILE,
    HarnessSpec,
    Launch,
    Workspace,
    c_string,
    fill_template,
    render_kernel_attrs,
    render_launches,
    tensor_values,
)
from wino_tvm.runner import NVCC_FLAGS, arch_flags, run_nvcc, target_arch
from wino_tvm.workload import EPILOGUE_INPUTS, OUTPUT_SCALE, epilogue_text, forward_inputs

TEMPLATE_PATH = Path(__file__).resolve().parents[1] / "templates" / "library.cu.tpl"
LIBRARY_SOURCE_FILE = "library.cu"
LIBRARY_FILE = "libwino.so"
# Must match wino_tvm.artifact.RECONSTRUCTED_FILE (that module imports TVM, so not imported here).
KERNELS_FILE = "reconstructed.cu"
ABI_VERSION = 4  # 2: wino_forward takes the epilogue's bias and residual; 3: and y_scale;
# 4: and a scratch buffer apart from the workspace
# The ABI's own names, which a workspace must not shadow.
_ABI_NAME = re.compile(r"wino_\w*")


def split_workspaces(spec: HarnessSpec) -> tuple[tuple[Workspace, ...], tuple[Workspace, ...]]:
    """(kept, scratch): the workspaces a weight launch writes, which every forward reads, and
    the forward's own, which need not outlive a call."""
    written = {arg for launch in spec.weight_launches for arg in launch.args}
    return (tuple(ws for ws in spec.workspaces if ws.name in written),
            tuple(ws for ws in spec.workspaces if ws.name not in written))


def _buffer_offsets(workspaces: Sequence[Workspace], prefix: str) -> str:
    """constexpr offsets of each workspace from its buffer's aligned base, and where the last
    one ends (`{prefix}Bytes`)."""
    lines = []
    end = "0"
    for i, ws in enumerate(workspaces):
        lines.append(f"static constexpr size_t {prefix}Offset{i} = wb_align({end});  // {ws.name}")
        end = f"{prefix}Offset{i} + sizeof({ws.c_type}) * {ws.count}ull"
    lines.append(f"static constexpr size_t {prefix}Bytes = {end};")
    return "\n".join(lines)


def _buffer_pointers(workspaces: Sequence[Workspace], prefix: str, base: str) -> str:
    return "\n".join(
        f"  [[maybe_unused]] {ws.c_type}* {ws.name} = "
        f"reinterpret_cast<{ws.c_type}*>({base} + {prefix}Offset{i});"
        for i, ws in enumerate(workspaces)
    )


def describe_json(spec: HarnessSpec) -> str:
    """The JSON that wino_describe() returns: what the library computes and how it was made."""
    types = spec.c_types
    return json.dumps({
        "abi_version": ABI_VERSION,
        "workload": {"N": spec.n, "H": spec.h, "W": spec.w, "C": spec.c, "K": spec.k},
        "dtype": spec.dtype,
        "out": spec.out,
        "x_type": types["IN_T"],
        "w_type": types["IN_T"],
        "y_type": types["OUT_T"],
        "epilogue_type": types["EPI_T"],
        "layout": {"x": "NHWC", "w": "HWIO", "y": "NHWK"},
        "m": spec.m,
        "fusion": spec.fusion,
        "config": spec.config_name,
        "epilogue": list(spec.epilogue),
        "tolerance": spec.tolerance,
        "commit": spec.commit,
    })


def render_library(spec: HarnessSpec) -> str:
    """The .cu source of the shared library for `spec` (its kernels plus the C ABI)."""
    uses_w = [launch.kernel for launch in spec.forward_launches if "w" in launch.args]
    if uses_w:
        raise WinoError(
            f"forward launches {uses_w} read w, but the library's wino_forward takes no weights: "
            "the weight transform must leave everything forward needs in a workspace"
        )
    shadowing = [ws.name for ws in spec.workspaces if _ABI_NAME.fullmatch(ws.name)]
    if shadowing:
        raise WinoError(f"workspace names {shadowing} clash with the library ABI's wino_* names")
    kept, scratch = split_workspaces(spec)
    kept_pointers = _buffer_pointers(kept, "kWorkspace", "wb_base")
    values = {
        "KERNELS": spec.kernels_source,
        "DESCRIPTION": c_string(describe_json(spec)),
        "BUFFER_OFFSETS": "\n".join((_buffer_offsets(kept, "kWorkspace"),
                                     _buffer_offsets(scratch, "kScratch"))),
        "WORKSPACE_POINTERS": kept_pointers,
        "FORWARD_POINTERS": "\n".join(filter(None, (
            kept_pointers, _buffer_pointers(scratch, "kScratch", "wb_scratch_base")))),
        "KERNEL_ATTRS": render_kernel_attrs(spec.weight_launches + spec.forward_launches),
        "WEIGHT_TRANSFORM_BODY": render_launches(spec.weight_launches),
        "FORWARD_BODY": render_launches(spec.forward_launches),
        **tensor_values(spec),
    }
    return fill_template(TEMPLATE_PATH.read_text(), values)


def load_spec(artifact_dir: Path) -> HarnessSpec:
    """The artifact's HarnessSpec: harness_spec.json, with reconstructed.cu as kernels_source."""
    artifact_dir = Path(artifact_dir)
    spec_path, kernels_path = artifact_dir / SPEC_FILE, artifact_dir / KERNELS_FILE
    for path in (spec_path, kernels_path):
        if not path.is_file():
            raise WinoError(f"{path} not found: is {artifact_dir} an artifact directory?")
    try:
        record = json.loads(spec_path.read_text())
        record["workspaces"] = [Workspace(**ws) for ws in record.get("workspaces", ())]
        for key in ("weight_launches", "forward_launches"):
            record[key] = [Launch(**launch) for launch in record.get(key, ())]
        return HarnessSpec(**record, kernels_source=kernels_path.read_text())
    except (json.JSONDecodeError, TypeError) as exc:
        raise WinoError(f"{spec_path} is not a valid harness spec: {exc}") from exc


def compile_library_source(source: Path, arch: str, library: Path) -> Path:
    """Build the library source into library for a GPU of arch (wgmma kernels: sm_90a)."""
    arch = target_arch(source, arch)
    # Hidden visibility keeps the kernels' extern "C" names (the same in every variant) out of
    # the dynamic symbol table, so that many variants can be loaded into one process.
    args = [*NVCC_FLAGS, "-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden",
            *arch_flags(arch), "-o", str(library), str(source)]
    run_nvcc(args, source, arch)
    return library


def compile_library(artifact_dir: Path, arch: str) -> Path:
    """Build artifact_dir/libwino.so from its library.cu (rendered from the spec if absent)."""
    artifact_dir = Path(artifact_dir)
    source = artifact_dir / LIBRARY_SOURCE_FILE
    if not source.is_file():
        source.write_text(render_library(load_spec(artifact_dir)))
    return compile_library_source(source, arch, artifact_dir / LIBRARY_FILE)


class WinoLibrary:
    """ctypes view of one libwino.so; pointers and streams are ints (e.g. tensor.data_ptr())."""

    def __init__(self, path: Path | str, cdll: ctypes.CDLL | None = None) -> None:
        self.path = Path(path)
        try:
            self._lib = cdll if cdll is not None else ctypes.CDLL(str(self.path))
        except OSError as exc:
            raise WinoError(f"cannot load {self.path}: {exc}") from exc
        void_p = ctypes.c_void_p
        signatures = {
            "wino_workspace_bytes": (ctypes.c_size_t, []),
            "wino_scratch_bytes": (ctypes.c_size_t, []),
            "wino_describe": (ctypes.c_char_p, []),
            "wino_error_string": (ctypes.c_char_p, [ctypes.c_int]),
            "wino_weight_transform": (ctypes.c_int, [void_p, void_p, void_p]),
            "wino_forward": (ctypes.c_int, [void_p] * 8),
        }
        for name, (restype, argtypes) in signatures.items():
            try:
                fn = getattr(self._lib, name)
            except AttributeError:
                raise WinoError(f"{self.path} has no {name}: not a wino library") from None
            fn.restype, fn.argtypes = restype, argtypes
        info = self.describe()
        if info.get("abi_version") != ABI_VERSION:
            raise WinoError(
                f"{self.path} has ABI version {info.get('abi_version')}, expected {ABI_VERSION}"
            )
        self.epilogue = tuple(info.get("epilogue", ()))
        self.dtype, self.out = info["dtype"], info["out"]
        reads = forward_inputs(self.epilogue, self.dtype, self.out)
        # which of bias, residual, y_scale forward reads: checked on every call, so once here
        self._reads = tuple(name in reads for name in (*EPILOGUE_INPUTS, OUTPUT_SCALE))
        self.scratch_bytes = int(self._lib.wino_scratch_bytes())

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            text = self._lib.wino_error_string(status).decode()
            raise WinoError(f"{what} in {self.path} failed: CUDA error {status} ({text})")

    def workspace_bytes(self) -> int:
        """The buffer the weight transform fills, kept for every forward."""
        return int(self._lib.wino_workspace_bytes())

    def describe(self) -> dict:
        return json.loads(self._lib.wino_describe().decode())

    def weight_transform(self, w_ptr: int, ws_ptr: int, stream: int = 0) -> None:
        self._check(self._lib.wino_weight_transform(w_ptr, ws_ptr, stream), "wino_weight_transform")

    def forward(self, x_ptr: int, y_ptr: int, ws_ptr: int, stream: int = 0, *,
                scratch_ptr: int | None = None, bias_ptr: int | None = None,
                residual_ptr: int | None = None, y_scale_ptr: int | None = None) -> None:
        """y = epilogue(conv(x)); scratch_ptr (scratch_bytes, free for this call) where the
        library has a scratch; bias_ptr / residual_ptr / y_scale_ptr exactly when it reads
        them (its epilogue; an int8 y)."""
        if (scratch_ptr is not None) != (self.scratch_bytes > 0):
            raise WinoError(f"{self.path} takes " + (
                f"a scratch of {self.scratch_bytes} bytes: pass scratch_ptr"
                if self.scratch_bytes else "no scratch: pass scratch_ptr only when "
                "scratch_bytes > 0"))
        ptrs = (bias_ptr, residual_ptr, y_scale_ptr)
        if self._reads != (bias_ptr is not None, residual_ptr is not None,
                           y_scale_ptr is not None):
            built = f"{epilogue_text(self.epilogue) or 'no epilogue'} and {self.out} output"
            for name, ptr, reads in zip((*EPILOGUE_INPUTS, OUTPUT_SCALE), ptrs, self._reads,
                                        strict=True):
                if reads != (ptr is not None):
                    raise WinoError(f"{self.path} was built with {built}: pass {name}_ptr "
                                    f"{'' if reads else 'only '}when it reads {name}")
        status = self._lib.wino_forward(x_ptr, bias_ptr, residual_ptr, y_scale_ptr, y_ptr, ws_ptr,
                                        scratch_ptr, stream)
        if status:
            self._check(status, "wino_forward")
