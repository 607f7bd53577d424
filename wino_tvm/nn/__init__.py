"""PyTorch modules on wino-tvm kernels: Conv2d and GroupNorm (drop-in), convert(model), and the
report of what each converted layer runs."""

from .conv import Conv2d
from .convert import Row, choices, convert, format_report
from .norm import GroupNorm

__all__ = ["Conv2d", "GroupNorm", "Row", "choices", "convert", "format_report"]
