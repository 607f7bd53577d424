# wino-tvm: `make demo`, `make test`, `make lint`.
# Each creates .venv (Python 3.11+) on first use and installs `-e .[tvm,test]` into it.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
VPY := $(VENV)/bin/python
PYTEST_ARGS ?=

# The install stamp is keyed on the *content* of pyproject.toml (not its timestamp, which every
# checkout changes): an unchanged pyproject never reinstalls, an edited one does.
PYPROJECT_KEY := $(shell sha256sum pyproject.toml | cut -c1-16)
STAMP := $(VENV)/.installed-$(PYPROJECT_KEY)

.PHONY: venv demo test gpu-test lint

venv: $(STAMP)

$(STAMP):
	@if [ ! -x "$(VPY)" ]; then \
	  $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	    echo "wino-tvm needs Python 3.11+; '$(PYTHON)' is $$($(PYTHON) --version 2>&1)." \
	         "Run e.g. 'make PYTHON=python3.12 $(MAKECMDGOALS)'." >&2; exit 1; }; \
	  echo "Creating $(VENV) with $$($(PYTHON) --version)"; \
	  $(PYTHON) -m venv "$(VENV)"; \
	fi
	@$(VPY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	  echo "$(VENV) has $$($(VPY) --version 2>&1); wino-tvm needs 3.11+: remove $(VENV)." >&2; \
	  exit 1; }
	$(VPY) -m pip install -e '.[tvm,test]'
	@rm -f $(VENV)/.installed-*
	@touch $@

# The main job: generate, reconstruct and compile the fp16 shmem-fused kernel (runs it too when
# a GPU is present).
demo: venv
	$(VPY) -m wino_tvm.build --dtype fp16 --fusion shmem --out artifacts/demo

# Every test that needs no GPU; a test that would skip (nvcc or cuobjdump missing) fails.
test: venv
	@$(VPY) -m pytest -m "not gpu" --no-skips -q -p no:cacheprovider $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests (exit 5)" >&2; fi; \
	exit $$rc

# The GPU suite, on the GPU machine (its python3 has PyTorch; no TVM, no venv needed).
gpu-test:
	PYTHONPATH=$(CURDIR) python3 -m pytest -m gpu --no-skips -q -p no:cacheprovider $(PYTEST_ARGS)

lint: venv
	$(VPY) -m ruff check .
