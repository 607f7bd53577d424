"""CPU survey behind README.md: compile each artifact's reconstructed.cu (nvcc -arch=sm_90) as
built and with `__launch_bounds__(threads, blocks)` on its full kernel (blocks: what shared
memory and thread slots allow on sm_90); one JSON line per artifact with [registers, spill
bytes, median MMA operand-load distance, SASS lines] for old (as built) and new.
Needs cuobjdump and nvdisasm on PATH (pip wheels nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm).

cd bench/results/h100/min_blocks_ab && python survey.py ../../../../.gpu/bf5 survey.jsonl
"""

import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from sass_distance import distances

SHARED_PER_SM, RESERVED_PER_BLOCK, THREADS_PER_SM = 228 * 1024, 1024, 2048


def compile_full_kernel(src: str, tmp: Path) -> list:
    cu, cubin, sass = tmp / "k.cu", tmp / "k.cubin", tmp / "k.sass"
    cu.write_text(src)
    err = subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-std=c++17", "-cubin", "-Xptxas", "-v",
                          "-o", cubin, cu], capture_output=True, text=True, check=True).stderr
    report = err[err.index("'winograd_full_kernel'"):][:400]
    regs = int(re.search(r"Used (\d+) registers", report).group(1))
    spills = int(re.search(r"(\d+) bytes spill stores", report).group(1))
    sass.write_text(subprocess.run(["cuobjdump", "-sass", "-fun", "winograd_full_kernel", cubin],
                                   capture_output=True, text=True, check=True).stdout)
    d = distances(str(sass))
    return [regs, spills, statistics.median(d) if d else None, sass.read_text().count("\n")]


def main(root: str, out: str) -> None:
    with open(out, "w") as log, tempfile.TemporaryDirectory() as tmp:
        for artifact in sorted(Path(root).iterdir()):
            config = json.loads((artifact / "config.json").read_text())
            launch = next(x for x in config["forward_launches"]
                          if x["name"] == "winograd_full_kernel")
            threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
            blocks = min(SHARED_PER_SM // (launch["shared_bytes"] + RESERVED_PER_BLOCK),
                         THREADS_PER_SM // threads, 32)
            src = (artifact / "reconstructed.cu").read_text()
            hinted, n = re.subn(rf"__launch_bounds__\({threads}\) winograd_full_kernel",
                                f"__launch_bounds__({threads}, {blocks}) winograd_full_kernel", src)
            assert n == 1, artifact
            row = {"v": artifact.name, "threads": threads, "blocks": blocks,
                   "old": compile_full_kernel(src, Path(tmp)),
                   "new": compile_full_kernel(hinted, Path(tmp))}
            log.write(json.dumps(row) + "\n")
            log.flush()


if __name__ == "__main__":
    main(*sys.argv[1:])
