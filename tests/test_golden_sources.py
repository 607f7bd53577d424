"""The restructure's contract: the generated sources of one case per family and feature are
byte-identical to the fingerprints recorded before it (tests/golden_sources.py; the whole
benchmark suite is checked with `python -m tests.golden_sources check`)."""

from __future__ import annotations

import json

import pytest
from golden_sources import FIXTURE, fingerprints

CASES = [
    # pkf: every fusion, m=2 and 4, fp16 and int8, persistent blocks, warp groups, U from L2
    # in fragment order with OTrans pairs, M rounds and launch bounds, an int8 y, the epilogue
    "N128_H14_W14_C256_K256 fp16-fp32-m2-tbm16-tbn16-tbk16-frag16x16x16-none-vec16-pad16 - -",
    "N1_H224_W224_C64_K64 fp16-fp32-m4-tbm16-tbn16-tbk16-frag16x16x16-syncfree-vec16-pad16 - -",
    "N128_H14_W14_C256_K256 fp16-fp32-m2-tbm16-tbn16-tbk16-frag16x16x16-shmem-vec16-pad16 - -",
    "N128_H14_W14_C256_K256 int8-int32-m2-tbm16-tbn16-tbk16-frag16x16x16-llc-vec16-pad16 - -",
    "N128_H14_W14_C256_K256 fp16-fp32-m4-tbm32-tbn16-tbk16-frag16x16x16-llc-vec16-pad16 - -",
    "N128_H14_W14_C256_K256 fp16-fp32-m2-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16 - -",
    "N128_H14_W14_C256_K256 int8-int32-m4-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16 - -",
    "N128_H56_W56_C64_K64 fp16-fp16-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb - -",
    "N1_H224_W224_C64_K64 fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g2 - -",
    "N128_H56_W56_C64_K64 int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2-"
    "mr2-lb4 - int8",
    # lane: mma.sync, the tap split with its own exchange, wgmma + TMA + stack, int8, epilogues
    "N128_H14_W14_C256_K256 fp16-fp16-m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-"
    "g8 bias,residual,relu -",
    "N128_H28_W28_C128_K128 fp16-fp16-m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-"
    "xown-g4-st3-ts2 - -",
    "N1_H448_W448_C64_K64 fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-"
    "tma-stack-g4-ks2 - -",
    "N1_H224_W224_C64_K64 fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-"
    "tma-stack-g4 bias,residual,relu -",
    "N128_H14_W14_C256_K256 int8-fp16-m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-"
    "g8 - -",
    # f23: plain with the epilogue, persistent stream-K, the C split, compact rows and row
    # pairs, int8 with an int8 y
    "N128_H56_W56_C64_K64 fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-"
    "st3 bias,residual,relu -",
    "N128_H14_W14_C256_K256 int8-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-"
    "sk-cr-rp-st4 - -",
    "N32_H7_W7_C512_K512 fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-"
    "st4-cs2 - -",
    "N128_H14_W14_C256_K256 int8-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-"
    "cr-rp-st4 - int8",
]


@pytest.mark.parametrize("key", CASES)
def test_generated_sources_are_byte_identical(key: str) -> None:
    assert fingerprints(key) == json.loads(FIXTURE.read_text())[key]
