"""Split TVM's CUDA source into its preamble and kernels, and render them back."""

from __future__ import annotations

from dataclasses import dataclass

import regex

from .errors import ReconstructError

# TVM prints every kernel as one header line at column 0, once as a forward declaration (`;`)
# and once as the definition (` {`); the body ends at the first `}` at column 0.
_HEADER = regex.compile(
    r'^extern "C" __global__ void __launch_bounds__\((?P<bounds>\d+)(?:, (?P<min_blocks>\d+))?\) '
    r"(?P<name>\w+)\((?P<params>[^()]*)\)(?P<end>;| \{)$",
    regex.M,
)
_GLOBAL = regex.compile(r"^.*\b__global__\b.*$", regex.M)
_BODY_END = regex.compile(r"^\}$", regex.M)
_PARAM = regex.compile(r"^(?P<ctype>.*\S)\s+(?P<name>\w+)$")


@dataclass(frozen=True)
class Param:
    """One kernel parameter, e.g. ctype "half* __restrict__", name "V_ptr"."""

    ctype: str
    name: str


@dataclass(frozen=True)
class Kernel:
    """One `extern "C" __global__` kernel; body is the text between its braces."""

    name: str
    launch_bounds: int
    params: tuple[Param, ...]
    body: str
    min_blocks: int = 0  # __launch_bounds__'s second argument (0: not given)

    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def element_types(self) -> set[str]:
        """Element types of the pointer parameters, e.g. {"half"} for fp16's ITrans."""
        return {p.ctype.split("*")[0].strip() for p in self.params}


@dataclass(frozen=True)
class CudaSource:
    """Everything before the kernels (forward declarations dropped), then the kernels."""

    preamble: str
    kernels: tuple[Kernel, ...]


@dataclass(frozen=True)
class KernelSpan:
    """A kernel and where its body lies in the source it was split from."""

    kernel: Kernel
    body_start: int
    body_end: int


def _params(text: str, kernel: str) -> tuple[Param, ...]:
    params = []
    for piece in filter(None, (p.strip() for p in text.split(","))):
        m = _PARAM.match(piece)
        if m is None:
            raise ReconstructError(f"split_kernels: cannot read parameter {piece!r} of {kernel}")
        params.append(Param(m["ctype"], m["name"]))
    return tuple(params)


def kernel_spans(src: str) -> tuple[str, list[KernelSpan]]:
    """The preamble (forward declarations removed) and each kernel definition's span."""
    headers = list(_HEADER.finditer(src))
    known = {m.start() for m in headers}
    odd = [m for m in _GLOBAL.finditer(src) if m.start() not in known]
    if odd:
        raise ReconstructError(
            f"split_kernels: unrecognised kernel header {odd[0].group()!r} (expected "
            '`extern "C" __global__ void __launch_bounds__(N) name(params) {`)'
        )
    definitions = [m for m in headers if m["end"] != ";"]
    if not definitions:
        raise ReconstructError("split_kernels: no kernel definition found in the source")
    first = definitions[0].start()
    if any(m["end"] == ";" and m.start() > first for m in headers):
        raise ReconstructError("split_kernels: a forward declaration follows a kernel definition")
    preamble = "".join(line for line in src[:first].splitlines(keepends=True)
                       if not _HEADER.match(line.rstrip("\n")))
    spans: list[KernelSpan] = []
    pos = first
    for m in definitions:
        if src[pos:m.start()].strip():
            raise ReconstructError(
                f"split_kernels: unexpected text before kernel {m['name']}: "
                f"{src[pos:m.start()].strip()[:80]!r}"
            )
        body_start = m.end() + 1
        close = _BODY_END.search(src, body_start)
        if close is None:
            raise ReconstructError(f"split_kernels: body of {m['name']} has no closing '}}' "
                                   "at column 0")
        body = src[body_start:close.start()]
        if body.count("{") != body.count("}"):
            raise ReconstructError(f"split_kernels: unbalanced braces in the body of {m['name']}")
        kernel = Kernel(m["name"], int(m["bounds"]), _params(m["params"], m["name"]), body,
                        int(m["min_blocks"] or 0))
        spans.append(KernelSpan(kernel, body_start, close.start()))
        pos = close.end()
    if src[pos:].strip():
        raise ReconstructError(f"split_kernels: unexpected text after the last kernel: "
                               f"{src[pos:].strip()[:80]!r}")
    names = [s.kernel.name for s in spans]
    if len(set(names)) != len(names):
        raise ReconstructError(f"split_kernels: duplicate kernel names in {names}")
    return preamble, spans


def split_kernels(src: str) -> CudaSource:
    """Preamble and kernels of a TVM CUDA source; ReconstructError if it is not that shape."""
    preamble, spans = kernel_spans(src)
    return CudaSource(preamble, tuple(s.kernel for s in spans))


def render_kernel(kernel: Kernel) -> str:
    """The kernel's definition as TVM prints it."""
    params = ", ".join(f"{p.ctype} {p.name}" for p in kernel.params)
    bounds = f"{kernel.launch_bounds}" + (f", {kernel.min_blocks}" if kernel.min_blocks else "")
    return (f'extern "C" __global__ void __launch_bounds__({bounds}) '
            f"{kernel.name}({params}) {{\n{kernel.body}}}\n")


def render_source(source: CudaSource) -> str:
    """Preamble then the kernels (no forward declarations: no kernel calls another)."""
    return source.preamble + "\n".join(render_kernel(k) for k in source.kernels)
