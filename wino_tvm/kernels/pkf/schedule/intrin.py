"""WMMA tensor intrinsics for every fragment shape (TVM registers only 16x16x16)."""

from __future__ import annotations

from dataclasses import dataclass

from tvm.s_tir import TensorIntrin
from tvm.s_tir.tensor_intrin.cuda import (
    get_wmma_fill_intrin,
    get_wmma_load_intrin,
    get_wmma_store_intrin,
    get_wmma_sync_intrin,
)

SHORT = {"float16": "f16", "int8": "s8", "float32": "f32", "int32": "s32"}


@dataclass(frozen=True)
class WmmaIntrins:
    """Names of the registered intrinsics for one (fragment, dtype) combination."""

    load_a: str
    load_b: str
    sync: str
    fill: str
    store: str


def _register(name: str, pair) -> str:
    try:
        TensorIntrin.get(name)
    except Exception:  # not registered yet: TVM raises a plain error for unknown names
        TensorIntrin.register(name, *pair)
    return name


def wmma_intrins(
    frag: tuple[int, int, int],
    in_dtype: str,
    acc_dtype: str,
    load_scope: str,
    store_scope: str,
    b_scope: str | None = None,
) -> WmmaIntrins:
    """Register (once) and name the intrinsics; B is U[k, c], i.e. column-major (transposed),
    loaded from b_scope (default: load_scope)."""
    b_scope = b_scope or load_scope
    fm, fn, fk = frag
    shape = f"{fm}x{fn}x{fk}"
    s_in, s_acc = SHORT[in_dtype], SHORT[acc_dtype]
    load_tag = load_scope.replace(".", "_")
    store_tag = store_scope.replace(".", "_")
    return WmmaIntrins(
        load_a=_register(
            f"wino_wmma_load_{shape}_{s_in}_a_{load_tag}",
            get_wmma_load_intrin(fm, fn, fk, in_dtype, load_scope, False, False),
        ),
        load_b=_register(
            f"wino_wmma_load_{shape}_{s_in}_b_trans_{b_scope.replace('.', '_')}",
            get_wmma_load_intrin(fm, fn, fk, in_dtype, b_scope, True, True),
        ),
        sync=_register(
            f"wino_wmma_sync_{shape}_{s_in}{s_in}{s_acc}_trans",
            get_wmma_sync_intrin(fm, fn, fk, in_dtype, acc_dtype, True),
        ),
        fill=_register(
            f"wino_wmma_fill_{shape}_{s_acc}", get_wmma_fill_intrin(fm, fn, fk, acc_dtype)
        ),
        store=_register(
            f"wino_wmma_store_{shape}_{s_acc}_{store_tag}",
            get_wmma_store_intrin(fm, fn, fk, acc_dtype, store_scope),
        ),
    )
