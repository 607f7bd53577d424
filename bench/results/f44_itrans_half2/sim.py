import numpy as np, sys
sys.path.insert(0,'.')
from wino_tvm.math.winograd import transform_matrices, tap_scale_exponents, direct_conv2d_nhwc
A,B,G = transform_matrices(4); BT=B.T; AT=A.T
S = 2.0**-tap_scale_exponents(4)
rng=np.random.default_rng(0)
N,H,W,C,K=1,32,32,256,64
x=rng.standard_normal((N,H,W,C)).astype(np.float16); w=(rng.standard_normal((3,3,C,K))/np.sqrt(9*C)).astype(np.float16)
ref=direct_conv2d_nhwc(x.astype(np.float64), w.astype(np.float64))
xp=np.zeros((N,H+2+4,W+2+4,C)); xp[:,1:H+1,1:W+1]=x
th,tw=H//4,W//4
d=np.stack([np.stack([xp[:,4*i:4*i+6,4*j:4*j+6] for j in range(tw)],1) for i in range(th)],1) # N,th,tw,6,6,C
U=np.einsum('ai,ijck,bj->abck',G,w.astype(np.float64),G)
U=(U).astype(np.float16).astype(np.float64)
def f16(a): return a.astype(np.float16).astype(np.float64)
def itrans(d, mode):
    if mode=='fp32':
        V=np.einsum('ai,ntuijc,bj->ntuabc',BT,d,BT)*S[None,None,None,:,:,None]
        return f16(V)
    # fp16 arithmetic: row[i][b] = sum_j BT[b][j] d[i][j] sequential fma; then v[a][b] = sum_i (BT[a][i] S[a][b]) row[i][b]
    row=np.zeros(d.shape[:3]+(6,6)+d.shape[-1:])
    for i in range(6):
        for b in range(6):
            acc=np.zeros(d.shape[:3]+d.shape[-1:])
            for j in range(6):
                if BT[b][j]==0: continue
                acc=f16(acc+BT[b][j]*d[...,i,j,:])
            row[...,i,b,:]=acc
    V=np.zeros_like(row)
    for a in range(6):
        for b in range(6):
            acc=np.zeros(d.shape[:3]+d.shape[-1:])
            for i in range(6):
                if BT[a][i]==0: continue
                acc=f16(acc+BT[a][i]*S[a][b]*row[...,i,b,:])
            V[...,a,b,:]=acc
    return V
for mode in ('fp32','fp16'):
    V=itrans(d,mode)
    M=f16(np.einsum('ntuabc,abck->ntuabk',V,U))
    Y=np.einsum('ia,ntuabk,jb->ntuijk',AT,M/S[None,None,None,:,:,None],AT)
    y=f16(Y.transpose(0,1,3,2,4,5).reshape(N,H,W,K))
    print(mode, np.linalg.norm(y-ref)/np.linalg.norm(ref))
