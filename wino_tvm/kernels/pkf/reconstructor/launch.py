"""How each kernel is launched: the dict format codegen writes, as a checked value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ReconstructError
from .source import Kernel

_KEYS = ("name", "params", "grid", "block", "shared_bytes")


@dataclass(frozen=True)
class Launch:
    """Kernel name, buffer names in parameter order (no `_ptr`), grid, block, dynamic smem;
    persistent: the kernel loops over grid[0] blocks, the host launches as many as stay resident
    (reconstructor.persist)."""

    name: str
    params: tuple[str, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    persistent: bool = False

    @classmethod
    def from_dict(cls, entry: Mapping) -> Launch:
        """Read codegen's dict (lists or tuples); ReconstructError if a key is missing."""
        missing = [k for k in _KEYS if k not in entry]
        if missing:
            raise ReconstructError(f"launch {dict(entry)!r} lacks {missing}")
        grid, block = tuple(entry["grid"]), tuple(entry["block"])
        if len(grid) != 3 or len(block) != 3:
            raise ReconstructError(f"launch {entry['name']}: grid and block need 3 entries each")
        return cls(str(entry["name"]), tuple(entry["params"]), grid, block,
                   int(entry["shared_bytes"]), bool(entry.get("persistent", False)))

    def to_dict(self) -> dict:
        return {"name": self.name, "params": list(self.params), "grid": list(self.grid),
                "block": list(self.block), "shared_bytes": self.shared_bytes,
                **({"persistent": True} if self.persistent else {})}


def buffer_name(param: str) -> str:
    """The launch's name for a kernel parameter: TVM calls buffer V's pointer V_ptr."""
    if not param.endswith("_ptr"):
        raise ReconstructError(f"kernel parameter {param!r} does not end in _ptr")
    return param.removesuffix("_ptr")


def check_launch(kernel: Kernel, launch: Launch) -> None:
    """The launch must name the kernel's parameters in order and fit its launch bounds."""
    expected = tuple(buffer_name(p.name) for p in kernel.params)
    if launch.params != expected:
        raise ReconstructError(
            f"launch of {kernel.name} passes {list(launch.params)} but the kernel takes "
            f"{list(expected)}"
        )
    threads = launch.block[0] * launch.block[1] * launch.block[2]
    if threads > kernel.launch_bounds:
        raise ReconstructError(f"launch of {kernel.name} has {threads} threads per block, above "
                               f"its __launch_bounds__({kernel.launch_bounds})")
