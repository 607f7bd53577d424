"""Hand-edited software pipelining of the 4-warp persistent kernel (README.md): run from the
repo root on the base artifacts under /tmp/exp5.

pre<P>: the first P trips of each warp's ITrans tile loop take their input tile from registers
loaded for that tile block before the previous tile block's OTrans (and before the persistent
loop for the first), while the accumulators are in the M slice; the accumulators' fill moves
after ITrans so that the two register sets are not live together.
"""

import re
import shutil
from pathlib import Path

root = Path("/tmp/exp5")
TRIP = "it_i2_1_i3_1_0_fused_0"
CASE = re.compile(r"^    case (\d+): \{\n(.*?)^    \} break;\n", re.M | re.S)
LOOP = re.compile(r"^      #pragma unroll 4\n      for \(int " + TRIP + r" = 0; " + TRIP
                  + r" < (\d+); \+\+" + TRIP + r"\) \{\n(.*?)^      \}\n", re.M | re.S)
LOAD = re.compile(r"^        uint4 (it_condval\w*);\n        if \((.*)\) \{\n          \1 = "
                  r"\*\(uint4\*\)\(x_ptr \+ (.*)\);\n        \} else \{\n          \1 = (.*);\n"
                  r"        \}\n        \*\(uint4\*\)\(it_d_local_ptr \+ (\d+)\) = \1;\n", re.M)
FILL = re.compile(r"^(    )for \(int h_init = 0;.*?^\1}\n", re.M | re.S)
MMA = re.compile(r"^    for \(int h = 0; h < \d+; \+\+h\) \{\n", re.M)
ALLOWED = {"tile_block", TRIP, "int", "threadIdx", "x", "x_ptr"}


def used_loads(body: str) -> list[re.Match]:
    """The loads of this warp's loop body whose 8 halves its transform reads."""
    reads = {int(i) for i in re.findall(r"it_d_local_ptr\[(\d+)\]", body)}
    out = []
    for m in LOAD.finditer(body):
        names = set(re.findall(r"[A-Za-z_]\w*", m[2] + m[3])) - {"x_ptr"}
        assert names <= ALLOWED, names - ALLOWED
        if reads & set(range(int(m[5]), int(m[5]) + 8)):
            out.append(m)
    return out


def prefetch(cases: dict[int, list[re.Match]], block: str, trips: int) -> str:
    """Loads of the first `trips` trips of tile block `block` into pre[trip][k], per warp."""
    lines = [f"    if ({block} < TILE_BLOCKS) {{", "    switch ((int)threadIdx.y) {"]
    for warp, loads in cases.items():
        lines.append(f"    case {warp}: {{")
        lines.append("      #pragma unroll")
        lines.append(f"      for (int {TRIP} = 0; {TRIP} < {trips}; ++{TRIP}) {{")
        for k, m in enumerate(loads):
            cond = re.sub(r"\btile_block\b", block, m[2])
            addr = re.sub(r"\btile_block\b", block, m[3])
            load = f"*(uint4*)(x_ptr + {addr})"
            lines.append(f"        pre[{TRIP}][{k}] = ({cond}) ? {load} : {m[4]};")
        lines += ["      }", "    } break;"]
    lines += ["    default:", "      __builtin_unreachable();", "    }", "    }"]
    return "\n".join(lines) + "\n"


def pipeline(src: str, trips: int) -> str:
    blocks = re.search(r"while \(tile_block < (\d+)\) \{", src)[1]
    cases, pieces, pos = {}, [], 0
    for case in CASE.finditer(src):
        loop = LOOP.search(case[2])
        extent, body = int(loop[1]), loop[2]
        assert extent > trips
        loads = used_loads(body)
        cases[int(case[1])] = loads
        head = body
        for k, m in enumerate(loads):
            head = head.replace(m[0], f"        uint4 {m[1]} = pre[{TRIP}][{k}];\n"
                                f"        *(uint4*)(it_d_local_ptr + {m[5]}) = {m[1]};\n")
        first = (f"      #pragma unroll\n      for (int {TRIP} = 0; {TRIP} < {trips}; ++{TRIP}) "
                 f"{{\n{head}      }}\n")
        rest = loop[0].replace(f"{TRIP} = 0;", f"{TRIP} = {trips};", 1)
        new_case = case[0].replace(loop[0], first + rest)
        pieces.append(src[pos:case.start()] + new_case)
        pos = case.end()
    src = "".join(pieces) + src[pos:]
    width = max(len(v) for v in cases.values())
    decl = f"  uint4 pre[{trips}][{width}];\n  const int TILE_BLOCKS = {blocks};\n"
    loop_start = src.index("  int tile_block = (int)blockIdx.x;\n")
    loop_start = src.index("\n", loop_start) + 1
    src = src[:loop_start] + decl + prefetch(cases, "tile_block", trips) + src[loop_start:]
    # Before OTrans: the barrier after the M store, then the next tile block's first trips.
    ot = src.index("    #pragma unroll 4\n    for (int ot_i_0_j_0_fused_1_k_1_fused_0")
    nxt = "(tile_block + (int)gridDim.x)"
    src = src[:ot] + prefetch(cases, nxt, trips) + src[ot:]
    fill = FILL.search(src)
    src = src[:fill.start()] + src[fill.end():]
    mma = MMA.search(src)
    return src[:mma.start()] + fill[0] + src[mma.start():]


for base in sorted(root.glob("base_*")):
    for trips in (2, 4):
        out = root / base.name.replace("base", f"pre{trips}")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(base, out)
        (out / "wino_bench").unlink(missing_ok=True)
        (out / "program.cu").write_text(pipeline((base / "program.cu").read_text(), trips))
        print(out.name)
