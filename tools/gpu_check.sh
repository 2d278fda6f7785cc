#!/usr/bin/env bash
# The GPU checks of issue 24, for a machine with an NVIDIA GPU (a session's lent device):
# the GPU-marked tests, then the GPU benchmarks against JAX's GPU back-end. Runs from the
# repository root in well under 10 minutes; writes its logs to $OUT (default
# /tmp/gpu_check). Uses the machine's python3 and its packages (cuda-bindings, JAX with
# CUDA, llvmlite, numpy, scipy, ml_dtypes, pytest, hypothesis); an llvmlite carried as
# .whl/llvmlite-*.tar.xz (the NVPTX back-end of the LLVM xlapy is tested with) takes
# precedence when present.
set -uo pipefail
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
SITE=/tmp/gpu_check_site
mkdir -p "$SITE"
for archive in .whl/llvmlite-*.tar.xz; do
  [ -f "$archive" ] && python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$archive" "$SITE"
done
export PYTHONPATH="$SITE:$PWD/src:$PWD"
python3 - <<'PY' 2>&1 | tee "$OUT/env.txt"
import llvmlite, llvmlite.binding as llvm, numpy, scipy, jax
print("llvmlite", llvmlite.__version__, "LLVM", llvm.llvm_version_info, "numpy", numpy.__version__, "jax", jax.__version__, jax.devices())
from xlapy.backends.gpu.runtime import driver
print("cuda_available:", driver.cuda_available(), driver.no_device_reason())
if driver.cuda_available():
    d = driver.get_device(0)
    print(d.name, d.arch, d.sm_count, "SMs", d.total_memory >> 20, "MiB")
PY
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv 2>&1 | tee -a "$OUT/env.txt"
echo "== GPU tests" | tee "$OUT/tests.txt"
timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -p no:cacheprovider -q -rfE -m gpu tests/backends/gpu \
  --timeout 120 2>&1 | tee -a "$OUT/tests.txt"
echo "== GPU benchmarks" | tee "$OUT/bench.txt"
timeout "${BENCH_TIMEOUT:-200}" python3 -m benchmarks.gpu --reps 10 --json "$OUT/gpu_bench.json" \
  --markdown "$OUT/gpu_bench.md" ${BENCH_ARGS:-} 2>&1 | tee -a "$OUT/bench.txt"
