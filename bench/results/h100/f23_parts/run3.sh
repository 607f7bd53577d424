#!/bin/bash
# Run 3 (README.md): the template with V in registers (a-), without U's copies (b-, nou3.patch)
# and without any copy (c-, nocopy3.patch), at the logged F(2, 3) picks, one batch.
# Usage: run3.sh OUT RUN (bench/ab_run.sh; the smoke run takes an a- artifact: b- and c- are
# wrong by design).
exec bash bench/ab_run.sh "$1" "$2" f23_parts3 'a-N128_H14_W14_C256_K256-*pb-f23-st4'
