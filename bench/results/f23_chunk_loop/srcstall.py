import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
tot = sum(int(r[ix["Warp Stall Sampling (All Samples)"]] or 0) for r in data)
print("total samples", tot)
agg = collections.Counter()
for r in data:
    for s in stalls: agg[s] += int(r[ix[s]] or 0)
print("by reason:", ", ".join(f"{k[6:]} {v/tot:.1%}" for k, v in agg.most_common(10)))
top = sorted(data, key=lambda r: -int(r[ix["Warp Stall Sampling (All Samples)"]] or 0))[:int(sys.argv[2]) if len(sys.argv) > 2 else 25]
base = int(data[0][0], 16)
for r in top:
    n = int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)
    why = sorted(((int(r[ix[s]] or 0), s[6:]) for s in stalls), reverse=True)[:3]
    print(f"{int(r[0],16)-base:#06x} {n/tot:6.1%}  {r[1].strip()[:60]:60s} " + " ".join(f"{w}:{c/n:.0%}" for c, w in why if c))
# shared excessive wavefronts and global excessive sectors by instruction
for col in ("L1 Wavefronts Shared Excessive", "L2 Theoretical Sectors Global Excessive"):
    tops = sorted(data, key=lambda r: -float(r[ix[col]] or 0))[:6]
    print(col, [(hex(int(r[0],16)-base), r[1].strip()[:40], r[ix[col]], r[ix[col.replace(' Excessive','')]]) for r in tops if float(r[ix[col]] or 0) > 0])
