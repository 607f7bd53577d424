"""python -m wino_tvm.bench ARTIFACTS_ROOT --out DIR: the artifacts against cuDNN."""

import sys

from .artifacts import main

sys.exit(main())
