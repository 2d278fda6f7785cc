"""xlapy's int8 GEMM (emit.linalg_gemm_int8): s8 x s8 -> s32 dots with AVX-512 VNNI.

Integer dots are exact, so every check is equality: against numpy's int64 product
wrapped to int32 (what XLA's s32 dot computes) and against the interpreter. On a host
without VNNI the GEMM cannot run; there the tests that run it are skipped, and the
test that the pipeline keeps the f32 GEMM for such a target runs on every host."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import linalg_dot, linalg_gemm_int8
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing import new_processes

VNNI = linalg_gemm_int8.has_vnni(None)
needs_vnni = pytest.mark.skipif(not VNNI, reason="this host's CPU has no AVX-512 VNNI")


def _exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The s32 dot: the int64 product wrapped modulo 2^32."""
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


def _int8(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.integers(-128, 128, shape, dtype=np.int8)


def _compile(text: str, **options):  # noqa: ANN003, ANN202
    return CpuBackend().compile(parse_module(text), CpuOptions(cache=False, **options))


def _run(executable, a: np.ndarray, b: np.ndarray) -> np.ndarray:  # noqa: ANN001
    return executable.execute([Literal.from_numpy(a), Literal.from_numpy(b)]).to_numpy()


@pytest.fixture
def int8_calls(monkeypatch) -> list:  # noqa: ANN001
    """The int8 GEMM calls the programs compiled in the test emit."""
    calls: list = []
    original = linalg_dot.emit_int8_gemm

    def spy(*args, **kwargs) -> None:  # noqa: ANN002, ANN003
        calls.append(args[1])
        original(*args, **kwargs)

    monkeypatch.setattr(linalg_dot, "emit_int8_gemm", spy)
    return calls


def _dot_text(lhs: list, rhs: list, out: list, numbers: str) -> str:
    return f"""HloModule int8_dot
ENTRY e {{
  a = s8{lhs} parameter(0)
  b = s8{rhs} parameter(1)
  ROOT d = s32{out} dot(a, b), {numbers}
}}"""


# (lhs shape, rhs shape, out shape, dimension numbers, numpy's form of the product)
_FORMS = [
    ([37, 70], [70, 130], [37, 130], "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
     lambda a, b: (a, b)),
    ([70, 37], [70, 130], [37, 130], "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
     lambda a, b: (a.T, b)),
    ([37, 70], [130, 70], [37, 130], "lhs_contracting_dims={1}, rhs_contracting_dims={1}",
     lambda a, b: (a, b.T)),
    ([70, 37], [130, 70], [37, 130], "lhs_contracting_dims={0}, rhs_contracting_dims={1}",
     lambda a, b: (a.T, b.T)),
    ([3, 13, 9], [3, 9, 65], [3, 13, 65],
     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}",
     lambda a, b: (a, b)),
    # Batch dimensions in the middle: the canonicalizer moves them to the front.
    ([13, 3, 9], [9, 3, 65], [3, 13, 65],
     "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}",
     lambda a, b: (a.transpose(1, 0, 2), b.transpose(1, 0, 2))),
]  # fmt: skip


@needs_vnni
@pytest.mark.parametrize("form", range(len(_FORMS)))
def test_every_operand_form_matches_numpy_and_the_interpreter(form: int, int8_calls) -> None:  # noqa: ANN001
    lhs, rhs, out, numbers, as_matrices = _FORMS[form]
    text = _dot_text(lhs, rhs, out, numbers)
    executable = _compile(text)
    assert executable.fallback_ops == []
    assert int8_calls
    rng = np.random.default_rng(form)
    a, b = _int8(rng, tuple(lhs)), _int8(rng, tuple(rhs))
    got = _run(executable, a, b)
    np.testing.assert_array_equal(got, _exact(*as_matrices(a, b)))
    np.testing.assert_array_equal(got, interpret(text, a, b))


@needs_vnni
@pytest.mark.parametrize(
    "m, n, k",
    [(1, 1, 1), (1, 64, 4), (6, 64, 4), (7, 65, 5), (5, 3, 2), (12, 128, 256),
     (13, 127, 259), (100, 1, 300), (1, 300, 1000), (97, 200, 515)],
)  # fmt: skip
@pytest.mark.parametrize("workers", [1, 2])
def test_the_library_function_at_every_edge(m: int, n: int, k: int, workers: int) -> None:
    """Rows past a tile of 6, columns past a panel of 64, k past a group of 4 and a block
    of 256, on one thread and on two: the same exact product."""
    rng = np.random.default_rng(m * 1000 + n + k)
    for trans_lhs in (False, True):
        for trans_rhs in (False, True):
            a, b = _int8(rng, (m, k)), _int8(rng, (k, n))
            got = _call_library(a, b, trans_lhs, trans_rhs, workers)
            np.testing.assert_array_equal(got, _exact(a, b), err_msg=f"{trans_lhs} {trans_rhs}")


def _call_library(a: np.ndarray, b: np.ndarray, trans_lhs: bool, trans_rhs: bool,
                  workers: int) -> np.ndarray:  # fmt: skip
    m, k = a.shape
    n = b.shape[1]
    lhs = np.ascontiguousarray(a.T if trans_lhs else a)
    rhs = np.ascontiguousarray(b.T if trans_rhs else b)
    name = linalg_gemm_int8.LIBRARY.ensure(
        linalg_gemm_int8.variant_name(trans_lhs, trans_rhs), (trans_lhs, trans_rhs, 512), 512
    )
    kind = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3),
                            ctypes.c_void_p, ctypes.c_int64)  # fmt: skip
    function = kind(linalg_gemm_int8.LIBRARY.address(name))
    # Guard bytes after the output and the workspace: the GEMM writes neither past its end.
    out = np.full(m * n + 16, 0x5A5A5A5A, dtype=np.int32)
    size = linalg_gemm_int8.workspace_layout(m, n, k)[2]
    workspace = np.full(size + 64, 0xA5, dtype=np.uint8)
    function(lhs.ctypes.data, rhs.ctypes.data, out.ctypes.data, m, n, k,
             workspace.ctypes.data, workers)  # fmt: skip
    assert (out[m * n :] == 0x5A5A5A5A).all() and (workspace[size:] == 0xA5).all()
    return out[: m * n].reshape(m, n)


@needs_vnni
def test_extreme_values_and_sums_that_wrap() -> None:
    """-128 x -128 over 140000 steps passes 2^31: the sum wraps as XLA's s32 dot does;
    -128 x 127 and 127 x 127 at full range."""
    k = 140_000
    a = np.full((2, k), -128, dtype=np.int8)
    a[1] = 127
    b = np.full((k, 3), -128, dtype=np.int8)
    b[:, 1] = 127
    b[::2, 2] = 127
    text = _dot_text([2, k], [k, 3], [2, 3], "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    got = _run(_compile(text), a, b)
    np.testing.assert_array_equal(got, _exact(a, b))
    assert got[0, 0] == np.int64(128 * 128 * k).astype(np.int32)  # wrapped


@needs_vnni
def test_threads_do_not_change_the_result() -> None:
    rng = np.random.default_rng(7)
    a, b = _int8(rng, (300, 1030)), _int8(rng, (1030, 250))
    one = _call_library(a, b, False, False, 1)
    np.testing.assert_array_equal(one, _call_library(a, b, False, False, 2))
    np.testing.assert_array_equal(one, _exact(a, b))


def test_without_vnni_the_dot_takes_the_float_gemm(int8_calls) -> None:  # noqa: ANN001
    """An AVX2 target (every x86-64 host runs it): no int8 GEMM, the same exact result."""
    text = _dot_text([20, 300], [300, 40], [20, 40],
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}")  # fmt: skip
    executable = _compile(text, target_cpu="x86-64-v3")
    assert int8_calls == []
    assert executable.fallback_ops == []
    rng = np.random.default_rng(3)
    a, b = _int8(rng, (20, 300)), _int8(rng, (300, 40))
    np.testing.assert_array_equal(_run(executable, a, b), _exact(a, b))


def test_other_integer_dots_are_left_to_the_float_gemm() -> None:
    # x86-64-v4 has AVX-512 but not VNNI: no predicate, so no dot is kept.
    assert linalg_gemm_int8.keeps_int8_dot(CpuOptions(target_cpu="x86-64-v4")) is None
    module = parse_module(_dot_text([4, 8], [8, 5], [4, 5], "lhs_contracting_dims={1}, "
                                    "rhs_contracting_dims={0}"))  # fmt: skip
    dot = module.entry_computation.root
    assert linalg_gemm_int8.is_int8_dot(dot)
    u8 = parse_module(_dot_text([4, 8], [8, 5], [4, 5], "lhs_contracting_dims={1}, "
                                "rhs_contracting_dims={0}").replace("a = s8", "a = u8"))  # fmt: skip
    assert not linalg_gemm_int8.is_int8_dot(u8.entry_computation.root)


_CHILD = """
import json
import numpy as np
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
text = '''HloModule cached_int8
ENTRY e {
  a = s8[40,300] parameter(0)
  b = s8[300,70] parameter(1)
  ROOT d = s32[40,70] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}'''
executable = CpuBackend().compile(parse_module(text), CpuOptions())
rng = np.random.default_rng(0)
a = rng.integers(-128, 128, (40, 300), dtype=np.int8)
b = rng.integers(-128, 128, (300, 70), dtype=np.int8)
out = executable.execute([Literal.from_numpy(a), Literal.from_numpy(b)]).to_numpy()
exact = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
print(json.dumps({"stats": persistent_cache.stats(), "right": bool((out == exact).all()),
                  "symbols": list(executable.program.code.external_symbols)}))
"""


@needs_vnni
def test_a_cached_program_resolves_the_int8_gemm_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD,
        XLAPY_COMPILATION_CACHE_DIR=str(tmp_path),
        XLAPY_COMPILATION_CACHE_VERSION="test-int8",
        XLAPY_GEMM_CACHE_DIR="",
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert first["right"] and second["right"]
    assert "xlapy_igemm_512_s8_NN" in first["symbols"]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".igemm"]


def test_the_client_runs_an_int8_dot_exactly() -> None:
    """Through the public client, on whatever path this host takes."""
    text = _dot_text([33, 129], [129, 66], [33, 66],
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}")  # fmt: skip
    rng = np.random.default_rng(11)
    a, b = _int8(rng, (33, 129)), _int8(rng, (129, 66))
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    np.testing.assert_array_equal(executable(a, b), _exact(a, b))
