import numpy as np, sys
f, C, K, bn, slots = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tr = np.fromfile(f, dtype=np.uint64).reshape(-1, 4)
per = [4 * (C // 16) // 2, 36 * (K // bn), 4 * K // 32]
step = sum(per); lag = slots // 2
t = np.arange(len(tr)); s = t // step; i = t % step
role = np.where(i < per[0], 0, np.where(i < per[0] + per[1], 1, 2))
ok = (tr[:, 3] > 0)
fetch = tr[:, 0].astype(np.int64); ready = tr[:, 1].astype(np.int64)
start = (tr[:, 2] & ((1 << 56) - 1)).astype(np.int64); sm = (tr[:, 2] >> 56).astype(int); end = tr[:, 3].astype(np.int64)
t0 = fetch[ok].min()
print('span us', (end[ok].max() - t0) / 1e3, 'tickets', ok.sum())
for r, name in enumerate(('ITrans', 'GEMM', 'OTrans')):
    m = ok & (role == r)
    dur = (end - start)[m] / 1e3; dep = (ready - fetch)[m] / 1e3; q = (start - ready)[m] / 1e3
    print(f'{name}: n={m.sum()} work us med {np.median(dur):.2f} mean {dur.mean():.2f} p90 {np.percentile(dur,90):.2f}; dep wait med {np.median(dep):.2f} mean {dep.mean():.2f} p90 {np.percentile(dep,90):.2f}; queued->start med {np.median(q):.2f} mean {q.mean():.2f}; sum work {dur.sum():.0f} SM.us')
# per-SM busy fraction
span = end[ok].max() - t0
busy = np.zeros(sm.max() + 1)
for a, b, c in zip(sm[ok], start[ok], end[ok]): busy[a] += (c - b)
print('SM busy fraction mean', busy.mean() / span, 'min', busy.min() / span)
# timeline of roles: when does each role progress (quartiles of start times)
for r in range(3):
    m = ok & (role == r)
    print(r, [(round((np.percentile(start[m], p) - t0) / 1e3, 1)) for p in (0, 25, 50, 75, 100)])
