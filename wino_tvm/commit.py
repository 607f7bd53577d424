"""The checkout's commit, for the records of artifacts, tuning runs and benchmarks. TVM-free."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

COMMIT_ENV = "WINO_TVM_COMMIT"


def commit_id() -> str:
    """$WINO_TVM_COMMIT if set (a copy of the tree whose own .git is another commit's, as on the
    GPU machine); else the checkout's short commit, '-dirty' when tracked files changed;
    'unknown' without git or a .git."""
    if os.environ.get(COMMIT_ENV):
        return os.environ[COMMIT_ENV]
    root = Path(__file__).resolve().parents[1]
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=root, text=True, capture_output=True,
                                  check=True).stdout.strip()
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return git("rev-parse", "--short", "HEAD") + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
