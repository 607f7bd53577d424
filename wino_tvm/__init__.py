"""wino-tvm: Tensor Core Winograd 3x3 convolution kernels.

From PyTorch: wino_tvm.conv2d(x, w, bias, residual, relu), wino_tvm.nn.Conv2d and
wino_tvm.convert(model) (imported on first use, so the CPU-side tools need no PyTorch).
"""

from importlib import import_module

_LAZY = {"conv2d": ("wino_tvm.functional", "conv2d"), "convert": ("wino_tvm.nn", "convert"),
         "nn": ("wino_tvm.nn", None), "Policy": ("wino_tvm.runtime.choice", "Policy")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'wino_tvm' has no attribute {name!r}")
    module, attr = _LAZY[name]
    loaded = import_module(module)
    return loaded if attr is None else getattr(loaded, attr)


__all__ = list(_LAZY)
