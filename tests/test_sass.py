"""The SASS checks of tests/sass.py on hand-written code: it finds a write to a register of a
wgmma group in flight, and none where the wait comes first; a spill in the chunk loop, and none
outside it."""

from __future__ import annotations

from sass import chunk_loops, in_flight_writes, mma_loop_local_accesses

# A loop of two wgmma groups, each with its A operand in 4 registers (R40, R44); at the loop's
# top only the last chunk's second group may be in flight.
LOOP = [
    (0x10, "WARPGROUP.DEPBAR.LE gsb0, 0x1"),
    (0x20, "HADD2 R40, R1, R2"),
    (0x30, "HGMMA.64x64x16.F32 R0, R40, gdesc[UR4], R0, gsb0"),
    (0x40, "HADD2 R44, R1, R2"),
    (0x50, "HGMMA.64x64x16.F32 R0, R44, gdesc[UR8], R0, gsb0"),
    (0x60, "@!P0 BRA 0x10"),
]


def test_a_write_to_a_register_in_flight_is_found() -> None:
    # R44 is the A operand of the last chunk's second group, still in flight at 0x40
    assert in_flight_writes(LOOP) == ["0x0040: HADD2 R44, R1, R2"]
    # an accumulator, once its group is committed
    assert in_flight_writes([*LOOP[:3], (0x38, "MOV R5, RZ"), *LOOP[3:]]) == [
        "0x0038: MOV R5, RZ", "0x0040: HADD2 R44, R1, R2"]


def test_no_write_once_the_group_is_done() -> None:
    waited = [*LOOP[:3], (0x38, "WARPGROUP.DEPBAR.LE gsb0, 0x1"), *LOOP[3:]]
    assert in_flight_writes(waited) == []
    # stores and A from shared memory (a descriptor) write nothing
    assert in_flight_writes([(0x10, "HGMMA.64x64x16.F32 R0, gdesc[UR4], R0, gsb0"),
                             (0x20, "STS.64 [R40], R0"), (0x30, "HADD2 R40, R1, R2")]) == []


def test_a_spill_in_the_innermost_mma_loop_is_found() -> None:
    # the chunk loop (0x10-0x60) inside a tile loop (0x08-0x80): a spill in the chunk loop
    # counts, one in the tile loop around it does not
    tiles = [(0x08, "MOV R6, RZ"), *LOOP[:2], (0x28, "STL [R1], R6"), *LOOP[2:],
             (0x70, "LDL.LU R6, [R1]"), (0x80, "@P1 BRA 0x8")]
    assert chunk_loops(tiles) == [(1, 7)]
    assert mma_loop_local_accesses(tiles) == ["0x0028: STL [R1], R6"]
    assert mma_loop_local_accesses([tiles[0], *LOOP, *tiles[-2:]]) == []
    # a spill after the body's EXIT (another warpgroup's code), under a wait's out-of-line
    # retry that branches back into the chunk loop
    stub = [*LOOP, (0x70, "EXIT"), (0x80, "STL [R1], R6"), (0x90, "@!P0 BRA 0x20")]
    assert chunk_loops(stub) == [(0, 5)] and mma_loop_local_accesses(stub) == []
