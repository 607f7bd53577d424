"""Median distance, in SASS instructions, from each HMMA/IMMA back to the load (LDSM, LDS, LDG)
that wrote one of its A/B operand registers: how far ahead ptxas issued the fragment loads.

python sass_distance.py KERNEL.sass ...   (cuobjdump -sass -fun winograd_full_kernel output)
"""

import collections
import re
import sys

_INSTR = re.compile(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s+([^;]*);")
_WIDTH = {"LDSM.16.M88.4": 4, "LDSM.16.M88.2": 2}


def distances(path: str) -> list[int]:
    """Per MMA, instructions since the nearest load that wrote one of its A/B registers."""
    last: dict[int, int] = {}  # register -> index of the load that last wrote it
    out = []
    for i, line in enumerate(x for x in open(path) if re.search(r"/\*[0-9a-f]{4}\*/", x)):
        m = _INSTR.search(line)
        if not m:
            continue
        op, regs = m.group(1), [int(r) for r in re.findall(r"\bR(\d+)", m.group(2))]
        if op.startswith(("HMMA", "IMMA")):
            a, b = regs[1], regs[2]
            sources = [a + j for j in range(4 if op.startswith("HMMA") else 2)] + [b, b + 1]
            found = [i - last[r] for r in sources if r in last]
            if found:
                out.append(min(found))
        if op.startswith(("LDSM", "LDS", "LDG")) and regs:
            width = _WIDTH.get(op, 4 if ".128" in op else 2 if ".64" in op else 1)
            for j in range(width):
                last[regs[0] + j] = i
        elif regs and not op.startswith(("ST", "BAR", "BRA", "HMMA", "IMMA")):
            last.pop(regs[0], None)  # overwritten by something else
    return out


if __name__ == "__main__":
    for p in sys.argv[1:]:
        d = sorted(distances(p))
        hist = collections.Counter(min(x, 40) // 5 * 5 for x in d)
        print(p, len(d), "median", d[len(d) // 2], sorted(hist.items()))
