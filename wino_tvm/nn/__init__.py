"""PyTorch modules on wino-tvm kernels: Conv2d (drop-in), convert(model), and the report of
what each converted layer runs."""

from .conv import Conv2d
from .convert import Row, choices, convert, format_report

__all__ = ["Conv2d", "Row", "choices", "convert", "format_report"]
