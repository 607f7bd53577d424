# Sourced by the device run scripts (ab_run.sh, ncu_run.sh, tune_run.sh, bench_full_run.sh)
# with OUT RUN SET: W = OUT/RUN (made), S = SET, P = .gpu/SET unpacked from .gpu/SET.tar.gz,
# and the GPU's name, driver and clocks in W/env.txt.
W=$1/$2
S=$3
mkdir -p $W
tar xzf .gpu/$S.tar.gz -C .gpu
P=.gpu/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
