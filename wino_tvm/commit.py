"""The checkout's commit, for the records of artifacts, tuning runs and benchmarks. TVM-free."""

from __future__ import annotations

import subprocess
from pathlib import Path


def commit_id() -> str:
    """Short commit of this checkout, '-dirty' when tracked files changed; 'unknown' without
    git or a .git (e.g. a copy on the GPU machine)."""
    root = Path(__file__).resolve().parents[1]
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=root, text=True, capture_output=True,
                                  check=True).stdout.strip()
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return git("rev-parse", "--short", "HEAD") + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
