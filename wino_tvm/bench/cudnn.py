"""cuDNN's own algorithms and engine configurations through templates/cudnn_conv.cu, built
against the pip cuDNN. TVM-free.

The device image has cuDNN as the pip package nvidia-cudnn-cu13 (headers and libcudnn.so.9
under site-packages/nvidia/cudnn/); CUDNN_HOME (a folder with include/ and lib/) overrides it.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from pathlib import Path

from wino_tvm.errors import WinoError
from wino_tvm.harness import TEMPLATES
from wino_tvm.runner import NVCC_FLAGS, arch_flags, run_nvcc

HELPER_SOURCE = TEMPLATES / "cudnn_conv.cu"
HELPER_LIBRARY = "libcudnn_conv.so"
CUDNN_SONAME = "libcudnn.so.9"
# ConvSpec.algo of a graph run through the backend API with its fastest engine configuration.
ENGINES = "ENGINES"


class CudnnNotFound(WinoError):
    """No cuDNN headers and library to build the helper against."""


class CudnnRefused(WinoError):
    """cuDNN returned a non-success status; the message is cuDNN's own."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status

    @property
    def unsupported(self) -> bool:
        """Whether cuDNN refused the configuration (as opposed to failing to run it)."""
        return "NOT_SUPPORTED" in str(self)


def _candidate_roots() -> list[Path]:
    roots = [Path(os.environ["CUDNN_HOME"])] if os.environ.get("CUDNN_HOME") else []
    try:
        import nvidia.cudnn  # optional: the GPU image has it
    except ImportError:
        return roots
    # nvidia.cudnn may be a namespace package (no __file__), so use its __path__.
    return roots + [Path(p) for p in getattr(nvidia.cudnn, "__path__", ())]


def find_cudnn() -> tuple[Path, Path]:
    """(include dir holding cudnn.h, lib dir holding libcudnn.so.9)."""
    roots = _candidate_roots()
    for root in roots:
        include, lib = root / "include", root / "lib"
        if (include / "cudnn.h").is_file() and (lib / CUDNN_SONAME).exists():
            return include, lib
    where = ", ".join(map(str, roots)) or "nowhere (no CUDNN_HOME, no nvidia.cudnn package)"
    raise CudnnNotFound(
        f"cuDNN not found: looked for include/cudnn.h and lib/{CUDNN_SONAME} in {where}; "
        "install the pip package nvidia-cudnn-cu13 (the GPU image has it) or set CUDNN_HOME; "
        "the cuDNN baselines are skipped without it"
    )


def compile_helper(out_dir: Path, arch: str) -> Path:
    """Build libcudnn_conv.so into out_dir, linked to the found cuDNN (rpath set)."""
    include, lib = find_cudnn()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / HELPER_LIBRARY
    args = [*NVCC_FLAGS, "-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden",
            *arch_flags(arch), f"-I{include}", str(HELPER_SOURCE), f"-L{lib}",
            f"-l:{CUDNN_SONAME}", "-Xlinker", f"-rpath,{lib}", "-o", str(target)]
    run_nvcc(args, HELPER_SOURCE, arch)
    return target


@dataclass(frozen=True)
class ConvSpec:
    """One cuDNN configuration: types by name (fp16, fp32, int8, int32), layout, algorithm."""

    in_type: str
    layout: str
    out_type: str
    compute_type: str
    algo: str
    math: str = "tensor_op"

    def describe(self) -> str:
        return (f"{self.algo} {self.in_type}->{self.out_type} {self.layout} "
                f"compute={self.compute_type} math={self.math}")


class _Owned:
    """A handle the helper library made for one configuration; close() frees it once, through
    the library function named by DESTROY."""

    DESTROY = ""

    def __init__(self, helper: CudnnHelper, handle: ctypes.c_void_p, spec: ConvSpec) -> None:
        self._helper, self._handle, self.spec = helper, handle, spec

    def close(self) -> None:
        if self._handle:
            getattr(self._helper.lib, self.DESTROY)(self._handle)
            self._handle = None


class CudnnPlan(_Owned):
    """Descriptors and workspace size of one convolution; run() enqueues it on a stream."""

    DESTROY = "cc_destroy"

    def __init__(self, helper: CudnnHelper, handle: ctypes.c_void_p, spec: ConvSpec) -> None:
        super().__init__(helper, handle, spec)
        self.workspace_bytes = int(helper.lib.cc_workspace_bytes(handle))

    def run(self, x: int, w: int, y: int, workspace: int, stream: int, alpha: float = 1.0) -> None:
        status = self._helper.lib.cc_run(self._handle, x, w, y, workspace, alpha, stream)
        self._helper.check(status, f"cudnnConvolutionForward ({self.spec.describe()})")


class EngineSet(_Owned):
    """Finalized plans of every engine configuration cuDNN offers for one graph
    (heuristics mode A and the fallback list); run(i, ...) enqueues plan i on a stream."""

    DESTROY = "cc_engines_destroy"

    def __init__(self, helper: CudnnHelper, handle: ctypes.c_void_p, spec: ConvSpec) -> None:
        super().__init__(helper, handle, spec)
        lib = helper.lib
        self.names = [lib.cc_engines_name(handle, i).decode()
                      for i in range(lib.cc_engines_count(handle))]
        self.workspace_bytes = [int(lib.cc_engines_workspace_bytes(handle, i))
                                for i in range(len(self.names))]

    def run(self, i: int, x: int, w: int, y: int, workspace: int, stream: int) -> None:
        status = self._helper.lib.cc_engines_run(self._handle, i, x, w, y, workspace, stream)
        self._helper.check(status, f"cudnnBackendExecute ({self.names[i]}, {self.spec.describe()})")


class CudnnHelper:
    """ctypes view of libcudnn_conv.so."""

    def __init__(self, path: Path | str, cdll: ctypes.CDLL | None = None) -> None:
        try:
            self.lib = cdll if cdll is not None else ctypes.CDLL(str(path))
        except OSError as exc:
            raise WinoError(f"cannot load {path}: {exc}") from exc
        vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        signatures = {
            "cc_version": (ctypes.c_size_t, []),
            "cc_status_string": (cp, [i]),
            "cc_last_error": (cp, []),
            "cc_create": (i, [i, i, i, i, i, cp, cp, cp, cp, cp, cp, ctypes.POINTER(vp)]),
            "cc_workspace_bytes": (ctypes.c_size_t, [vp]),
            "cc_run": (i, [vp, vp, vp, vp, vp, ctypes.c_float, vp]),
            "cc_destroy": (None, [vp]),
            "cc_engines_create": (i, [i, i, i, i, i, cp, cp, cp, ctypes.c_float,
                                      ctypes.POINTER(vp)]),
            "cc_engines_count": (i, [vp]),
            "cc_engines_name": (cp, [vp, i]),
            "cc_engines_workspace_bytes": (ctypes.c_size_t, [vp, i]),
            "cc_engines_run": (i, [vp, i, vp, vp, vp, vp, vp]),
            "cc_engines_destroy": (None, [vp]),
        }
        for name, (restype, argtypes) in signatures.items():
            fn = getattr(self.lib, name)
            fn.restype, fn.argtypes = restype, argtypes

    def version(self) -> int:
        return int(self.lib.cc_version())

    def check(self, status: int, what: str) -> None:
        if status != 0:
            detail = self.lib.cc_last_error().decode() or self.lib.cc_status_string(status).decode()
            raise CudnnRefused(f"{what}: {detail}", status)

    def plan(self, n: int, h: int, w: int, c: int, k: int, spec: ConvSpec) -> CudnnPlan:
        """Descriptors for conv(x[n,c,h,w], w[k,c,3,3]); raises CudnnRefused if cuDNN says no."""
        handle = ctypes.c_void_p()
        names = (spec.in_type, spec.layout, spec.out_type, spec.compute_type, spec.algo, spec.math)
        status = self.lib.cc_create(n, h, w, c, k, *(s.encode() for s in names),
                                    ctypes.byref(handle))
        self.check(status, spec.describe())
        return CudnnPlan(self, handle, spec)

    def engines(self, n: int, h: int, w: int, c: int, k: int, spec: ConvSpec,
                alpha: float = 1.0) -> EngineSet:
        """Plans of y = alpha * conv(x, w) (NHWC; spec's algo and math are not used) for every
        engine configuration cuDNN builds; raises CudnnRefused if it builds none."""
        if spec.layout != "NHWC":
            raise WinoError(f"cuDNN engine sets are NHWC only, not {spec.layout}")
        handle = ctypes.c_void_p()
        status = self.lib.cc_engines_create(n, h, w, c, k, spec.in_type.encode(),
                                            spec.out_type.encode(), spec.compute_type.encode(),
                                            alpha, ctypes.byref(handle))
        self.check(status, f"cuDNN engine configurations ({spec.describe()})")
        return EngineSet(self, handle, spec)
