import numpy as np, itertools, sys
from fractions import Fraction as F
import wino_tvm.math.winograd as W

def mats(m, pts):
    W.INTERPOLATION_POINTS[m] = tuple(F(p) for p in pts)
    W.transform_matrices_exact.cache_clear()
    return W.transform_matrices(m)

h16 = lambda a: a.astype(np.float16).astype(np.float64)
h32 = lambda a: a.astype(np.float32).astype(np.float64)
rng = np.random.default_rng(0)
def run1d(m, pts, C=256, K=64, T=2048, balance=False):
    a,b,g = mats(m, pts)
    al = m+2
    d = h16(rng.uniform(-1,1,(T,al,C)))  # tiles along w
    w = h16(rng.uniform(-1,1,(3,C,K))/np.sqrt(9*C))
    ref = np.einsum('tjc,rck->tjk', np.stack([d[:,j:j+3] for j in range(m)],1).reshape(T,m,3,C), w) if False else None
    # direct 1-D correlation reference
    ref = np.zeros((T,m,K))
    for j in range(m):
        for r in range(3):
            ref[:,j] += d[:,j+r] @ w[r]
    v = np.einsum('ih,tic->thc', b, d)
    u = np.einsum('hi,ick->hck', g, w)
    if balance:
        s = np.abs(u).max(axis=(1,2)); s = 2.0**np.round(np.log2(s))
        u = u/ s[:,None,None]; aa = a * s[:,None]
    else: aa = a
    v, u = h16(v), h16(u)
    mm = h32(np.einsum('thc,hck->thk', v, u))
    y = h16(np.einsum('hj,thk->tjk', aa, mm))
    return np.linalg.norm(y-ref)/np.linalg.norm(ref)
def run2d(m, pts, C=256, K=32, T=512):
    a,b,g = mats(m, pts); al=m+2
    d = h16(rng.uniform(-1,1,(T,al,al,C)))
    w = h16(rng.uniform(-1,1,(3,3,C,K))/np.sqrt(9*C))
    ref = np.zeros((T,m,m,K))
    for i in range(m):
        for j in range(m):
            ref[:,i,j] = np.einsum('trsc,rsck->tk', d[:,i:i+3,j:j+3], w)
    v = h16(np.einsum('ih,tijc,jw->thwc', b, d, b))
    u = h16(np.einsum('hi,ijck,wj->hwck', g, w, g))
    mm = h32(np.einsum('thwc,hwck->thwk', v, u))
    y = h16(np.einsum('hi,thwk,wj->tijk', a, mm, a))
    return np.linalg.norm(y-ref)/np.linalg.norm(ref)
print('fp16 y rounding alone ~', 2**-11/np.sqrt(3))
for m, pts in [(2,(0,1,-1)), (4,(0,1,-1,2,-2)), (4,(0,1,-1,F(1,2),-2)), (4,(0,1,-1,F(1,2),F(-1,2))), (4,(0,1,-1,2,F(-1,2))), (6,(0,1,-1,2,-2,F(1,2),F(-1,2)))]:
    print('1D', m, pts, f'{run1d(m,pts):.2e}', 'bal', f'{run1d(m,pts,balance=True):.2e}')
for m, pts in [(2,(0,1,-1)), (4,(0,1,-1,2,-2)), (4,(0,1,-1,F(1,2),-2)), (4,(0,1,-1,F(1,2),F(-1,2)))]:
    print('2D', m, pts, f'{run2d(m,pts):.2e}')
print('--- C=512, M fp16 variants')
def run2d_m16(m, pts, C=512, K=32, T=256, mfp16=False):
    a,b,g = mats(m, pts); al=m+2
    d = h16(rng.uniform(-1,1,(T,al,al,C)))
    w = h16(rng.uniform(-1,1,(3,3,C,K))/np.sqrt(9*C))
    ref = np.zeros((T,m,m,K))
    for i in range(m):
        for j in range(m):
            ref[:,i,j] = np.einsum('trsc,rsck->tk', d[:,i:i+3,j:j+3], w)
    v = h16(np.einsum('ih,tijc,jw->thwc', b, d, b))
    u = h16(np.einsum('hi,ijck,wj->hwck', g, w, g))
    mm = np.einsum('thwc,hwck->thwk', v, u)
    mm = h16(mm) if mfp16 else h32(mm)
    y = h16(np.einsum('hi,thwk,wj->tijk', a, mm, a))
    return np.linalg.norm(y-ref)/np.linalg.norm(ref)
for pts in [(0,1,-1,2,-2),(0,1,-1,F(1,2),-2)]:
    print(pts, 'M fp32', f'{run2d_m16(4,pts):.2e}', 'M fp16', f'{run2d_m16(4,pts,mfp16=True):.2e}')
