"""Shared-memory wavefronts of the lane kernel's patch loads (LDS.64) under candidate layouts."""

from collections import defaultdict


def swizzled(offset: int, span: int) -> int:
    """offset under a TMA swizzle of `span` bytes: 16-byte chunks XOR the 128-byte row."""
    mask = {0: 0, 32: 1, 64: 3, 128: 7}[span]
    return offset ^ (((offset >> 7) & mask) << 4)


def wavefronts(addrs: list[int]) -> int:
    """8-byte accesses: the most distinct 4-byte words in one bank, at least bytes / 128."""
    banks = defaultdict(set)
    for a in addrs:
        for word in (a // 4, a // 4 + 1):
            banks[word % 32].add(word)
    return max(max(len(v) for v in banks.values()), len(addrs) * 8 // 128)


def worst(tb_k: int, pitch: int, span: int) -> int:
    """The most wavefronts of any patch load: lane (g, q) reads pixel 2g + j of a row,
    channels 16 s + 4 q .. + 3."""
    def at(row: int, col: int, ch: int) -> int:
        return swizzled((row * 18 + col) * pitch + ch * 2, span)
    return max(wavefronts([at(row, 2 * g + j, 16 * s + 4 * q) for g in range(8) for q in range(4)])
               for row in range(6) for j in range(4) for s in range(tb_k // 16))


for tb_k in (16, 32, 64):
    # A swizzled TMA box pads each pixel to the swizzle span (tma_probe run 1); a box of
    # tb_k + 8 channels has the kernel's padded pitch.
    for name, pitch, span in (("pitch +16 B: today, or a TMA box of tb_k + 8", tb_k * 2 + 16, 0),
                              ("dense TMA box", tb_k * 2, 0),
                              ("TMA swizzle 32B (pitch 32)", 32, 32),
                              ("TMA swizzle 64B (pitch 64)", 64, 64),
                              ("TMA swizzle 128B (pitch 128)", 128, 128)):
        if span and tb_k * 2 > span:
            continue
        print(f"tbk {tb_k:2d} {name:46s} worst wavefronts per LDS.64: "
              f"{worst(tb_k, pitch, span)} (ideal 2)")
