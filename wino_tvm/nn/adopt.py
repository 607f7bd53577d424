"""Making a wino-tvm layer from the torch layer it replaces."""

from __future__ import annotations

import torch


def adopt(cls: type, module: torch.nn.Module) -> torch.nn.Module:
    """A new cls (a subclass of module's type) holding module's attributes, parameters, buffers
    and submodules, shared, not copied; cls's own attributes are the caller's to set."""
    layer = cls.__new__(cls)
    torch.nn.Module.__init__(layer)
    layer.__dict__.update({k: v for k, v in module.__dict__.items()
                           if k not in ("_parameters", "_buffers", "_modules")})
    layer._parameters = dict(module._parameters)
    layer._buffers = dict(module._buffers)
    layer._modules = dict(module._modules)
    return layer
