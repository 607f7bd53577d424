"""The GPU sync search's decisions, with compiling and running faked (the real run is on a GPU)."""

from __future__ import annotations

import json

import pytest

from wino_tvm.harness import HarnessSpec, Launch, write_artifact
from wino_tvm.kernels.pkf.reconstructor import sync_search
from wino_tvm.kernels.pkf.reconstructor.barriers import barrier_sites

KERNELS = (
    'extern "C" __global__ void __launch_bounds__(64) fwd_kernel('
    "half* __restrict__ x_ptr, half* __restrict__ y_ptr) {\n"
    "  y_ptr[threadIdx.x] = x_ptr[threadIdx.x];\n"
    "  __syncwarp();\n"
    "  __syncthreads();\n"
    "  __syncthreads();\n"
    "}\n"
)


@pytest.fixture
def artifact(tmp_path):
    spec = HarnessSpec(1, 4, 4, 16, 16, "fp16", 2, "syncfree", "cfg", "abc", 1e-2, KERNELS,
                       forward_launches=(Launch("fwd_kernel", (1, 1, 1), (64, 1, 1), 0,
                                                ("x", "y")),))
    write_artifact(spec, tmp_path, {"reconstructed.cu": KERNELS,
                                    "config.json": json.dumps({"removed_barriers": []})})
    return tmp_path


def test_keeps_only_deletions_that_pass_alone_and_together(artifact, monkeypatch):
    # Fake GPU: a program is correct unless it lacks barrier index 1 (the first __syncthreads);
    # racecheck reports a hazard once both remaining deletions are combined.
    def variant(spec, drop, out, arch):
        return tuple(sorted(s.index for s in drop))

    monkeypatch.setattr(sync_search, "_variant", variant)
    monkeypatch.setattr(sync_search, "_correct",
                        lambda dropped, checks, seed: (1 not in dropped, {}))
    monkeypatch.setattr(sync_search, "racecheck",
                        lambda dropped: (dropped != (0, 2), "RACECHECK SUMMARY: n hazards"))
    result = sync_search.search(artifact, "sm_90", 3, True, log=lambda _m: None)
    assert [t["passed"] for t in result["trials"]] == [True, False, True]
    assert result["removed"] == ["fwd_kernel:0:__syncwarp"]
    kernels = (artifact / "reconstructed.cu").read_text()
    assert [s.call for s in barrier_sites(kernels)] == ["__syncthreads", "__syncthreads"]
    assert "__syncwarp" not in (artifact / "program.cu").read_text().split("fwd_kernel")[1][:200]
    config = json.loads((artifact / "config.json").read_text())
    assert config["removed_barriers"] == ["fwd_kernel:0:__syncwarp deleted (sync search)"]


def test_needs_three_checks():
    assert sync_search.main(["--checks", "2", "somewhere"]) == 2
