"""A compiled kernel's SASS (cuobjdump, from the test extras' nvidia-cuda-cuobjdump) and a check
on it: no instruction writes a register that an in-flight wgmma (HGMMA) reads or accumulates
into. The PTX ISA leaves that undefined, and where the PTX breaks the rule ptxas goes on to
reuse such registers for anything (experiments: f23_pairs, run 1: wrong outputs, now and
then)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

# Opcodes whose first operand is not a register they write.
_NO_DEST = ("ST", "LDGSTS", "BAR", "SYNCS", "BRA", "DEPBAR", "WARPGROUP", "WARPSYNC", "NOP",
            "RED", "UTMA", "CCTL", "MEMBAR", "FENCE", "ERRBAR", "EXIT", "RET", "CALL", "BSYNC",
            "BSSY", "YIELD", "LDGDEPBAR", "ARRIVES")
_BRANCH = re.compile(r"BRA .*?(0x[0-9a-f]+)$")


def find_cuobjdump() -> str | None:
    """cuobjdump with the nvdisasm it runs beside it (or on PATH): the CUDA toolkit's, else the
    nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels' (the test extras)."""
    if (found := shutil.which("cuobjdump")) and shutil.which("nvdisasm"):
        return found
    if (wheels := importlib.util.find_spec("nvidia")) is None:
        return None
    for root in wheels.submodule_search_locations or []:
        for binary in sorted(Path(root).glob("cu*/bin/cuobjdump")):
            if (binary.parent / "nvdisasm").is_file():
                return str(binary)
    return None


def sass_of(cubin: Path, kernel: str) -> list[tuple[int, str]]:
    """(address, instruction) of kernel's SASS in cubin."""
    tool = find_cuobjdump()
    assert tool, "cuobjdump or nvdisasm not found: pip install -e .[test]"
    done = subprocess.run([tool, "-sass", "-fun", kernel, str(cubin)], capture_output=True,
                          text=True)
    assert done.returncode == 0 and "Function" in done.stdout, (cubin, done.stderr)
    return [(int(a, 16), s.strip()) for a, s in re.findall(r"/\*([0-9a-f]{4,6})\*/\s+(.*?) ;",
                                                           done.stdout)]


def unpredicated(text: str) -> str:
    """An instruction without its predicate (`@P0 STG.E ...` -> `STG.E ...`)."""
    return text.split(None, 1)[1] if text.startswith("@") else text


def _register(operand: str) -> int | None:
    found = re.match(r"-?\|?R(\d+)", operand)
    return int(found.group(1)) if found else None


def _width(opcode: str) -> int:
    """Registers an instruction writes from its first operand on."""
    return 4 if ".128" in opcode else 2 if ".64" in opcode or ".WIDE" in opcode else 1


def _hgmma_registers(opcode: str, operands: list[str]) -> set[int]:
    """The accumulators (N / 2 for m64nNk16 F32, N / 4 for F16) and A registers (4) of an
    HGMMA; A from shared memory (a descriptor) has none."""
    n = int(re.search(r"HGMMA\.64x(\d+)x", opcode).group(1))
    acc = _register(operands[0])
    used = set(range(acc, acc + n // (2 if ".F32" in opcode else 4)))
    if (a := _register(operands[1])) is not None:
        used |= set(range(a, a + 4))
    return used


def _hgmma_loops(code: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """(start, end) indices of each loop with an HGMMA in it (a backward branch's range)."""
    loops = []
    for end, (address, text) in enumerate(code):
        if (branch := _BRANCH.search(text)) and int(branch.group(1), 16) < address:
            start = next(i for i, (a, _) in enumerate(code) if a == int(branch.group(1), 16))
            if any("HGMMA" in s for _, s in code[start:end]):
                loops.append((start, end))
    return loops


def chunk_loops(code: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """The innermost loops with an HGMMA (start, end indices): the chunk loops. A backward
    branch across an EXIT is an out-of-line retry (an mbarrier wait's) jumping back into the
    body, not a loop."""
    loops = [(s, e) for s, e in _hgmma_loops(code)
             if not any(re.match(r"(@\S+ )?EXIT", text) for _, text in code[s:e])]
    return [(s, e) for s, e in loops
            if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2 in loops)]


def mma_loop_local_accesses(code: list[tuple[int, str]]) -> list[str]:
    """Local-memory loads and stores (spills) in the chunk loops, where a spill would sit in
    the MMA chain."""
    return [f"{code[i][0]:#06x}: {code[i][1]}" for s, e in chunk_loops(code)
            for i in range(s, e + 1) if re.match(r"(@\S+ )?(STL|LDL)", code[i][1])]


def in_flight_writes(code: list[tuple[int, str]]) -> list[str]:
    """Instructions that write a register of a wgmma group still in flight: each loop with an
    HGMMA (a backward branch) run three times over in order, its groups (committed by the
    HGMMA with gsb0) retired by WARPGROUP.DEPBAR.LE gsb0, N; without such a loop, the code once.
    Conservative: every instruction of the loop counts, taken or not."""
    loops = [(code[start:end + 1], 3) for start, end in _hgmma_loops(code)]
    found = []
    for body, passes in loops or [(code, 1)]:
        pending: list[set[int]] = []
        group: set[int] = set()
        for done in range(passes):
            for address, text in body:
                instruction = unpredicated(text)
                opcode, _, rest = instruction.partition(" ")
                operands = [o.strip() for o in rest.split(",")]
                if opcode.startswith("HGMMA"):
                    group |= _hgmma_registers(opcode, operands)
                    if "gsb0" in instruction:
                        pending.append(group)
                        group = set()
                    continue
                if wait := re.match(r"WARPGROUP\.DEPBAR\.LE gsb0, (0x[0-9a-f]+)", instruction):
                    keep = int(wait.group(1), 16)
                    pending = pending[-keep:] if keep else []
                    continue
                first = _register(operands[0]) if operands else None
                if opcode.startswith(_NO_DEST) or first is None:
                    continue
                written = set(range(first, first + _width(opcode)))
                # the first pass does not know the groups in flight when the loop is entered
                if (done or passes == 1) and pending and written & set().union(*pending):
                    found.append(f"{address:#06x}: {text}")
    return sorted(set(found))
