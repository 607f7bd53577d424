#!/bin/bash
# TMA staging of the lane kernel's input patch (README.md). Usage: run.sh OUT RUN.
set -u
W=$1/$2
mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/env.txt
nvcc -arch=sm_90 -O2 -o $W/probe bench/results/h100/tma_probe/probe.cu > $W/probe.log 2>&1
$W/probe >> $W/probe.log 2>&1; echo "exit $?" >> $W/probe.log
rm -f $W/probe
tail -n 30 $W/probe.log
