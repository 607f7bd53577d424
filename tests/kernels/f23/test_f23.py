"""The F(2, 3) kernel (templates/f23_wgmma.cu via wino_tvm.kernels.f23): its config's grammar
and checks, the filled source and launches, the CLI, the tuner's space, nvcc (every variant class,
no spills) and, on a GPU, correctness against the harness's float64 reference. TVM-free, so it
also runs on the GPU machine."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sass import (
    chunk_loops,
    find_cuobjdump,
    in_flight_writes,
    mma_loop_local_accesses,
    sass_of,
    unpredicated,
)
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
from wino_tvm.kernels import FamilyConfig, parse_config
from wino_tvm.kernels.f23 import FAMILY
from wino_tvm.kernels.f23.config import TB_K, TB_M, TB_N, F23Config
from wino_tvm.kernels.f23.generate import f23_kernels
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.runner import compile_check
from wino_tvm.tune.space import Axes, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
ALL = ("bias", "residual", "relu")
ST3, ST4 = F23Config(stages=3), F23Config(stages=4)
CS2, CS4 = F23Config(stages=3, c_split=2), F23Config(stages=4, c_split=4)
PB3 = F23Config(stages=3, persist=True)
SK3 = F23Config(stages=3, persist=True, stream_k=True)
# compact GEMM rows (no garbage row between images)
ST3_CR, CS2_CR = ST3.with_(compact_rows=True), CS2.with_(compact_rows=True)
PB3_CR, SK3_CR = PB3.with_(compact_rows=True), SK3.with_(compact_rows=True)
# GEMM rows in pairs of tiles one row apart
ST3_RP, ST4_RP, PB3_RP, SK3_RP = (c.with_(row_pairs=True) for c in (ST3, ST4, PB3, SK3))
CS2_CR_RP, SK3_CR_RP = CS2_CR.with_(row_pairs=True), SK3_CR.with_(row_pairs=True)
CS2_RP, PB3_CR_RP = CS2.with_(row_pairs=True), PB3_CR.with_(row_pairs=True)
# a producer warpgroup issuing the input copies
ST3_PW, ST4_PW, PB3_PW = (c.with_(producer=True) for c in (ST3, ST4, PB3))
PB3_RP_PW, PB3_CR_RP_PW = PB3_RP.with_(producer=True), PB3_CR_RP.with_(producer=True)


def int8(*shape: int, out: str = "", epilogue: tuple[str, ...] = ()) -> Conv2dWorkload:
    return Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp32", out=out, epilogue=epilogue)


def fp16(*shape: int, accum: str = "fp32", epilogue: tuple[str, ...] = (),
         m: int = 2) -> Conv2dWorkload:
    return Conv2dWorkload(*shape, dtype="fp16", m=m, accum=accum, epilogue=epilogue)


def test_name_round_trips() -> None:
    wl = fp16(32, 14, 14, 256, 256)
    name = ST3.name(wl)
    assert name == "fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-st3"
    assert parse_config(name) == ({"dtype": "fp16", "accum": "fp32", "m": 2}, ST3)
    assert ST3.FAMILY == "f23" and isinstance(parse_config(name)[1], F23Config)
    assert parse_config(ST4.name(wl))[1] == ST4
    assert CS2.name(wl) == name + "-cs2" and parse_config(name + "-cs2")[1] == CS2
    persistent = name.replace("-f23", "-pb-f23")
    assert PB3.name(wl) == persistent and parse_config(persistent)[1] == PB3
    assert SK3.name(wl) == persistent.replace("-f23", "-f23-sk")
    assert parse_config(SK3.name(wl))[1] == SK3
    assert SK3_CR.name(wl) == SK3.name(wl).replace("-sk", "-sk-cr")
    assert parse_config(SK3_CR.name(wl))[1] == SK3_CR
    assert parse_config(name.replace("-f23", "-f23-cr"))[1] == ST3_CR
    assert SK3_CR_RP.name(wl) == SK3.name(wl).replace("-sk", "-sk-cr-rp")
    assert parse_config(SK3_CR_RP.name(wl))[1] == SK3_CR_RP
    assert parse_config(name.replace("-f23", "-f23-rp"))[1] == ST3_RP
    assert ST3_PW.name(wl) == name + "-pw" and parse_config(name + "-pw")[1] == ST3_PW
    assert ST3.needs_sm90a
    # f23 is a kernel of its own: not the lane kernel, no lane knob but stages
    for bad in (name.replace("-f23", "-pb-lane-f23"),
                name.replace("-f23", "-wg-f23"), name.replace("-f23", "-f23-ts2"),
                name.replace("-f23-st3", "-st3"), name.replace("-f23-st3", "-pb-lane-cs2"),
                name + "-cs1",
                name.replace("-f23", "-pb-lane-sk"), name.replace("-f23", "-pb-lane-cr"),
                name.replace("-f23-st3", "-f23-cr-sk-st3"), name.replace("-f23", "-pb-lane-rp"),
                name.replace("-f23-st3", "-f23-rp-cr-st3")):
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            parse_config(bad)


@pytest.mark.parametrize("bad", [
    # persistent blocks do not split C; stream-K is a schedule of persistent blocks
    "fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st3-cs2",
    "fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-sk-st3",
])
def test_a_name_of_knobs_that_exclude_each_other_is_refused(bad: str) -> None:
    """As before the families: a name whose knobs contradict each other names no config."""
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config(bad)


def test_tiles_and_fragment_are_fixed() -> None:
    """The tiles and the fragment are no knobs: fixed in the class and in every name."""
    assert (F23Config.tb_m, F23Config.tb_n, F23Config.tb_k) == (TB_M, TB_N, TB_K) == (128, 64, 16)
    assert (ST3.tb_m, ST3.tb_n, ST3.tb_k) == (128, 64, 16)
    assert not {"tb_m", "tb_n", "tb_k", "frag"} & set(F23Config.KNOBS)
    for cfg in (ST3, CS2, SK3_CR_RP):
        assert "-tbm128-tbn64-tbk16-frag64x64x16-full-" in cfg.name(fp16(32, 14, 14, 256, 256))


@pytest.mark.parametrize("wl, cfg, message", [
    (Conv2dWorkload(32, 14, 14, 256, 256, dtype="int8", m=2), ST3,
     "f23 takes fp16 or int8 with fp32 accumulators, not int8 with int32"),
    (int8(32, 14, 14, 256, 256), PkfConfig(),
     "pkf: int8 with fp32 accumulators runs in the lane (fp16) or f23 (fp32) family: use accum "
     "int32 for the int8 MMA kernels"),
    (int8(32, 14, 14, 256, 256), LaneConfig(tb_n=16, tb_k=16),
     "lane runs int8 on fp16 tensor cores: it takes accum fp16, not fp32"),
    (fp16(32, 14, 14, 256, 256, accum="fp16"), ST3,
     "f23 takes fp16 or int8 with fp32 accumulators, not fp16 with fp16"),
    (fp16(32, 14, 14, 256, 256, m=4), ST3, "f23 computes 2 output pixels per tile (m=2), not m=4"),
    (fp16(32, 14, 14, 40, 256), ST3, "f23: C=40 must be a multiple of 16"),
    (fp16(32, 14, 14, 40, 96), ST3,
     "f23: C=40 must be a multiple of 16 and K=96 must be a multiple of 64"),
    (fp16(32, 14, 14, 256, 96), ST3, "f23: K=96 must be a multiple of 64"),
    (fp16(32, 14, 14, 256, 256), F23Config(stages=2), "f23: stages=2 is not one of 3, 4"),
    (fp16(4096, 512, 512, 256, 256), ST3,
     "f23: x and y must have fewer than 2^31 elements (32-bit offsets): split the batch N=4096"),
    # shared memory: the fix is fewer stages where they fit, else strips
    (fp16(32, 56, 56, 64, 64), ST4, ("exceeds NVIDIA H100's 232448 B per block", "fewer stages")),
    (fp16(8, 112, 112, 64, 64), ST3, ("exceeds NVIDIA H100's 232448 B per block", "strips (sw)")),
    (fp16(32, 14, 14, 48, 256), ST3.with_(x_chunks=2),
     "f23: x_chunks=2 (xc) must divide a block's 3 chunks of 16 channels (C=48, c_split=1)"),
    (fp16(32, 14, 14, 256, 256), SK3.with_(x_chunks=2),
     "f23: x_chunks=2 is not a stream-K schedule: drop stream_k"),
    (fp16(1, 56, 56, 256, 256), ST3.with_(strip=32),
     "f23: strip=32 tiles (sw) is not below W=56's 28 tiles a row: drop strip"),
    (fp16(32, 14, 14, 256, 256), F23Config(stages=3, c_split=3),
     "f23: c_split=3 is not one of 1, 2, 4"),
    (fp16(32, 14, 14, 48, 256), CS2,
     "f23: c_split=2 must divide C=48's 3 chunks of 16 channels"),
    (fp16(32, 14, 14, 256, 256), F23Config(stages=3, c_split=2, persist=True),
     "f23: persist=1 does not split C: drop c_split"),
    (fp16(32, 14, 14, 256, 256), F23Config(stages=3, stream_k=True),
     "f23: stream_k=1 is a schedule of persistent blocks: add persist"),
    (fp16(32, 56, 56, 64, 64), ST3_CR.with_(stages=4),
     ("exceeds NVIDIA H100's 232448 B per block", "fewer stages")),
    (fp16(32, 7, 7, 512, 512), PB3_CR.with_(row_pairs=True),
     "f23: row pairs (rp) of compact rows (cr) pair the rows of an image, H=7 is odd: drop one"),
    (fp16(32, 14, 14, 256, 256), CS2.with_(producer=True),
     "f23: producer=1 takes neither stream-K nor a C split: drop stream_k and c_split"),
    (fp16(32, 14, 14, 256, 256), SK3.with_(producer=True),
     "f23: producer=1 takes neither stream-K nor a C split: drop stream_k and c_split"),
])
def test_problems_name_the_fix(wl: Conv2dWorkload, cfg: FamilyConfig,
                              message: str | tuple[str, ...]) -> None:
    problems = "; ".join(cfg.problems(wl, H100))
    for part in (message,) if isinstance(message, str) else message:
        assert part in problems


@pytest.mark.parametrize("config, knob, value", [
    # the tiles, the fragment and the TVM family's and the lane kernel's knobs on f23's config
    (F23Config, "tb_n", 128), (F23Config, "ot_channels", 2), (F23Config, "groups", 2),
    (F23Config, "wgmma", True), (F23Config, "tap_split", 2),
    # f23's knobs (but persist) on the TVM family's config
    (PkfConfig, "c_split", 2), (PkfConfig, "stream_k", True), (PkfConfig, "compact_rows", True),
    (PkfConfig, "row_pairs", True),
])
def test_a_knob_of_another_family_is_refused(config: type[FamilyConfig], knob: str,
                                             value: object) -> None:
    """A family's config has its own knobs only: no field for another's, and --set names the
    family's knobs."""
    with pytest.raises(TypeError):
        config(**{knob: value})
    with pytest.raises(TypeError):
        config().with_(**{knob: value})
    with pytest.raises(WinoError, match=rf"--set '{knob}=2': expected KNOB=VALUE with KNOB one "
                                        rf"of the {config.FAMILY} family's "
                                        rf"{', '.join(config.KNOBS)}: {knob} is a knob of "
                                        rf"--family [a-z0-9 /]+$"):
        config.from_settings([f"{knob}=2"])


F23 = ["--family", "f23"]


@pytest.mark.parametrize("argv, message", [
    # a lane knob, the tiles, the TVM family's knobs on f23: the f23 family's knobs named
    ([*F23, "--set", "tap_split=2"], "with KNOB one of the f23 family's persist, stream_k, "
     "compact_rows, row_pairs, stages, strip, x_chunks, c_split, producer"),
    ([*F23, "--set", "tb_n=32"], "with KNOB one of the f23 family's persist, stream_k, "
     "compact_rows, row_pairs, stages, strip, x_chunks, c_split, producer"),
    ([*F23, "--set", "groups=2"], "with KNOB one of the f23 family's persist, stream_k, "
     "compact_rows, row_pairs, stages, strip, x_chunks, c_split, producer"),
    ([*F23, "--set", "wgmma=1"], "--set 'wgmma=1': expected KNOB=VALUE with KNOB one of the f23 "
     "family's"),
    ([*F23, "--fusion", "full"], "--fusion is a knob of the pkf family, not f23: drop it or use "
     "--family pkf"),
    ([*F23, "--arch", "sm_80"], "uses wgmma or TMA, which need an sm_90 GPU (H100, H200), not "
     "NVIDIA A100 (sm_80)"),
    ([*F23, "--set", "stages=4", "--arch", "sm_80"],
     "uses wgmma or TMA, which need an sm_90 GPU (H100, H200), not NVIDIA A100 (sm_80)"),
    ([*F23, "--accum", "fp16"], "the f23 family does not take fp16 with fp16 accumulators: use "
     "--family pkf or --family lane"),
    ([*F23, "--dtype", "int8", "--accum", "fp32", "--m", "4"],
     "int8 with fp32 accumulators runs on fp16 MMAs and takes m=2 only, not m=4"),
    (["--dtype", "int8", "--accum", "fp32", "--m", "2"], "--family f23"),
    ([*F23, "--set", "stages=5"], "stages='5': choose one of 3, 4"),
    ([*F23, "--shape", "1,112,112,64,64", "--set", "strip=0", "--set", "stages=3"],
     ("f23: shared memory", "the input patches of W=112 in 3 stages) exceeds NVIDIA H100's "
      "232448 B per block", "strips (sw) for images this wide")),
    ([*F23, "--set", "c_split=8"], "c_split='8': choose one of 1, 2, 4"),
    ([*F23, "--set", "persist=1", "--set", "c_split=2"],
     "f23: persist=1 does not split C: drop c_split"),
    ([*F23, "--set", "persist=0", "--set", "stream_k=1"],
     "f23: stream_k=1 is a schedule of persistent blocks: add persist"),
    ([*F23, "--set", "compact_rows=1", "--set", "row_pairs=1", "--shape", "32,7,7,512,512"],
     "H=7 is odd: drop one"),
    ([*F23, "--set", "producer=1", "--set", "c_split=2"],
     "f23: producer=1 takes neither stream-K nor a C split: drop stream_k and c_split"),
])
def test_cli_refuses_bad_input_in_one_line(argv: list[str], message: str | tuple[str, ...],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shape = [] if "--shape" in argv else ["--shape", "32,14,14,256,256"]
    assert build_main([*argv, *shape, "--no-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for part in (message,) if isinstance(message, str) else message:
        assert part in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("knob", ["c_split", "stream_k", "compact_rows", "row_pairs"])
def test_cli_names_the_family_of_an_f23_knob(knob: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An f23 knob set without --family f23 (the default family, pkf, has none of them): one
    line naming the family to add, as the old per-knob flags' "add --f23" did."""
    value = "2" if knob == "c_split" else "1"
    argv = ["--set", f"{knob}={value}", "--shape", "32,14,14,256,256", "--no-run"]
    assert build_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert f"--set '{knob}={value}'" in err and "pkf family's" in err
    assert "--family f23" in err, err


def test_filled_source_and_launches() -> None:
    wl, cfg = fp16(3, 5, 9, 32, 128, epilogue=("bias", "relu")), ST4
    kernels = f23_kernels(wl, cfg)
    assert not re.search(r"\{\{[A-Z0-9_]+\}\}", kernels.source)
    assert "// wino-tvm: needs sm_90a\n" in kernels.source
    assert "constexpr bool kBias = true, kResidual = false, kRelu = true;" in kernels.source
    assert f"static_assert(kSmemBytes == {cfg.smem_bytes(wl)}," in kernels.source
    (ktrans,), (forward,) = kernels.weight_launches, kernels.forward_launches
    assert ktrans.args == ("w", "U") and ktrans.grid[0] * ktrans.block[0] >= 32 * 128
    # 3 images x (5 + 1) rows x 5 tiles = 90 rows: one block of 128; two blocks of 64 channels
    assert forward.grid == (2, 1, 1) and forward.block == (256, 1, 1)
    assert not forward.persistent and forward.args == ("x", "U", "bias", "y")
    # U's ring (4 x 24 KB), two warpgroups' 4 patch buffers (V rows 64 + 10 over 5 tiles a row:
    # 16 rows of 12 pixels of 24 halves and, as 5 % 4 != 0, a pad of 16 halves against bank
    # conflicts; V itself is not staged), the ring's 8 mbarriers
    patch = 16 * (12 * 24 + 16) * 2
    assert forward.shared_bytes == cfg.smem_bytes(wl) == 4 * 24576 + 2 * 4 * patch + 8 * 8
    assert [ws.count for ws in kernels.workspaces] == [12 * 32 * 128]
    assert "__cluster_dims__" not in kernels.source
    assert "constexpr bool kCompactRows = false;" in kernels.source
    # compact rows: 3 x 5 x 5 = 75 rows; 64 rows span up to 14 output rows of 5-row images, so
    # 14 padded rows, 3 zero rows between images and 2 below: 19 rows of 12 pixels and the pad,
    # to 128 bytes
    compact = f23_kernels(wl, cfg.with_(compact_rows=True))
    assert "constexpr bool kCompactRows = true;" in compact.source
    assert compact.forward_launches[0].grid == (2, 1, 1)
    assert compact.forward_launches[0].shared_bytes == (
        4 * 24576 + 2 * 4 * -(-19 * (12 * 24 + 16) * 2 // 128) * 128 + 8 * 8)
    assert cfg.with_(compact_rows=True).rows(fp16(3, 7, 7, 16, 64)) == 3 * 7 * 4
    assert cfg.rows(fp16(3, 7, 7, 16, 64)) == 3 * 8 * 4
    # row pairs: 32 pairs of rows over 5 tiles a row reach up to 8 pairs (16 rows) and 2 below:
    # 18 rows and a pad of 24 halves (the banks in step across two rows); the rows rounded up to
    # whole pairs (3 x 7 rows of tiles: 22)
    paired = f23_kernels(wl, cfg.with_(row_pairs=True))
    assert "constexpr bool kRowPairs = true;" in paired.source
    assert "constexpr bool kRowPairs = false;" in kernels.source
    assert paired.forward_launches[0].grid == (2, 1, 1)
    assert paired.forward_launches[0].shared_bytes == (
        4 * 24576 + 2 * 4 * -(-18 * (12 * 24 + 24) * 2 // 128) * 128 + 8 * 8)
    assert cfg.with_(row_pairs=True).rows(fp16(3, 6, 7, 16, 64)) == 22 * 4
    assert cfg.with_(row_pairs=True, compact_rows=True).rows(fp16(3, 6, 7, 16, 64)) == 18 * 4
    assert "constexpr int kSplits = 1;" in kernels.source
    # the C split: a cluster of blocks along z, fixed at compile time, same shared memory
    split = f23_kernels(wl, F23Config(stages=4, c_split=2))
    (forward,) = split.forward_launches
    assert forward.grid == (2, 1, 2) and forward.shared_bytes == cfg.smem_bytes(wl)
    assert "__cluster_dims__(1, 1, 2)" in split.source
    assert "constexpr int kSplits = 2;" in split.source
    # persistent: every tile along x, the harness launching as many as stay resident
    (forward,) = f23_kernels(wl, PB3).forward_launches
    assert forward.grid == (2, 1, 1) and forward.persistent
    assert "constexpr bool kPersist = true;" in f23_kernels(wl, PB3).source
    assert "constexpr bool kPersist = false;" in kernels.source
    # stream-K: a block per chunk of all tiles (2 tiles x 2 chunks), its partial sums' and
    # flags' workspaces, the flags cleared in the weight transform
    streamed = f23_kernels(wl, SK3)
    (forward,) = streamed.forward_launches
    assert forward.grid == (4, 1, 1) and forward.persistent
    assert forward.args == ("x", "U", "bias", "partials", "flags", "y")
    assert [(ws.name, ws.c_type, ws.count) for ws in streamed.workspaces] == [
        ("U", "half", 12 * 32 * 128), ("partials", "float", 144 * 256 * 64),
        ("flags", "unsigned", 144 * 2)]
    assert [launch.kernel for launch in streamed.weight_launches] == [
        "wino_f23_ktrans", "wino_f23_clear_flags"]
    assert "constexpr bool kStreamK = true;" in streamed.source
    assert "constexpr bool kStreamK = false;" in kernels.source
    # at most SK_MAX_BLOCKS blocks, the partials' slots
    (forward,) = f23_kernels(fp16(128, 14, 14, 256, 256), SK3).forward_launches
    assert forward.grid == (144, 1, 1)
    # the producer: a third warpgroup, one input ring for both MMA warpgroups (128 V rows + 10
    # over 5 tiles a row: 29 rows) and two mbarriers a stage of it
    produced = f23_kernels(wl, ST4_PW)
    (forward,) = produced.forward_launches
    assert forward.grid == (2, 1, 1) and forward.block == (384, 1, 1)
    assert forward.shared_bytes == ST4_PW.smem_bytes(wl) == (
        4 * 24576 + 4 * -(-29 * (12 * 24 + 16) * 2 // 128) * 128 + 8 * 8 + 2 * 4 * 8)
    assert "constexpr bool kProducer = true;" in produced.source
    assert "constexpr bool kProducer = false;" in kernels.source


def test_int8_fills_types_scale_and_patch() -> None:
    # int8 x and w, float bias (integer units), an int8 y divided by y_scale, after stream-K's
    # workspaces
    wl = int8(3, 5, 9, 32, 128, out="int8", epilogue=("bias", "relu"))
    kernels = f23_kernels(wl, SK3)
    (forward,) = kernels.forward_launches
    assert forward.args == ("x", "U", "bias", "partials", "flags", "y_scale", "y")
    for line in ("using XT = int8_t;", "using YT = int8_t;", "using ET = float;",
                 "constexpr bool kScaledOut = true;", "const int8_t* __restrict__ x",
                 "const float* __restrict__ bias", "const float* __restrict__ y_scale",
                 "int8_t* __restrict__ y", "flags,\n                    y_scale, y);"):
        assert line in kernels.source, line
    assert "constexpr bool kScaledOut = false;" in f23_kernels(int8(3, 5, 9, 32, 128), ST3).source
    assert "using XT = half;" in f23_kernels(fp16(3, 5, 9, 32, 128), ST3).source
    # the patch in bytes: 16 rows of 12 int8 pixels (16 bytes) and a 16-byte pad, where fp16's
    # pixels take 48 and its pad 32
    patch = 16 * (12 * 16 + 16)
    assert ST4.row_pad_bytes(wl) == 16 and ST4.row_pad_bytes(fp16(3, 5, 9, 32, 128)) == 32
    assert ST4.smem_bytes(wl) == 4 * 24576 + 2 * 4 * -(-patch // 128) * 128 + 8 * 8


@pytest.mark.parametrize("h, compact_rows, row_pairs, pad", [
    (14, False, False, 16), (14, True, True, 48), (28, False, True, 0), (7, False, True, 0)])
def test_int8_row_pad_keeps_loads_within_two_wavefronts(h: int, compact_rows: bool,
                                                        row_pairs: bool, pad: int) -> None:
    # the pads found by counting banks (16-byte pixels: 2 wavefronts at best); padding nothing
    # at 14² stacks 3 loads on a bank where a warp's tiles cross rows
    cfg = ST3.with_(compact_rows=compact_rows, row_pairs=row_pairs)
    assert cfg.row_pad_bytes(int8(128, h, h, 128, 128)) == pad


def test_default_takes_strips_row_pairs_and_two_chunk_stages_where_they_apply() -> None:
    # the H200 sweeps' picks (bench/h200/compute.md)
    vae = family_default(fp16(1, 256, 256, 256, 256))
    assert (vae.strip, vae.row_pairs, vae.x_chunks, vae.persist) == (8, True, 2, True)
    # the producer warpgroup where C is not split
    assert vae.producer and family_default(fp16(128, 14, 14, 256, 256)).producer
    # persistent blocks: three input buffers on strips, four on whole rows
    assert vae.stages == 3 and family_default(fp16(128, 7, 7, 512, 512)).stages == 4
    # rows of 8 tiles or fewer stay whole; C split of two where the tiles fill few SMs
    small = family_default(fp16(1, 14, 14, 512, 512))
    assert (small.strip, small.row_pairs, small.x_chunks, small.c_split) == (0, True, 2, 2)
    assert not small.producer
    # compact rows (136 tiles -> 119: one round of persistent blocks) of odd H: no row pairs;
    # 3 chunks: one chunk a stage
    odd = family_default(fp16(544, 7, 7, 48, 64))
    assert odd.compact_rows and not odd.row_pairs and odd.x_chunks == 1
    # strips of 7 with compact rows where they take fewer rounds of persistent blocks (456
    # blocks in 4 rounds -> 392 in 3 at 8x56²x256), not where the rounds stay (2 at 8x28²x512)
    narrow = family_default(fp16(8, 56, 56, 256, 256))
    assert (narrow.strip, narrow.compact_rows, narrow.producer) == (7, True, True)
    assert family_default(fp16(8, 28, 28, 512, 512)).strip == 8


def family_default(wl: Conv2dWorkload) -> F23Config:
    cfg = FAMILY.default(wl, KNOWN_DEVICES["h200"])
    assert cfg.problems(wl, KNOWN_DEVICES["h200"]) == []
    return cfg


def test_space_offers_f23_only_where_it_applies() -> None:
    for wl, stages in ((fp16(32, 14, 14, 256, 256), {3, 4}), (fp16(32, 28, 28, 128, 128), {3, 4}),
                       (fp16(32, 56, 56, 64, 64), {3, 4}),  # 4 stages with strips only
                       (fp16(128, 7, 7, 512, 512), {3, 4}), (fp16(1, 224, 224, 64, 64), {3, 4}),
                       (fp16(32, 14, 14, 256, 256, accum="fp16"), set()),
                       (int8(32, 14, 14, 256, 256), {3, 4})):
        space, _ = config_space(wl, H100)
        f23 = [c for c in space if c.cfg.FAMILY == "f23"]
        assert {c.cfg.stages for c in f23} == stages
        assert all(c.wl.m == 2 and isinstance(c.cfg, F23Config) for c in f23)
        # the family's own space is the same
        alone, _ = config_space(wl, H100, Axes(families=("f23",)))
        assert [c.cfg for c in alone] == [c.cfg for c in f23]
    # the C split where it divides C's 16-channel chunks: 8 at C = 128, 2 at C = 32
    splits = Axes(families=("f23",), knobs={"f23": {"stages": (3,), "c_split": (1, 2, 4)}})
    for wl, offered in ((fp16(32, 28, 28, 128, 128), {1, 2, 4}), (fp16(8, 14, 14, 32, 64), {1, 2})):
        space, _ = config_space(wl, H100, splits)
        assert {c.cfg.c_split for c in space if c.cfg.FAMILY == "f23"} == offered
    # persistent blocks, not with the C split; stream-K only on persistent blocks
    both = Axes(families=("f23",), knobs={"f23": {"stages": (3,), "c_split": (1, 2),
                                                  "persist": (False, True)}})
    space, _ = config_space(fp16(32, 28, 28, 128, 128), H100, both)
    assert {(c.cfg.c_split, c.cfg.persist, c.cfg.stream_k, c.cfg.producer) for c in space} == {
        (1, False, False, False), (2, False, False, False), (1, True, False, False),
        (1, True, True, False), (1, False, False, True), (1, True, False, True)}
    # row pairs and compact rows, but not both where H is odd
    layouts = Axes(families=("f23",), knobs={"f23": {"stages": (3,), "c_split": (1,),
                                                     "persist": (True,), "stream_k": (False,)}})
    for wl, offered in ((fp16(32, 14, 14, 256, 256), {(False, False), (True, False),
                                                       (False, True), (True, True)}),
                        (fp16(32, 7, 7, 512, 512), {(False, False), (True, False),
                                                     (False, True)})):
        space, _ = config_space(wl, H100, layouts)
        assert {(c.cfg.compact_rows, c.cfg.row_pairs) for c in space} == offered


def test_space_offers_no_f23_config_on_an_sm_80_gpu() -> None:
    """An sm_90a kernel (wgmma, TMA, clusters): not in the space of a GPU that cannot run it (it
    was opt-in before the families; now every family is in the default axes)."""
    f23 = Axes(families=("f23",))
    for wl in (fp16(32, 14, 14, 256, 256), int8(32, 14, 14, 256, 256)):
        assert config_space(wl, H100, f23)[0]
        assert [c.cfg.name(c.wl) for c in config_space(wl, KNOWN_DEVICES["a100"], f23)[0]] == []


# Every class of variant: the benchmark's C >= 128 shapes (14², 28², 7²: 8 to 32 chunks), 56²,
# both ring depths, the whole epilogue and each part, odd widths (a tile's second pixel past the
# image), one or two chunks (fewer than the rings run ahead), a last block of rows past the
# images, and two blocks along K; the C split in clusters of 2 and 4 (down to one chunk a block,
# fewer than the rings run ahead); persistent blocks over more tiles than the H100 has SMs (148
# of 3 chunks, odd widths: the rings' stages and phases run on across tiles; 312 of one chunk).
VARIANTS = {
    "c256_14": (fp16(2, 14, 14, 256, 256), ST3),
    "c256_14_st4_epilogue": (fp16(2, 14, 14, 256, 128, epilogue=ALL), ST4),
    "c128_28_residual": (fp16(2, 28, 28, 128, 128, epilogue=("residual",)), ST3),
    "c64_56_bias": (fp16(2, 56, 56, 64, 128, epilogue=("bias",)), ST3),
    "c512_7_st4_bias_odd": (fp16(3, 7, 7, 512, 64, epilogue=("bias",)), ST4),
    "c16_one_chunk_odd_relu": (fp16(3, 5, 9, 16, 128, epilogue=("relu",)), ST3),
    "c16_cr_one_chunk_odd_relu": (fp16(3, 5, 9, 16, 128, epilogue=("relu",)), ST3_CR),
    "c32_two_chunks_st4_epilogue_odd": (fp16(2, 11, 13, 32, 64, epilogue=ALL), ST4),
    "c512_7_cs2_cr_epilogue": (fp16(3, 7, 7, 512, 128, epilogue=ALL), CS2_CR),
    "c256_14_cs2_residual": (fp16(2, 14, 14, 256, 64, epilogue=("residual",)), CS2),
    "c64_cs4_one_chunk_odd_bias_relu": (fp16(2, 11, 13, 64, 64, epilogue=("bias", "relu")), CS4),
    "c48_pb_odd_epilogue_148_tiles": (fp16(48, 13, 13, 48, 256, epilogue=ALL), PB3),
    "c48_pb_cr_odd_epilogue": (fp16(48, 13, 13, 48, 256, epilogue=ALL), PB3_CR),
    "c16_28_pb_one_chunk_relu_312_tiles": (fp16(12, 28, 28, 16, 512, epilogue=("relu",)), PB3),
    "c256_14_sk_n128": (fp16(128, 14, 14, 256, 256), SK3),
    "c256_14_sk_cr_n128": (fp16(128, 14, 14, 256, 256), SK3_CR),
    "c48_sk_odd_epilogue_148_tiles": (fp16(48, 13, 13, 48, 256, epilogue=ALL), SK3),
    "c32_sk_two_tiles_odd_epilogue": (fp16(3, 5, 9, 32, 128, epilogue=ALL), SK3),
    # images of 1 and 2 rows (with compact rows every GEMM row at an image's edge)
    "c32_h1_pb_cr_odd_epilogue": (fp16(40, 1, 9, 32, 64, epilogue=ALL), PB3_CR),
    "c48_h2_sk_cr_odd": (fp16(33, 2, 7, 48, 128), SK3_CR),
    "c48_h2_pb_odd": (fp16(33, 2, 7, 48, 128), PB3),
    # row pairs: one chunk; the C = 512 shape, not persistent; the C split with compact rows;
    # persistent blocks over 148 tiles; stream-K with compact rows of 2-row images; and padded
    # rows of tiles in an odd number (33 x 3: the last pair's second row past the images)
    "c16_rp_one_chunk_odd_relu": (fp16(3, 5, 9, 16, 128, epilogue=("relu",)), ST3_RP),
    "c512_7_rp_st4_bias_odd": (fp16(3, 7, 7, 512, 64, epilogue=("bias",)), ST4_RP),
    "c512_8x7_cs2_cr_rp_epilogue": (fp16(3, 8, 7, 512, 128, epilogue=ALL), CS2_CR_RP),
    "c48_pb_rp_odd_epilogue_148_tiles": (fp16(48, 13, 13, 48, 256, epilogue=ALL), PB3_RP),
    "c256_14_sk_rp_n128": (fp16(128, 14, 14, 256, 256), SK3_RP),
    "c48_h2_sk_cr_rp_odd": (fp16(33, 2, 7, 48, 128), SK3_CR_RP),
    "c48_h2_pb_rp_odd_rows": (fp16(33, 2, 7, 48, 128), PB3_RP),
    # strips (virtual images of a strip's width): a last strip of fewer tiles and a tile past
    # the image (odd W), with every schedule and row layout; int8 with its patch pads
    "c128_sw8_odd_epilogue": (fp16(2, 9, 37, 128, 64, epilogue=ALL), ST3.with_(strip=8)),
    "c64_sw16_pb_cr_rp": (fp16(3, 10, 70, 64, 128), PB3_CR_RP.with_(strip=16)),
    "c32_sw8_sk_odd_residual": (fp16(5, 7, 45, 32, 64, epilogue=("residual",)),
                                SK3.with_(strip=8)),
    "c256_sw16_pb_4_strips": (fp16(1, 40, 100, 256, 128, epilogue=ALL), PB3.with_(strip=16)),
    "c512_sw32_cs2_odd_bias": (fp16(1, 19, 129, 512, 64, epilogue=("bias",)),
                               CS2.with_(strip=32)),
    "int8_c64_sw8_cs2_rp_int8y_epilogue": (
        int8(2, 9, 27, 64, 128, out="int8", epilogue=ALL), CS2_RP.with_(strip=8)),
    # two chunks an input stage (xc2): strips, whole rows with the row pad, the C split with row
    # pairs, persistent blocks (128 tiles) with compact rows and row pairs, int8
    "c256_sw8_pb_xc2_epilogue": (fp16(1, 40, 100, 256, 128, epilogue=ALL),
                                 PB3.with_(strip=8, x_chunks=2)),
    "c64_xc2_odd_bias_relu": (fp16(2, 11, 13, 64, 64, epilogue=("bias", "relu")),
                                  ST3.with_(x_chunks=2)),
    "c128_8x7_xc2_cs2_rp_residual": (fp16(3, 8, 7, 128, 128, epilogue=("residual",)),
                                     CS2_RP.with_(x_chunks=2)),
    "c96_pb_cr_rp_xc2_odd_epilogue_128_tiles": (fp16(48, 12, 13, 96, 256, epilogue=ALL),
                                                PB3_CR_RP.with_(x_chunks=2)),
    "int8_c64_sw8_xc2_int8y_epilogue": (int8(2, 9, 27, 64, 128, out="int8", epilogue=ALL),
                                        ST3.with_(strip=8, x_chunks=2)),
    # strips of 7 tiles (odd): three whole strips and a last one of 2 tiles, one past the image
    "c256_sw7_pb_cr_rp_xc2_odd_epilogue": (fp16(2, 12, 45, 256, 128, epilogue=ALL),
                                           PB3_CR_RP.with_(strip=7, x_chunks=2)),
    # int8 in (x int8 in shared memory, exact in fp16): each y, the epilogue in integer units
    # (float bias and residual), each row layout and schedule, the patch's row pads (W = 7 .. 28)
    "int8_c256_14": (int8(2, 14, 14, 256, 256), ST3),
    "int8_c128_28_pb_cr_rp_int8y_epilogue": (
        int8(2, 28, 28, 128, 128, out="int8", epilogue=ALL), PB3_CR_RP),
    "int8_c512_7_cs2_rp_fp16y_bias": (
        int8(3, 7, 7, 512, 128, out="fp16", epilogue=("bias",)), CS2_RP),
    "int8_c48_sk_cr_odd_int8y_epilogue": (
        int8(48, 13, 13, 48, 256, out="int8", epilogue=ALL), SK3_CR),
    "int8_c16_rp_one_chunk_odd_fp16y_relu": (
        int8(3, 5, 9, 16, 128, out="fp16", epilogue=("relu",)), ST3_RP),
    # the producer warpgroup: one chunk and two (fewer than the rings run ahead), odd widths;
    # persistent blocks over 148 tiles (its input ring's phases run on across tiles) and over
    # compact rows in pairs with two chunks a stage; strips of 8 as the VAE shapes' default, of 7
    # as the default where they save a round (odd W: a last strip of 2 tiles); int8
    "c256_14_pw": (fp16(2, 14, 14, 256, 256), ST3_PW),
    "c16_pw_one_chunk_odd_relu": (fp16(3, 5, 9, 16, 128, epilogue=("relu",)), ST3_PW),
    "c32_st4_pw_two_chunks_odd_epilogue": (fp16(2, 11, 13, 32, 64, epilogue=ALL), ST4_PW),
    "c48_pb_pw_odd_epilogue_148_tiles": (fp16(48, 13, 13, 48, 256, epilogue=ALL), PB3_PW),
    "c96_pb_cr_rp_xc2_pw_odd_epilogue_128_tiles": (fp16(48, 12, 13, 96, 256, epilogue=ALL),
                                                   PB3_CR_RP_PW.with_(x_chunks=2)),
    "c256_sw8_pb_rp_xc2_pw_epilogue": (fp16(1, 40, 100, 256, 128, epilogue=ALL),
                                       PB3_RP_PW.with_(strip=8, x_chunks=2)),
    "c256_sw7_pb_cr_rp_xc2_pw_odd_epilogue": (fp16(2, 12, 45, 256, 128, epilogue=ALL),
                                              PB3_CR_RP_PW.with_(strip=7, x_chunks=2)),
    "int8_c128_28_pb_cr_rp_pw_int8y_epilogue": (
        int8(2, 28, 28, 128, 128, out="int8", epilogue=ALL), PB3_CR_RP_PW),
    "int8_c64_sw8_st4_rp_xc2_pw_fp16y": (int8(2, 9, 27, 64, 128, out="fp16"),
                                         ST4_PW.with_(row_pairs=True, strip=8, x_chunks=2)),
}


artifacts, binaries = variant_fixtures("f23", VARIANTS, f23_kernels)
PRODUCER_SPILL_BYTES = 12  # the most any producer variant spills (ptxas, each way)


@pytest.fixture(scope="module")
def ptxas_reports(artifacts: dict[str, Path]) -> dict[str, dict[str, list[str]]]:
    """Each variant's cubin for sm_90 (beside its program.cu) and ptxas's report, built once."""
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(artifacts, pool.map(lambda d: compile_check(d, archs=("sm_90",)),
                                            artifacts.values()), strict=True))


@pytest.mark.nvcc
@needs_nvcc
def test_every_variant_compiles_without_spills(
        ptxas_reports: dict[str, dict[str, list[str]]]) -> None:
    for name, report in ptxas_reports.items():
        assert list(report) == ["sm_90a"], name  # wgmma: the arch-specific target
        # With the producer the warpgroups' registers are 224, 224 and 56 (setmaxnreg: 504 of
        # a thread's 168 x 3): a word or two spills at a tile's end, up to three in the
        # producer's copy plan (made once a tile, the block's patch), none in the chunk loop (the
        # SASS test below).
        allowed = PRODUCER_SPILL_BYTES if VARIANTS[name][1].producer else 0
        assert_no_spills(report["sm_90a"], "wino_f23_forward", name, allowed)


@pytest.mark.nvcc
@needs_nvcc
@pytest.mark.skipif(find_cuobjdump() is None, reason="cuobjdump not found: pip install -e .[test]")
def test_no_variant_writes_a_wgmma_register_in_flight_or_spills_in_the_chunk_loop(
        artifacts: dict[str, Path], ptxas_reports: dict[str, dict[str, list[str]]]) -> None:
    # row pairs' shared V rows broke this once (experiments: f23_pairs, run 1)
    for name in ptxas_reports:
        sass = sass_of(artifacts[name] / "program_sm_90a.cubin", "wino_f23_forward")
        assert sum("HGMMA" in text for _, text in sass) >= 12, name
        assert in_flight_writes(sass) == [], name
        wl, cfg = VARIANTS[name]
        # one chunk a block: no chunk loop (ptxas unrolls it)
        assert chunk_loops(sass) or wl.c // TB_K // cfg.c_split == 1, name
        assert mma_loop_local_accesses(sass) == [], name


@pytest.mark.nvcc
@needs_nvcc
@pytest.mark.skipif(find_cuobjdump() is None, reason="cuobjdump not found: pip install -e .[test]")
def test_every_variant_stores_y_in_16_byte_stores(
        artifacts: dict[str, Path], ptxas_reports: dict[str, dict[str, list[str]]]) -> None:
    # The finish's tests of a pixel's place, made per tile row, once left the first run of each
    # pixel on strips as four 4-byte stores: up to 1.10x slower there (experiments:
    # f23_store_width). Narrower stores are stream-K's flags only.
    for name in ptxas_reports:  # the cubins
        sass = sass_of(artifacts[name] / "program_sm_90a.cubin", "wino_f23_forward")
        opcodes = [unpredicated(text).split()[0] for _, text in sass]
        stores = [op for op in opcodes if op.startswith("STG")]
        narrow = [op for op in stores if ".128" not in op]
        assert stores and len(narrow) <= (2 if VARIANTS[name][1].stream_k else 0), (name, stores)


@pytest.mark.nvcc
@needs_nvcc
@pytest.mark.parametrize("variant", ["c256_14_st4_epilogue", "c48_sk_odd_epilogue_148_tiles"])
def test_library_compiles_for_sm_90a(tmp_path: Path, variant: str) -> None:
    wl, cfg = VARIANTS[variant]
    assert_library_compiles(tmp_path, wl, cfg, f23_kernels)


@on_gpu
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_is_correct_on_gpu(binaries: dict[str, Path], name: str) -> None:
    wl, _ = VARIANTS[name]
    # int8 into an f32 y: exact operands, products and sums (experiments: tune_int8_f23: 0 in
    # 132 cases)
    assert_correct_on_gpu(binaries[name], exact=wl.dtype == "int8" and wl.out == "fp32")
