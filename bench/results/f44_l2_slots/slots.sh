#!/bin/bash
# slots.sh SRC_DIR DST_DIR R: V's and M's row blocks taken modulo R (wrong results; timing only)
set -e
src=$1 dst=$2 r=$3
mkdir -p $dst && cp $src/config.json $src/harness_spec.json $dst/
sed -e "s|((t / kBlockM) \* kChunks + c / kChunkC)|((t / kBlockM % $r) * kChunks + c / kChunkC)|" \
    -e "s|(long long)item.row_block \* kBlockM + 16|(long long)(item.row_block % $r) * kBlockM + 16|" \
    -e "s|at.tap \* kRowBlocks + at.row_block) \* kChunks|at.tap * kRowBlocks + at.row_block % $r) * kChunks|" \
    -e "s|kTilesPad + t) \* kK + k))|kTilesPad + (t / kBlockM % $r * kBlockM + t % kBlockM)) * kK + k))|" \
    $src/program.cu > $dst/program.cu
test $(diff $src/program.cu $dst/program.cu | grep -c '^>') = 4
