"""Make b- (no finish), c- (no copies), d- (neither) from each a- artifact of .lab/ab4 (timing only)."""
import shutil, sys
from pathlib import Path
R = Path(".lab/ab4")
FINISH = ("    finish_tile(tile, piece);",
          "    if (reinterpret_cast<uintptr_t>(y) == 1) finish_tile(tile, piece);  // lab: no finish")
COPIES = [
    ("for (int it = 0; it < kUAhead && it < iterations; ++it)\n      stage_u(",
     "for (int it = 0; it < kUStages && it < iterations; ++it)\n      stage_u("),
    ("      mbarrier_wait(full(u_stage), (unsigned)it / kUStages & 1);",
     "      if (it < kUStages) mbarrier_wait(full(u_stage), 0);  // lab: no copies"),
    ("""      if (it + kUAhead < iterations) {
        const int next = unsigned(it + kUAhead) % kUStages;  // held it - 2
        if (tid == 0 && it >= kUStages - kUAhead) mbarrier_arrive(empty(next));
        if (threadIdx.x == 0)
          stage_u(base + next * kUBytes, full(next), empty(next), u_src(it + kUAhead),
                  it + kUAhead);
      }
      if (it + kXAhead < iterations) copy_x(it + kXAhead);
      else cp_async_commit();""", "      cp_async_commit();  // lab: no copies"),
]
for a in sorted(R.glob("a-*")):
    name = a.name[2:]
    src = (a / "program.cu").read_text()
    for side, edits in (("b", [FINISH]), ("c", COPIES), ("d", [FINISH, *COPIES])):
        out = src
        for old, new in edits:
            assert out.count(old) == 1, (a, old[:40])
            out = out.replace(old, new)
        dst = R / f"{side}-{name}"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(a, dst)
        (dst / "program.cu").write_text(out)
