#!/usr/bin/env bash
# Rebuild the venv's llvmlite against a release build of the same LLVM (Debian's
# llvm-N-dev: assertions off), then install it in place of the PyPI wheel.
#
# Why: every llvmlite wheel on PyPI links an LLVM built with assertions, and LLVM's
# passes and code generator pay for them: on the 16 workloads of benchmarks/ a compile
# takes ~0.74x the time with the release build (docs/compile_time.md). jaxlib's LLVM is a
# release build, so `make bench` compares like with like only after this.
#
# Same llvmlite version, same LLVM major: the Python API and the IR xlapy emits do not
# change, only how fast LLVM runs. The result is checked (version, a JIT compile) before
# the script says it is done; on any failure the venv keeps the wheel it had.
#
#   tools/build_llvmlite.sh [VENV]      (default .venv; needs cmake, g++ and, to fetch
#                                        llvm-N-dev, apt-get as root)
set -euo pipefail
VENV=${1:-.venv}
PY="$VENV/bin/python"
say() { echo "build_llvmlite: $*" >&2; }

read -r VERSION MAJOR STATE < <("$PY" - <<'EOF'
import llvmlite, llvmlite.binding as llvm
from xlapy.backends.cpu.runtime import llvm_build
info = llvm_build.describe()
print(llvmlite.__version__, llvm.llvm_version_info[0], info.assertions)
EOF
)
if [ "$STATE" = off ]; then
    say "llvmlite $VERSION already runs a release LLVM $MAJOR: nothing to do"
    exit 0
fi

PREFIX=/usr/lib/llvm-$MAJOR
if [ ! -f "$PREFIX/lib/cmake/llvm/LLVMConfig.cmake" ] || ! command -v cmake >/dev/null \
    || ! command -v g++ >/dev/null; then
    if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
        say "needs llvm-$MAJOR-dev, cmake and g++ (Debian packages; apt-get as root to fetch them)"
        exit 1
    fi
    say "installing llvm-$MAJOR-dev, cmake and g++ (Debian packages)"
    packages=("llvm-$MAJOR-dev" cmake g++)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 \
             && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}" >/dev/null; } \
        || { say "apt-get could not install ${packages[*]}"; exit 1; }
fi
if [ "$("$PREFIX/bin/llvm-config" --assertion-mode)" != OFF ]; then
    say "$PREFIX is built with assertions too: nothing to gain"
    exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say "building llvmlite $VERSION against $PREFIX ($("$PREFIX/bin/llvm-config" --version))"
"$PY" -m pip download --quiet --no-deps --no-binary :all: "llvmlite==$VERSION" -d "$WORK"
# Linked to the shared libLLVM of the Debian package: a static link would also need the
# development packages of every library LLVM was configured with (libedit, zstd, curl).
CMAKE_PREFIX_PATH=$PREFIX LLVMLITE_SHARED=1 \
    "$PY" -m pip wheel --quiet --no-deps -w "$WORK/wheel" "$WORK/llvmlite-$VERSION.tar.gz" \
    >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; say "the build failed"; exit 1; }
SITE=$("$PY" -c 'import llvmlite, os; print(os.path.dirname(os.path.dirname(llvmlite.__file__)))')
mkdir "$WORK/before" && cp -a "$SITE"/llvmlite "$SITE"/llvmlite-*.dist-info "$WORK/before/"
"$PY" -m pip install --quiet --no-deps --force-reinstall "$WORK"/wheel/llvmlite-*.whl
if ! "$PY" - <<EOF
import numpy as np
import xlapy
import xlapy.backends.cpu.compiler
from xlapy.backends.cpu.runtime import llvm_build
info = llvm_build.describe()
assert info.major == $MAJOR and info.assertions == "off", info
b = xlapy.XlaBuilder("check")
x = xlapy.ops.Parameter(b, 0, xlapy.Shape.array(xlapy.F32, [4]), "x")
xlapy.ops.Add(x, x)
from xlapy.backends.cpu.runtime.executable import CpuOptions
program = xlapy.backends.cpu.compiler.CpuBackend().compile(b.build().hlo_module, CpuOptions())
out = program.call_numpy([np.arange(4, dtype=np.float32)])
assert np.array_equal(np.asarray(out), np.arange(4, dtype=np.float32) * 2), out
print("build_llvmlite:", info)
EOF
then
    say "the new build does not work: the wheel it replaced is put back"
    rm -rf "$SITE"/llvmlite "$SITE"/llvmlite-*.dist-info && cp -a "$WORK"/before/* "$SITE"/
    exit 1
fi
