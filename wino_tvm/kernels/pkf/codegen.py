"""TVM -> CUDA source plus each kernel's launch shape (TVM prints no launch dimensions)."""

from __future__ import annotations

from dataclasses import dataclass

import tvm
import tvm_ffi
from tvm.ir.expr import Call
from tvm.tirx.build import split_host_device_mods, tir_to_runtime

from ...errors import WinoError

ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90")


@dataclass(frozen=True)
class KernelLaunch:
    """One __global__ kernel as the TVM host code launches it."""

    name: str
    params: tuple[str, ...]  # buffer names in parameter order (V, x, ...)
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int


@dataclass(frozen=True)
class Prototype:
    """TVM's CUDA source for the scheduled module and how to launch each kernel."""

    source: str
    launches: tuple[KernelLaunch, ...]

    def launch(self, name: str) -> KernelLaunch:
        return next(k for k in self.launches if k.name == name)


def _int(expr) -> int:
    return int(expr.value if hasattr(expr, "value") else expr)


def _launches(host_mod: tvm.IRModule) -> list[KernelLaunch]:
    """Read every call_ffi_kernel of the host functions: name, buffer args, launch values."""
    found = []

    def visit(call: Call):
        if call.op.name != "tirx.call_ffi_kernel":
            return
        name = call.args[0].value
        tags = list(call.attrs["launch_params"])
        values = call.args[len(call.args) - len(tags) :]
        # Buffer arguments print as "<buffer>.data" (a struct read of the DLTensor handle).
        params = tuple(str(arg).removesuffix(".data") for arg in call.args[1 : -len(tags)])
        if not all(p.isidentifier() for p in params):
            raise WinoError(f"unexpected kernel arguments from TVM for {name}: {params}")
        dims = {tag: _int(v) for tag, v in zip(tags, values, strict=True)}
        grid = tuple(dims.get(f"blockIdx.{a}", 1) for a in "xyz")
        block = tuple(dims.get(f"threadIdx.{a}", 1) for a in "xyz")
        smem = dims.get("tirx.use_dyn_shared_memory", 0)
        found.append(KernelLaunch(name, params, grid, block, smem))

    for func in host_mod.functions.values():
        tvm_ffi.structural_walk(func, [(Call, visit)])
    return found


def generate(mod: tvm.IRModule, arch: str = "sm_90") -> Prototype:
    """Lower and build mod for CUDA (no GPU needed); return the source and launches."""
    if arch not in ARCHS:
        raise WinoError(f"arch {arch!r} is not supported: choose one of {', '.join(ARCHS)}")
    target = tvm.target.Target({"kind": "cuda", "arch": arch}).with_host("llvm")
    mod = tvm.tirx.transform.BindTarget(target)(mod)
    pipeline, finalize_host, finalize_device = tvm.tirx.get_default_tir_pipeline(target)
    host_mod, device_mods = split_host_device_mods(pipeline(mod))
    launches = _launches(host_mod)
    device_mods = {t: finalize_device()(m) for t, m in device_mods.items()}
    runtime = tir_to_runtime(finalize_host()(host_mod), device_mods, target.host)
    sources = [m.inspect_source() for m in runtime.imports]
    if len(sources) != 1:
        raise WinoError(f"expected one CUDA module from TVM, got {len(sources)}")
    return Prototype(sources[0], tuple(launches))
