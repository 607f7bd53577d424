"""The F(4x4) kernels (templates/f44_nonfused.cu via wino_tvm.kernels.f44): the config's grammar
and checks, the filled source (the transform matrices of wino_tvm/math/winograd.py) and its
launches, the CLI, the tuner's space, the runtime's order under a bound, nvcc (every variant
class, no spills) and, on a GPU, correctness against the harness's float64 reference. TVM-free."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from toolchain import (
    assert_correct_on_gpu,
    assert_library_compiles,
    assert_no_spills,
    needs_nvcc,
    on_gpu,
    variant_fixtures,
)

from wino_tvm.build import main as build_main
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import WinoError
from wino_tvm.kernels import parse_config
from wino_tvm.kernels.f44 import FAMILY
from wino_tvm.kernels.f44.config import F44Config
from wino_tvm.kernels.f44.generate import f44_kernels
from wino_tvm.math.tolerance import ACCURACY_BAR
from wino_tvm.math.winograd import tap_scale_exponents, transform_matrices
from wino_tvm.runner import compile_check
from wino_tvm.runtime.choice import Policy, candidates, defaults
from wino_tvm.tune.space import Axes, config_space
from wino_tvm.workload import Conv2dWorkload

H200 = KNOWN_DEVICES["h200"]
ALL = ("bias", "residual", "relu")
PB = F44Config(persist=True)


def fp16(*shape: int, epilogue: tuple[str, ...] = (), m: int = 4) -> Conv2dWorkload:
    return Conv2dWorkload(*shape, dtype="fp16", m=m, accum="fp32", epilogue=epilogue)


def test_name_round_trips() -> None:
    wl = fp16(1, 128, 128, 512, 512)
    assert F44Config().name(wl) == "fp16-fp32-m4-f44-bn256-st4"
    assert PB.name(wl) == "fp16-fp32-m4-f44-bn256-pb-st4"
    assert PB.with_(block_m=64, stages=5).name(wl) == "fp16-fp32-m4-f44-bm64-bn256-pb-st5"
    for cfg in (F44Config(), PB, F44Config(block_n=128, stages=3),
                F44Config(block_m=64, block_n=512, stages=3)):
        assert parse_config(cfg.name(wl)) == ({"dtype": "fp16", "accum": "fp32", "m": 4}, cfg)
    assert F44Config().needs_sm90a
    for bad in ("fp16-fp32-m4-f44-bn64-st4", "fp16-fp32-m4-f44-st4",
                "fp16-fp32-m4-f44-bn256-st4-pb", "fp16-fp32-m4-bn256-st4"):
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            parse_config(bad)


@pytest.mark.parametrize("wl, cfg, message", [
    (fp16(1, 64, 64, 512, 512, m=2), F44Config(),
     "f44 computes 4x4 output pixels per tile (m=4), not m=2"),
    (Conv2dWorkload(1, 64, 64, 512, 512, dtype="fp16", m=4, accum="fp16"), F44Config(),
     "f44 takes fp16 with fp32 accumulators, not fp16 with fp16"),
    (fp16(1, 64, 64, 96, 512), F44Config(), "f44: C=96 must be a multiple of 64"),
    (fp16(1, 64, 64, 512, 384), F44Config(), "f44: K=384 must be a multiple of 256"),
    (fp16(1, 64, 64, 512, 512), F44Config(stages=7), "f44: stages=7 is not one of 2, 3, 4, 5, 6"),
    (fp16(1, 64, 64, 512, 512), F44Config(stages=5),
     ("f44: shared memory 245840 B", "exceeds NVIDIA H200's 232448 B per block: fewer stages")),
    (fp16(1, 64, 64, 512, 512), F44Config(block_n=512),
     "f44: block_m=128 with block_n=512 gives each warpgroup 512 columns: choose block_n 128 or "
     "256"),
    (fp16(1, 64, 64, 512, 512), F44Config(block_m=64, block_n=128),
     "f44: block_m=64 with block_n=128 gives each warpgroup 64 columns: choose block_n 256 or "
     "512"),
    (fp16(1, 1024, 1024, 128, 128), F44Config(block_n=128),
     "f44: V, M and U take 1153 MiB, over the 1024 MiB the family allows: split the batch N=1"),
])
def test_problems_name_the_fix(wl: Conv2dWorkload, cfg: F44Config,
                               message: str | tuple[str, ...]) -> None:
    text = "; ".join(cfg.problems(wl, H200))
    for part in (message,) if isinstance(message, str) else message:
        assert part in text, text


def test_supports_and_default() -> None:
    assert FAMILY.supports(fp16(1, 128, 128, 512, 512), H200) is None
    assert FAMILY.default(fp16(1, 128, 128, 512, 512), H200) == PB
    assert FAMILY.default(fp16(2, 30, 17, 192, 128), H200) == PB.with_(block_n=128)
    # fewer than four blocks of 128 tiles (8 x 7 x 7 = 392): blocks of 64 tiles
    assert FAMILY.default(fp16(8, 28, 28, 512, 512), H200) == PB.with_(block_m=64, stages=5)
    assert FAMILY.default(fp16(8, 32, 32, 512, 512), H200) == PB  # 512 tiles
    assert "m=4" in FAMILY.supports(fp16(1, 128, 128, 512, 512, m=2), H200)
    assert "C=32 must be a multiple of 64" in FAMILY.supports(fp16(1, 56, 56, 32, 64), H200)
    # V and M of a 1024² image at 128 channels: over the cap, named with the fix
    assert "split the batch" in FAMILY.supports(fp16(1, 1024, 1024, 128, 128), H200)
    assert PB.workspace_bytes(fp16(1, 128, 128, 512, 512)) == 2 * 36 * (1024 * 512 * 2 + 512 * 512)


def c_initialiser(source: str, name: str) -> np.ndarray:
    found = re.search(rf"constexpr float {name}\[\d\]\[\d\] = (\{{.*?\}}\}});", source)
    assert found, name
    rows = re.findall(r"\{([^{}]*)\}", found.group(1))
    return np.array([[float(v.strip().rstrip("f")) for v in row.split(",")] for row in rows])


def test_filled_source_takes_the_projects_matrices_and_launches() -> None:
    wl, cfg = fp16(3, 37, 45, 128, 256, epilogue=ALL), PB
    kernels = f44_kernels(wl, cfg)
    a, b, g = transform_matrices(4)
    assert np.array_equal(c_initialiser(kernels.source, "kBT"), b.T)
    assert np.array_equal(c_initialiser(kernels.source, "kG"), g)
    assert np.array_equal(c_initialiser(kernels.source, "kAT"), a.T)
    scales = 2.0 ** -tap_scale_exponents(4)
    assert np.array_equal(c_initialiser(kernels.source, "kTapScale"), scales)
    assert not re.search(r"\{\{[A-Z_]+\}\}", kernels.source)
    assert "// wino-tvm: needs sm_90a" in kernels.source
    assert "constexpr bool kBias = true, kResidual = true, kRelu = true;" in kernels.source
    assert "constexpr bool kPersist = true;" in kernels.source
    tiles = 3 * 10 * 12  # 4x4 tiles of 37x45, three images
    padded = -(-tiles // 128) * 128
    assert {w.name: w.count for w in kernels.workspaces} == {
        "V": 36 * padded * 128, "M": 36 * padded * 256, "U": 36 * 128 * 256}
    (ktrans,) = kernels.weight_launches
    assert ktrans.kernel == "wino_f44_ktrans" and ktrans.args == ("w", "U")
    itrans, bgemm, otrans = kernels.forward_launches
    assert (itrans.kernel, itrans.args) == ("wino_f44_itrans", ("x", "V"))
    # items of 4 x 8 tiles (3 x 2 patches of each image's 10 x 12 tiles; one more for the 24
    # padding rows) and 16 channels, a thread per tile and 2 channels; persistent blocks (at
    # most one an item), static shared memory
    assert itrans.grid == ((3 * 3 * 2 + 1) * 128 // 16, 1, 1) and itrans.block == (256, 1, 1)
    assert itrans.shared_bytes == 0 and itrans.persistent and padded - tiles == 24
    assert "static_assert(kITransItems == 152 && kITransThreads == 256," in kernels.source
    assert (bgemm.kernel, bgemm.args, bgemm.persistent) == ("wino_f44_bgemm", ("V", "U", "M"), True)
    # The GEMM and OTrans start early, each waiting for the previous kernel's V or M first.
    assert [launch.early for launch in kernels.forward_launches] == [False, True, True]
    for body, first_read in (("void batched_gemm(", "tma_copy("),
                             ("void output_transform(", "load_halves<true>(M")):
        code = kernels.source.split(body)[1]
        assert code.index("grid_dependency_wait();") < code.index(first_read), body
    assert bgemm.grid == (padded // 128 * 36, 1, 1) and bgemm.block == (288, 1, 1)
    assert bgemm.shared_bytes == cfg.smem_bytes(wl) == 4 * (128 + 256) * 128 + 4 * 16
    assert otrans.args == ("M", "bias", "residual", "y")
    assert otrans.grid[0] == -(-tiles * 256 // 2 // 256)  # a thread per tile and 2 channels
    plain = f44_kernels(fp16(3, 37, 45, 128, 256), F44Config())
    assert plain.forward_launches[2].args == ("M", "y")
    assert not plain.forward_launches[1].persistent
    assert plain.forward_launches[1].grid == (padded // 128 * 36, 1, 1)


def test_blocks_of_64_tiles_pad_to_64_and_stand_side_by_side() -> None:
    wl, cfg = fp16(3, 37, 45, 128, 256), F44Config(block_m=64)
    kernels = f44_kernels(wl, cfg)
    padded = -(-3 * 10 * 12 // 64) * 64  # 384 rows against 512 at block_m 128
    assert {w.name: w.count for w in kernels.workspaces}["V"] == 36 * padded * 128
    assert kernels.forward_launches[1].grid == (padded // 64 * 36, 1, 1)
    assert cfg.warpgroup_n() == 128 and cfg.smem_bytes(wl) == 4 * (64 + 256) * 128 + 4 * 16
    assert "constexpr int kBlockM = 64;" in kernels.source


@pytest.mark.parametrize("argv, message", [
    (["--set", "block_n=64"], "block_n='64': choose one of 128, 256, 512"),
    (["--m", "2"], "f44 takes fp16 with fp32 accumulators at m=4, not fp16/fp32 at m=2"),
    (["--shape", "1,64,64,96,512"], "f44: C=96 must be a multiple of 64"),
    (["--arch", "sm_80"], "uses wgmma or TMA, which need an sm_90 GPU (H100, H200)"),
])
def test_cli_refuses_bad_input_in_one_line(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shape = [] if "--shape" in argv else ["--shape", "1,64,64,512,512"]
    m = [] if "--m" in argv else ["--m", "4"]
    assert build_main(["--family", "f44", *m, *argv, *shape, "--no-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


def test_space_offers_f44_at_m4_only() -> None:
    wl = fp16(1, 128, 128, 512, 512, m=2)
    kept, _ = config_space(wl, H200, Axes.parse("f44", (2, 4), []))
    names = sorted(c.cfg.name(c.wl) for c in kept)
    # block_m 128 with block_n 128 or 256, block_m 64 with 256, or 512 at 3 stages (4 exceed
    # shared memory); persistent or not; 3 or 4 stages
    assert len(names) == 14 and all(n.startswith("fp16-fp32-m4-f44-") for n in names), names
    kept, _ = config_space(wl, H200, Axes.parse("f44", (2,), []))
    assert kept == []


def test_runtime_orders_f44_first_only_under_a_bound_and_where_it_won() -> None:
    """The default bar excludes F(4x4); 3e-3 admits it, first at C = K = 512 (down to one
    block of 64 tiles), after f23 elsewhere (experiments: f44_template, f44_block_m)."""
    big = Conv2dWorkload(1, 128, 128, 512, 512, dtype="fp16")
    assert all(fam != "f44" for _, _, fam in defaults(big, H200, ACCURACY_BAR["fp16"]))
    for wl in (big, Conv2dWorkload(1, 28, 28, 512, 512, dtype="fp16")):
        assert [fam for _, _, fam in defaults(wl, H200, 3e-3)][0] == "f44"
    order = [fam for _, _, fam in defaults(Conv2dWorkload(1, 256, 256, 256, 256, dtype="fp16"),
                                           H200, 3e-3)]
    assert order[0] == "f23" and "f44" in order, order


def test_a_plain_f44_record_competes_with_f23_records_of_the_layers_epilogue() -> None:
    """The shipped H200 log has f23 records of 1x128²x512 with bias and residual and f44's
    only plain: under 3e-3 the faster f44 record comes first, under the default bar f23's."""
    layer = Conv2dWorkload(1, 128, 128, 512, 512, dtype="fp16", epilogue=("bias", "residual"))
    wl, cfg, why = candidates(layer, H200, Policy(bound=3e-3))[0]
    assert cfg.FAMILY == "f44" and wl.epilogue == ("bias", "residual") and "record" in why
    wl, cfg, _ = candidates(layer, H200, Policy())[0]
    assert cfg.FAMILY == "f23" and wl.m == 2


VARIANTS = {
    # odd N, H, W and C != K with the whole epilogue; a tile count past one block of 128; the
    # narrow GEMM block; one image smaller than a tile row; three chunks of C, two stages;
    # GEMM items in halves of 128 columns: all 36 of them, and (on 132 SMs) the 12 of 144 past
    # the first round
    "c128_k256_odd_epilogue_pb": (fp16(3, 37, 45, 128, 256, epilogue=ALL), PB),
    "c128_k256_odd_epilogue": (fp16(3, 37, 45, 128, 256, epilogue=ALL), F44Config()),
    "c192_k128_bn128_bias_pb": (fp16(2, 30, 17, 192, 128, epilogue=("bias",)),
                                PB.with_(block_n=128)),
    "c64_k128_tiny_residual_relu": (fp16(1, 7, 9, 64, 128, epilogue=("residual", "relu")),
                                    F44Config(block_n=128, stages=2)),
    "c512_28_pb_st3": (fp16(2, 28, 28, 512, 512), PB.with_(stages=3)),
    "c64_k256_halves_pb": (fp16(1, 20, 24, 64, 256, epilogue=("bias",)), PB),
    "c64_k256_last_round_halves_pb": (fp16(1, 80, 96, 64, 256, epilogue=("residual", "relu")),
                                      PB),
    # blocks of 64 tiles, the warpgroups side by side: odd shapes with the epilogue; two wgmmas
    # a warpgroup, all 36 items in halves (U's copies a half and warpgroup)
    "c128_k256_odd_epilogue_bm64_pb": (fp16(3, 37, 45, 128, 256, epilogue=ALL),
                                       PB.with_(block_m=64, stages=5)),
    "c64_k512_bm64_bn512_halves_pb": (fp16(1, 20, 24, 64, 512, epilogue=("bias",)),
                                      PB.with_(block_m=64, block_n=512, stages=3)),
}


artifacts, binaries = variant_fixtures("f44", VARIANTS, f44_kernels)


@pytest.mark.nvcc
@needs_nvcc
def test_every_variant_compiles_without_spills(artifacts: dict[str, Path]) -> None:
    with ThreadPoolExecutor(2) as pool:
        reports = dict(zip(artifacts, pool.map(lambda d: compile_check(d, archs=("sm_90",)),
                                               artifacts.values()), strict=True))
    for name, report in reports.items():
        assert list(report) == ["sm_90a"], name
        for kernel in ("wino_f44_itrans", "wino_f44_bgemm", "wino_f44_otrans", "wino_f44_ktrans"):
            assert_no_spills(report["sm_90a"], kernel, name)


@pytest.mark.nvcc
@needs_nvcc
def test_library_compiles_for_sm_90a(tmp_path: Path) -> None:
    wl, cfg = VARIANTS["c128_k256_odd_epilogue_pb"]
    assert_library_compiles(tmp_path, wl, cfg, f44_kernels)


@on_gpu
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_is_correct_on_gpu(binaries: dict[str, Path], name: str) -> None:
    assert_correct_on_gpu(binaries[name])
