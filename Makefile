# The two commands of the README. Both work on a fresh machine that has only
# Python 3.11 and make: they create .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean-venv

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m xlapy.demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks tools

# The default run leaves out the tests marked slow (whole-suite sweeps, 1500-deep
# programs); `make test-long` runs just those. Tests run on every core (pytest-xdist,
# work stealing); TEST_WORKERS=0 runs them in this process, in order.
TEST_WORKERS ?= auto
test: $(STAMP) lint
	$(PY) -m pytest -m "not slow" -n $(TEST_WORKERS) --dist worksteal

.PHONY: test-long
test-long: $(STAMP)
	$(PY) -m pytest -m slow

clean-venv:
	rm -rf $(VENV)

# StableHLO conformance over ../shared/conformance/stablehlo (not part of `make test`):
# the results table goes between the markers of docs/conformance.md. Failing cases are
# the expected news (exit 1); any other exit status means the runner itself broke.
CONFORMANCE_DATA ?= ../shared/conformance/stablehlo
CONFORMANCE_ARGS ?=
.PHONY: conformance conformance-cpu
conformance: $(STAMP)
	$(PY) -m xlapy.conformance $(CONFORMANCE_DATA)/testdata $(CONFORMANCE_DATA)/interpret \
		--markdown docs/conformance.md $(CONFORMANCE_ARGS) || test $$? -eq 1

# The same cases compiled by the CPU backend (constant folding off, so native code computes
# them); the table, with the ops that still ran through interpreter kernels, goes to
# docs/conformance_cpu.md.
conformance-cpu: $(STAMP)
	$(PY) -m xlapy.conformance $(CONFORMANCE_DATA)/testdata $(CONFORMANCE_DATA)/interpret \
		--backend cpu --markdown docs/conformance_cpu.md $(CONFORMANCE_ARGS) || test $$? -eq 1

# Benchmarks (not part of `make test`): xlapy CPU vs numpy vs JAX in one run: the host's
# code path, the AVX2 code path, the times with one core busy, and the size sweeps plotted
# into benchmarks/scaling_*.png; writes benchmarks/RESULTS.md and benchmarks/results.json.
# BENCH_ARGS=--quick for a short run, BENCH_ARGS='--filter axpy,matmul --no-sweep' and so
# on (python -m benchmarks.run -h). The plots need matplotlib: the `bench` extra.
BENCH_ARGS ?=
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP) llvm-release-if-possible
	$(PY) -m benchmarks.run --json benchmarks/results.json --markdown benchmarks/RESULTS.md $(BENCH_ARGS)

# llvmlite rebuilt against a release LLVM (Debian's llvm-N-dev; the PyPI wheels' LLVM has
# assertions on, and compiles ~1.35x slower: docs/compile_time.md). `make bench` does it
# where it can (XLA's own LLVM is a release build) and says which LLVM it measured;
# `make test` keeps the wheel.
LLVM_RELEASE_STAMP := $(VENV)/.llvm-release
.PHONY: llvm-release llvm-release-if-possible
$(LLVM_RELEASE_STAMP): $(STAMP)
	bash tools/build_llvmlite.sh $(VENV)
	touch $(LLVM_RELEASE_STAMP)
llvm-release: $(LLVM_RELEASE_STAMP)
llvm-release-if-possible: $(STAMP)
	@$(MAKE) --no-print-directory $(LLVM_RELEASE_STAMP) \
		|| echo "bench: llvmlite stays the PyPI wheel (LLVM with assertions): compile times are ~1.35x longer"

# On a machine with an NVIDIA GPU and JAX with CUDA: the GPU back-end against JAX's GPU
# back-end (benchmarks/gpu.py); tools/gpu_check.sh runs it with the GPU tests.
.PHONY: bench-gpu
bench-gpu: $(STAMP)
	$(PY) -m benchmarks.gpu --json benchmarks/gpu_results.json --markdown benchmarks/GPU_RESULTS.md $(BENCH_ARGS)

# Memory safety (not part of `make test`). soak: the CPU tests SOAK_COUNT times over in
# one process (state left by one run must not break the next). guard: the CPU tests with
# every buffer next to a guard page, after and then before it (guarded_memory), under
# Python's debug allocator and glibc's heap checks. Add XLAPY_GUARD_BUFFERS=after to
# `make fuzz` to fuzz under guard pages too.
SOAK_COUNT ?= 5
.PHONY: soak guard
soak: $(STAMP)
	$(PY) -m pytest tests/backends/cpu --count=$(SOAK_COUNT) --repeat-scope=session -p no:cacheprovider

guard: $(STAMP)
	XLAPY_GUARD_BUFFERS=after PYTHONMALLOC=debug MALLOC_CHECK_=3 $(PY) -m pytest tests/backends/cpu
	XLAPY_GUARD_BUFFERS=before PYTHONMALLOC=debug MALLOC_CHECK_=3 $(PY) -m pytest tests/backends/cpu

# Differential testing and input fuzzing for FUZZ_SECONDS (not part of `make test`).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: $(STAMP)
	$(PY) -m xlapy.testing.fuzz --seconds $(FUZZ_SECONDS)
