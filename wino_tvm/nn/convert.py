"""wino_tvm.convert(model): every eligible torch.nn.Conv2d becomes a wino_tvm.nn.Conv2d, with a
following BatchNorm (eval mode) folded into its weights and a following residual add and ReLU
fused into its kernel where the traced graph allows, and every torch.nn.GroupNorm a
wino_tvm.nn.GroupNorm with a following SiLU fused; a report says what was converted and why
the rest was left. For inference: converted weights stop requiring gradients."""

from __future__ import annotations

import operator
from dataclasses import dataclass

import torch
import torch.fx
import torch.nn.functional as F

from ..runtime.choice import Policy
from .conv import Conv2d, ineligible
from .norm import GroupNorm

_ADDS = {operator.add, operator.iadd, torch.add}
# What a fused activation looks like in a traced graph: (module type, functions, methods).
_ACTIVATIONS = {
    "relu": (torch.nn.ReLU, {F.relu, torch.relu, torch.relu_}, ("relu", "relu_")),
    "silu": (torch.nn.SiLU, {F.silu}, ("silu",)),
}


@dataclass(frozen=True)
class Row:
    """One torch.nn.Conv2d (or GroupNorm, kind) of the model: converted (what was fused) or
    left (why)."""

    name: str
    converted: bool
    detail: str
    kind: str = "Conv2d"


def _single_user(node: torch.fx.Node) -> torch.fx.Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _is_activation(node: torch.fx.Node | None, modules: dict, name: str) -> bool:
    """Whether node applies the activation `name` (a key of _ACTIVATIONS)."""
    if node is None:
        return False
    module_type, functions, methods = _ACTIVATIONS[name]
    if node.op == "call_module":
        return isinstance(modules[node.target], module_type)
    if node.op == "call_function":
        return node.target in functions
    return node.op == "call_method" and node.target in methods


def _residual(node: torch.fx.Node | None, tail: torch.fx.Node) -> torch.fx.Node | None:
    """The other tensor of `tail + other` (node), or None where node is no such add."""
    if node is None or len(node.args) != 2 or node.kwargs:
        return None
    if not ((node.op == "call_function" and node.target in _ADDS)
            or (node.op == "call_method" and node.target in ("add", "add_"))):
        return None
    other = [arg for arg in node.args if arg is not tail]
    if len(other) != 1 or not isinstance(other[0], torch.fx.Node):
        return None
    return other[0]


def fold_batchnorm(conv: torch.nn.Conv2d, bn: torch.nn.BatchNorm2d
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """conv's weight and bias with bn (eval mode) folded in, computed in float32."""
    scale = bn.weight.float() / torch.sqrt(bn.running_var.float() + bn.eps)
    weight = conv.weight.float() * scale.view(-1, 1, 1, 1)
    bias = conv.bias.float() if conv.bias is not None else torch.zeros_like(scale)
    bias = (bias - bn.running_mean.float()) * scale + bn.bias.float()
    return weight.to(conv.weight.dtype), bias.to(conv.weight.dtype)


def _foldable(node: torch.fx.Node | None, modules: dict) -> bool:
    if node is None or node.op != "call_module":
        return False
    bn = modules[node.target]
    return (isinstance(bn, torch.nn.BatchNorm2d) and not bn.training and bn.affine
            and bn.track_running_stats)


def _set_module(root: torch.nn.Module, name: str, module: torch.nn.Module) -> None:
    parent, _, leaf = name.rpartition(".")
    setattr(root.get_submodule(parent) if parent else root, leaf, module)


def _module_calls(gm: torch.fx.GraphModule) -> dict[str, int]:
    calls: dict[str, int] = {}
    for node in gm.graph.nodes:
        if node.op == "call_module":
            calls[node.target] = calls.get(node.target, 0) + 1
    return calls


def _replace(gm: torch.fx.GraphModule, chain: list[torch.fx.Node], name: str,
             args: tuple) -> None:
    """The nodes of chain (in graph order) become one call of module `name` on args, at the
    last of them: whatever args reads exists there."""
    with gm.graph.inserting_before(chain[-1]):
        replacement = gm.graph.call_module(name, args)
    chain[-1].replace_all_uses_with(replacement)
    for dead in reversed(chain):
        gm.graph.erase_node(dead)


def _convert_norms(gm: torch.fx.GraphModule, policy: Policy) -> list[Row]:
    """Each GroupNorm onto wino_tvm.nn.GroupNorm, with the SiLU after it where it is its
    only user."""
    modules, calls = dict(gm.named_modules()), _module_calls(gm)
    rows = []
    for node in list(gm.graph.nodes):
        if node.op != "call_module" or type(modules[node.target]) is not torch.nn.GroupNorm:
            continue
        user = _single_user(node)
        silu = _is_activation(user, modules, "silu")
        layer = GroupNorm.from_torch(modules[node.target], silu=silu, policy=policy)
        name = node.target if calls[node.target] == 1 else f"{node.target}_wino{len(rows)}"
        _set_module(gm, name, layer)
        _replace(gm, [node, user] if silu else [node], name, node.args)
        rows.append(Row(name, True, "fused SiLU" if silu else "no fusion", "GroupNorm"))
    return rows


def _convert_graph(gm: torch.fx.GraphModule, policy: Policy, norms: bool) -> list[Row]:
    norm_rows = _convert_norms(gm, policy) if norms else []
    modules, calls, rows = dict(gm.named_modules()), _module_calls(gm), []
    for node in list(gm.graph.nodes):
        if node.op != "call_module" or type(modules[node.target]) is not torch.nn.Conv2d:
            continue
        conv = modules[node.target]
        why = ineligible(conv)
        if why is not None:
            rows.append(Row(node.target, False, why))
            continue
        fused, chain = [], [node]  # what the layer replaces, in graph order
        weight, bias = conv.weight, conv.bias
        user = _single_user(node)
        if calls[node.target] == 1 and _foldable(user, modules):
            weight, bias = fold_batchnorm(conv, modules[user.target])
            fused.append(f"BatchNorm {user.target}")
            chain.append(user)
        residual = _residual(_single_user(chain[-1]), chain[-1])
        if residual is not None:
            chain.append(_single_user(chain[-1]))
            fused.append("residual add")
        relu = _is_activation(_single_user(chain[-1]), modules, "relu")
        if relu:
            chain.append(_single_user(chain[-1]))
            fused.append("ReLU")
        layer = Conv2d.from_torch(conv, relu=relu, policy=policy)
        layer.fused_residual = residual is not None
        layer.weight = torch.nn.Parameter(weight.detach(), requires_grad=False)
        layer.bias = None if bias is None else torch.nn.Parameter(bias.detach(),
                                                                  requires_grad=False)
        name = node.target if calls[node.target] == 1 else f"{node.target}_wino{len(rows)}"
        _set_module(gm, name, layer)
        _replace(gm, chain, name,
                 (node.args[0],) if residual is None else (node.args[0], residual))
        rows.append(Row(name, True, "fused " + " + ".join(fused) if fused else "no fusion"))
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return rows + norm_rows


def _convert_modules(model: torch.nn.Module, policy: Policy, note: str, norms: bool
                     ) -> list[Row]:
    rows, norm_rows = [], []
    for name, module in list(model.named_modules()):
        if norms and type(module) is torch.nn.GroupNorm:
            _set_module(model, name, GroupNorm.from_torch(module, policy=policy))
            norm_rows.append(Row(name, True, f"no fusion ({note})", "GroupNorm"))
        if type(module) is not torch.nn.Conv2d:
            continue
        why = ineligible(module)
        if why is not None:
            rows.append(Row(name, False, why))
            continue
        layer = Conv2d.from_torch(module, policy=policy)
        layer.weight.requires_grad_(False)
        if layer.bias is not None:
            layer.bias.requires_grad_(False)
        _set_module(model, name, layer)
        rows.append(Row(name, True, f"no fusion ({note})"))
    return rows + norm_rows


def convert(model: torch.nn.Module, *, policy: Policy | None = None, fuse: bool = True,
            norms: bool = True, verbose: bool = True) -> torch.nn.Module:
    """The model with its eligible convolutions (and, with norms, its GroupNorms) on wino-tvm
    (traced with torch.fx to fuse; converted in place, without fusion, where tracing fails).
    The report is the result's `wino_report` (rows), printed when verbose."""
    policy = policy or Policy()
    if fuse:
        try:
            traced = torch.fx.symbolic_trace(model)
        except Exception as exc:  # any tracing failure leaves the unfused conversion
            rows = _convert_modules(model, policy, f"torch.fx could not trace the model: "
                                                   f"{type(exc).__name__}", norms)
            converted = model
        else:
            rows, converted = _convert_graph(traced, policy, norms), traced
    else:
        rows, converted = _convert_modules(model, policy, "fusion off", norms), model
    converted.wino_report = rows
    if verbose:
        print(format_report(rows))
    return converted


def format_report(rows: list[Row]) -> str:
    kinds = dict.fromkeys(row.kind for row in rows) or {"Conv2d": None}
    counts = [f"{sum(r.converted for r in rows if r.kind == kind)} of "
              f"{sum(r.kind == kind for r in rows)} {kind} layers" for kind in kinds]
    lines = [f"wino_tvm.convert: {', '.join(counts)} converted"]
    lines += [f"  {'+' if row.converted else '-'} {row.name}: {row.detail}" for row in rows]
    return "\n".join(lines)


def choices(model: torch.nn.Module) -> list[tuple[str, tuple, object]]:
    """(layer name, (N, H, W, epilogue), runtime.choice.Choice) of every converted layer that
    has run."""
    return [(name, key, choice) for name, module in model.named_modules()
            if isinstance(module, Conv2d) for key, choice in module.choices.items()]
