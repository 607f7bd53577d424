# ruff: noqa: E501  (CUDA template lines kept as they ran)
"""Hand-edited A/B (README.md) on the base artifacts under /tmp/ab: run from the repo root.

itile: every thread transforms whole alpha x alpha input tiles (all tap columns) instead of warp
w computing tap column w of every tile; the input tile is loaded once instead of once per warp,
and each warp makes ntrips/alpha trips instead of ntrips. Warps now write each other's V
columns, so the warp barrier before the MMA becomes the block (or group) barrier.
fill: the accumulators' fill moves after ITrans (their registers are free during the loads).
ot2: OTrans (4-warp 32/64 kernel only) takes 2 channels per thread with half2 loads and stores.
"""

import json
import re
import shutil
from pathlib import Path

root = Path("/tmp/ab")
TRIP = "it_i2_1_i3_1_0_fused_0"
OT = "ot_i_0_j_0_fused_1_k_1_fused_0"
SWITCH = re.compile(r"^    switch \(\(int\)threadIdx\.y\) \{\n(.*?)^    \}\n    __syncwarp\(\);\n",
                    re.M | re.S)
CASE = re.compile(r"^    case (\d+): \{\n(.*?)^    \} break;\n", re.M | re.S)
LOOP = re.compile(r"^      #pragma unroll(?: 4)?\n      for \(int " + TRIP + r" = 0; " + TRIP
                  + r" < (\d+); \+\+" + TRIP + r"\) \{\n(.*)^      \}\n", re.M | re.S)
BARRIER = re.compile(r"^    (__syncthreads\(\);|asm volatile\(\"bar\.sync .*\);)$", re.M)
FILL = re.compile(r"^(    )for \(int h_init = 0;.*?^\1}\n", re.M | re.S)
MMA = re.compile(r"^    for \(int h = 0; h < \d+; \+\+h\) \{\n", re.M)
ALPHA = 4


def itile(src: str) -> str:
    switch = SWITCH.search(src)
    loads, computes, trips = set(), [], set()
    for case in CASE.finditer(switch[1]):
        loop = LOOP.search(case[2])
        decls = case[2][:loop.start()]
        trips.add(int(loop[1]))
        body = loop[2]
        cut = body.index("\n", body.rindex("(it_d_local_ptr + ")) + 1
        loads.add(body[:cut])
        computes.append("        {\n" + decls.replace("      ", "        ", 1) + body[cut:]
                        + "        }\n")
    (load,), (n,) = loads, trips  # every case loads the same whole tile
    assert n % ALPHA == 0
    barrier = BARRIER.search(src, switch.end())[1]
    new = (f"    #pragma unroll\n    for (int it_r = 0; it_r < {n // ALPHA}; ++it_r) {{\n"
           f"      int {TRIP} = it_r * {ALPHA} + (int)threadIdx.y;\n" + load + "".join(computes)
           + f"    }}\n    {barrier}\n")
    return src[:switch.start()] + new + src[switch.end():]


def itile_loads_first(src: str) -> str:
    """itile with the trip loop written out: every trip's loads (own tile array), then the
    trips' transforms, so the loads of all trips are in flight together."""
    switch = SWITCH.search(src)
    loads, computes, trips = set(), [], set()
    for case in CASE.finditer(switch[1]):
        loop = LOOP.search(case[2])
        decls = case[2][:loop.start()]
        trips.add(int(loop[1]))
        body = loop[2]
        cut = body.index("\n", body.rindex("(it_d_local_ptr + ")) + 1
        loads.add(body[:cut])
        computes.append(decls + body[cut:])
    (load,), (n,) = loads, trips
    barrier = BARRIER.search(src, switch.end())[1]
    parts = ["    {\n"]
    for r in range(n // ALPHA):
        trip = f"({r} * {ALPHA} + (int)threadIdx.y)"
        parts.append(f"    alignas(64) half it_d{r}[128];\n    {{\n")
        parts.append(load.replace(TRIP, trip).replace("it_d_local_ptr", f"it_d{r}"))
        parts.append("    }\n")
    for r in range(n // ALPHA):
        trip = f"({r} * {ALPHA} + (int)threadIdx.y)"
        for body in computes:
            parts.append("    {\n" + body.replace(TRIP, trip).replace("it_d_local_ptr", f"it_d{r}")
                         + "    }\n")
    parts.append(f"    }}\n    {barrier}\n")
    return src[:switch.start()] + "".join(parts) + src[switch.end():]


def fill_after_itrans(src: str) -> str:
    fill = FILL.search(src)
    src = src[:fill.start()] + src[fill.end():]
    mma = MMA.search(src)
    return src[:mma.start()] + fill[0] + src[mma.start():]


OPS = """
__device__ __forceinline__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
__device__ __forceinline__ float2 operator*(float s, float2 a) { return make_float2(a.x * s, a.y * s); }
"""
M_READ = re.compile(r"\(\(float\)\(\(half\*\)\(\(unsigned char\*\)buf_dyn_shmem_ptr\)\)"
                    r"\[([^\]]+)\]\)")
Y_STORE = re.compile(r"^(\s*)y_ptr\[(.+)\] = \(\(half\)(ot_Y_tile_local_ptr\[\d+\])\);$", re.M)


def ot2(src: str) -> str:
    start = src.index(f"    for (int {OT} = 0; {OT} < 16;")
    end = src.index("\n    }\n", start) + 7
    body = src[start:end]
    for old, new in [(f"{OT} < 16", f"{OT} < 8"), (f"({OT} * 144)", f"({OT} * 288)"),
                     (f"({OT} * 2)", f"({OT} * 4)"),
                     ("(((int)threadIdx.y) >> 1)", "((int)threadIdx.y)"),
                     ("(((int)threadIdx.y) & 1)", "0"),
                     ("((int)threadIdx.x)", "(((int)threadIdx.x) * 2)")]:
        assert old in body, old
        body = body.replace(old, new)
    body = M_READ.sub(r"__half22float2(*(half2*)(((half*)buf_dyn_shmem_ptr) + (\1)))", body)
    body, stores = Y_STORE.subn(r"\1*(half2*)(y_ptr + (\2)) = __float22half2_rn(\3);", body)
    assert stores == 4 and "(float)" not in body
    src = src[:start] + body + src[end:]
    src = src.replace("float ot_MA_local_ptr[", "float2 ot_MA_local_ptr[").replace(
        "float ot_Y_tile_local_ptr[", "float2 ot_Y_tile_local_ptr[")
    k = src.index('extern "C" __global__')
    return src[:k] + OPS + src[k:]


HAND = """    {{
      #pragma unroll
      for (int it_r = 0; it_r < {trips}; ++it_r) {{
        const int it_g = (it_r * 4 + (int)threadIdx.y) * 32 + (int)threadIdx.x;
        const int it_t = tile_block * {tb_m} + (it_g >> 3), it_cg = it_g & 7;
        const int it_y0 = (it_t / {tw}) * 2 - 1, it_x0 = (it_t % {tw}) * 2 - 1;
        uint4 it_d[4][4];
        #pragma unroll
        for (int i = 0; i < 4; ++i) {{
          #pragma unroll
          for (int j = 0; j < 4; ++j) {{
            const int yy = it_y0 + i, xx = it_x0 + j;
            it_d[i][j] = ((unsigned)yy < {h}u && (unsigned)xx < {w}u)
                ? __ldg((const uint4*)(x_ptr + (yy * {w} + xx) * {c} + it_cg * 8)) : make_uint4(0, 0, 0, 0);
          }}
        }}
        uint4 it_o[4][4];
        #pragma unroll
        for (int k = 0; k < 4; ++k) {{
          half2 a[4][4], t[4][4];
          #pragma unroll
          for (int i = 0; i < 4; ++i) {{
            #pragma unroll
            for (int j = 0; j < 4; ++j) a[i][j] = ((half2*)&it_d[i][j])[k];
            t[i][0] = __hsub2(a[i][0], a[i][2]);
            t[i][1] = __hadd2(a[i][1], a[i][2]);
            t[i][2] = __hsub2(a[i][2], a[i][1]);
            t[i][3] = __hsub2(a[i][3], a[i][1]);
          }}
          #pragma unroll
          for (int j = 0; j < 4; ++j) {{
            ((half2*)&it_o[0][j])[k] = __hsub2(t[0][j], t[2][j]);
            ((half2*)&it_o[1][j])[k] = __hadd2(t[1][j], t[2][j]);
            ((half2*)&it_o[2][j])[k] = __hsub2(t[2][j], t[1][j]);
            ((half2*)&it_o[3][j])[k] = __hsub2(t[3][j], t[1][j]);
          }}
        }}
        #pragma unroll
        for (int i = 0; i < 4; ++i) {{
          #pragma unroll
          for (int j = 0; j < 4; ++j)
            *(uint4*)(((half*)buf_dyn_shmem_ptr) + i * {hs} + j * {ws} + (it_g >> 3) * {row} + it_cg * 8) = it_o[i][j];
        }}
      }}
    }}
    __syncthreads();
"""


def ihand(src: str, cfg: dict) -> str:
    """itile written by hand: half2 arithmetic and 16-byte stores (4-warp 32/64, N=1, m=2)."""
    wl, knobs = cfg["workload"], cfg["knobs"]
    h, w, c = wl["H"], wl["W"], wl["C"]
    tb_m, row = knobs["tb_m"], knobs["tb_k"] + knobs["pad"] // 2
    assert c == knobs["tb_k"] == 64 and wl["N"] == 1 and cfg["m"] == 2
    switch = SWITCH.search(src)
    code = HAND.format(trips=tb_m * 8 // 128, tb_m=tb_m, tw=w // 2, h=h, w=w, c=c,
                       hs=4 * tb_m * row, ws=tb_m * row, row=row)
    return src[:switch.start()] + code + src[switch.end():]


VARIANTS = {
    "itile": [itile],
    "itilefill": [itile, fill_after_itrans],
    "ot2": [ot2],
    "itilefillot2": [itile, fill_after_itrans, ot2],
    "ihand": [ihand],
    "ihandfill": [ihand, fill_after_itrans],
    "ihandfillot2": [ihand, fill_after_itrans, ot2],
}

if __name__ == "__main__":
    for base in sorted(root.glob("base_*")):
        for name, edits in VARIANTS.items():
            if ("ot2" in name or "ihand" in name) and "32x64" not in base.name:
                continue
            src = (base / "program.cu").read_text()
            cfg = json.loads((base / "config.json").read_text())
            for edit in edits:
                src = edit(src, cfg) if edit is ihand else edit(src)
            out = root / base.name.replace("base", name)
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(base, out)
            (out / "wino_bench").unlink(missing_ok=True)
            (out / "program.cu").write_text(src)
            print(out.name)
