"""Build fusion none, fp16 m=2, 224^2 and 960^2 at the checked-out commit into ARGV[1]/NAME@COMMIT.

Run once in a worktree of a17d48b (fp16 ITrans arithmetic) and once in one of 9dd96fd (float32
for fusion none), each with PYTHONPATH at its worktree.
"""

import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact, commit_id
from wino_tvm.config import KernelConfig
from wino_tvm.suites import artifact_name
from wino_tvm.workload import Conv2dWorkload

for shape in ((1, 224, 224, 64, 64), (1, 960, 960, 64, 64)):
    wl = Conv2dWorkload(*shape, dtype="fp16", m=2)
    cfg = KernelConfig(fusion="none")
    build_artifact(wl, cfg, Path(sys.argv[1]) / f"{artifact_name(wl, cfg)}@{commit_id()}",
                   "sm_90", log=lambda _m: None)
