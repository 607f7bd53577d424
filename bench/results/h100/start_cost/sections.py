"""The forward kernel's stall samples before and at its first block barrier (U and the
prologue), and its 12 most sampled instructions (ncu source page, SASS):
  python3 sections.py runN/ncu_X_sass.csv.gz"""

import csv
import gzip
import sys

rows = list(csv.reader(gzip.open(sys.argv[1], "rt")))
hdr = rows[1]
col = {h: i for i, h in enumerate(hdr)}
body = [r for r in rows[2:] if len(r) == len(hdr)]
total = sum(int(r[col["Warp Stall Sampling (All Samples)"]]) for r in body)
# The first block barrier (U staged) ends the start; report samples up to and including it.
start_end = next(i for i, r in enumerate(body) if "BAR.SYNC.DEFER_BLOCKING 0x0" in r[col["Source"]]
                 or r[col["Source"]].strip().startswith("BAR.SYNC 0x0"))
start = sum(int(r[col["Warp Stall Sampling (All Samples)"]]) for r in body[:start_end + 1])
print(f"{sys.argv[1]}: {total} samples; before and at the first block barrier (line {start_end}): "
      f"{start} ({100 * start / total:.1f}%)")
top = sorted(body, key=lambda r: -int(r[col["Warp Stall Sampling (All Samples)"]]))[:12]
for r in top:
    reasons = sorted(((int(r[i]), h) for h, i in col.items() if h.startswith("stall_")
                      and "Not Issued" not in h and r[i].isdigit() and int(r[i])), reverse=True)[:3]
    print(f"  {body.index(r):5d} {r[col['Warp Stall Sampling (All Samples)']]:>6s} "
          f"{r[col['Source']].strip()[:60]:60s} {reasons}")
