"""Shared-memory wavefronts per SASS opcode (and their bank-conflict excess) and the stall
reasons of an ncu source page (SASS csv, gzipped).

python shared_wavefronts.py ncu_960_fp16acc_ks2_new_sass.csv.gz
"""

import collections
import csv
import gzip
import re
import sys


def main(path: str) -> None:
    rows = list(csv.reader(gzip.open(path, "rt")))
    col = {h: i for i, h in enumerate(rows[1])}
    waves, ideal, samples = collections.Counter(), collections.Counter(), collections.Counter()
    stalls = collections.Counter()
    reasons = [h for h in rows[1] if h.startswith("stall_") and "Not Issued" not in h]
    for r in rows[2:]:
        src = r[col["Source"]].strip()
        op = re.sub(r"^@!?U?P\w+\s+", "", src).split()[0] if src else "?"
        waves[op] += int(r[col["L1 Wavefronts Shared"]] or 0)
        ideal[op] += int(r[col["L1 Wavefronts Shared Ideal"]] or 0)
        samples[op.split(".")[0]] += int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        for reason in reasons:
            stalls[(op.split(".")[0], reason[6:])] += int(r[col[reason]] or 0)
    total, all_samples = sum(waves.values()), sum(samples.values())
    print(f"shared wavefronts {total}, of which bank-conflict excess "
          f"{total - sum(ideal.values())}")
    for op, w in waves.most_common():
        if w:
            print(f"  {op:16s} {w:10d} ({100 * w / total:4.1f}%)  ideal {ideal[op]}")
    print(f"stall samples {all_samples}")
    for op, s in samples.most_common(6):
        top = sorted(((v, k[1]) for k, v in stalls.items() if k[0] == op), reverse=True)[:3]
        print(f"  {op:8s} {100 * s / all_samples:4.1f}%  " + ", ".join(
            f"{reason} {100 * v / all_samples:.1f}" for v, reason in top))


if __name__ == "__main__":
    main(*sys.argv[1:])
