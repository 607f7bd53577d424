"""Shared-memory wavefronts of the lane kernel's patch loads (LDS.64) under candidate layouts."""
from collections import defaultdict

def swz(L, mode):
    if mode == 0: return L
    bits = {32: 1, 64: 2, 128: 3}[mode]
    return L ^ (((L >> 7) & ((1 << bits) - 1)) << 4)

def wavefronts(addrs):
    # 8-byte accesses: distinct 4-byte words per bank; at least bytes / 128
    banks = defaultdict(set)
    for a in addrs:
        for w in (a // 4, a // 4 + 1):
            banks[w % 32].add(w)
    return max(max(len(v) for v in banks.values()), len(addrs) * 8 // 128)

def layout(tbk, pitch_bytes, mode):
    def addr(row, col, ch):
        L = (row * 18 + col) * pitch_bytes + ch * 2
        return swz(L, mode)
    return addr

for tbk in (16, 32, 64):
    # A swizzled TMA box pads each pixel to the swizzle span (tma_probe run 1); a box of
    # tb_k + 8 channels has the kernel's padded pitch.
    for name, pitch, mode in (("pitch +16 B: today, or a TMA box of tb_k + 8", tbk * 2 + 16, 0),
                              ("dense TMA box", tbk * 2, 0),
                              ("TMA swizzle 32B (pitch 32)", 32, 32),
                              ("TMA swizzle 64B (pitch 64)", 64, 64),
                              ("TMA swizzle 128B (pitch 128)", 128, 128)):
        if mode and tbk * 2 > mode: continue
        a = layout(tbk, pitch, mode)
        worst = 0
        for row in range(6):
            for j in range(4):
                for s in range(tbk // 16):
                    addrs = [a(row, 2 * g + j, 16 * s + 4 * q) for g in range(8) for q in range(4)]
                    worst = max(worst, wavefronts(addrs))
        print(f"tbk {tbk:2d} {name:46s} worst wavefronts per LDS.64: {worst} (ideal 2)")
