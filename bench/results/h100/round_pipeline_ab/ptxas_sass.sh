#!/bin/bash
# CPU side (nvcc 13, sm_90): registers, spills (ptxas -v) and static SASS instruction counts of the
# full kernel of the A/B's old_ and new_ programs the README cites. Needs cuobjdump and nvdisasm
# on PATH (pip wheels nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm).
# bash bench/results/h100/round_pipeline_ab/ptxas_sass.sh .gpu/rp_ab > bench/results/h100/round_pipeline_ab/ptxas_sass.txt
set -u
D=$1
T=$(mktemp -d)
for v in N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2 \
         N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2 \
         N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2-bias_residual_relu \
         N1_H448_W448_C64_K64-fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb-oc2 \
         N1_H960_W960_C64_K64-fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g4 \
         N1_H640_W640_C64_K64-fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g3-oc2 \
         N8_H224_W224_C64_K64-fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2 \
         N8_H224_W224_C64_K64-int8-int32-m2-tbm16-tbn16-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2; do
  for side in old new; do
    c=$T/$side.cubin
    regs=$(nvcc -arch=sm_90 -O3 -std=c++17 -cubin -Xptxas -v -o $c $D/${side}_$v/program.cu 2>&1 \
      | grep -A3 "Compiling entry function 'winograd_full_kernel'" | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ')
    ops=$(cuobjdump -sass -fun winograd_full_kernel $c \
      | grep -oE "^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[T0-9]+ +)?[A-Z0-9_.]+" | awk '{print $NF}' | sed 's/\..*//')
    total=$(echo "$ops" | wc -l)
    mix=$(for op in FRND F2I FMNMX FADD LDG LDSM HMMA IMMA; do echo -n "$op $(echo "$ops" | grep -cx $op) "; done)
    echo "$side $v: $regs; $total SASS instructions ($mix)"
  done
done
rm -rf $T
