"""``xlapy run``: compile, run, time, compare with the interpreter (and its helpers)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from xlapy import register_custom_call
from xlapy.cli import main
from xlapy.custom_call import unregister_custom_call
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module
from xlapy.tools.compare import first_difference
from xlapy.tools.inputs import index_parameters, load_module, random_inputs, read_npz
from xlapy.tools.run import run_module

CORPUS = Path(__file__).parents[1] / "data" / "hlo_corpus"
JAX_CORPUS = Path(__file__).parents[1] / "data" / "jax_corpus"

SMALL_MLIR = """module @small {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
"""
POLYMORPHIC_MLIR = """module @poly {
  func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}
"""
# A custom call the CPU and the interpreter disagree on: a planted mismatch.
PLANTED = """HloModule tools_run_planted
ENTRY main {
  x = f32[5] parameter(0)
  y = f32[5] custom-call(x), custom_call_target="tools_test.planted"
  ROOT t = (f32[5], f32[5]) tuple(x, y)
}
"""


@pytest.mark.parametrize("name", ["binary_float", "gather", "dynamic_slicing", "tuple_results"])
def test_corpus_modules_agree_with_the_interpreter(
    name: str, capsys: pytest.CaptureFixture
) -> None:
    path = CORPUS / f"{name}.hlo"
    assert main(["run", str(path), "--reference", "interpreter", "--iterations", "3"]) == 0
    out = capsys.readouterr().out
    assert "compiled for cpu in" in out and "run x3: min" in out and "median" in out
    assert "cpu vs interpreter: agrees" in out


def test_python_api_result() -> None:
    module = load_module(str(CORPUS / "binary_float.hlo"))
    result = run_module(module, seed=3, reference="interpreter", iterations=4)
    assert result.agrees and result.difference is None
    assert len(result.run_seconds) == 4 and 0 < result.min_seconds <= result.median_seconds
    assert result.compile_seconds > 0
    assert len(result.outputs) == len(result.reference_outputs) == 14
    again = run_module(module, seed=3, platform="interpreter")
    for got, want in zip(again.outputs, result.reference_outputs, strict=True):
        np.testing.assert_array_equal(got, want)


def test_planted_mismatch_exits_1_naming_output_index_and_values(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    register_custom_call("tools_test.planted", lambda x: x, platform="interpreter")
    register_custom_call(
        "tools_test.planted", lambda x: np.where(np.arange(5) == 2, x + 1, x), "cpu"
    )
    path = tmp_path / "planted.hlo"
    path.write_text(PLANTED)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, np.arange(5, dtype=np.float32))
    try:
        code = main(["run", str(path), "--inputs", str(inputs), "--reference", "interpreter"])
        result = run_module(parse_module(PLANTED), [np.arange(5, dtype=np.float32)],
                            reference="interpreter")  # fmt: skip
    finally:
        unregister_custom_call("tools_test.planted", "interpreter")
        unregister_custom_call("tools_test.planted", "cpu")
    assert code == 1
    err = capsys.readouterr().err
    assert "output 1 at index [2]: got 3.0, want 2.0" in err
    assert not result.agrees
    assert (result.difference.output, result.difference.index) == (1, (2,))


def test_print_output_and_inputs_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "small.mlir"
    path.write_text(SMALL_MLIR)
    out_npz = tmp_path / "out.npz"
    assert main(["run", str(path), "--random", "7", "--print", "--output", str(out_npz)]) == 0
    printed = capsys.readouterr().out
    assert "arg0 f32[4]" in printed and "output 0: [" in printed
    arguments = random_inputs(load_module(str(path)), 7)
    want = arguments[0] * arguments[1] + arguments[1]
    np.testing.assert_allclose(np.load(out_npz)["output_0"], want, rtol=1e-6)
    in_npz = tmp_path / "in.npz"
    np.savez(in_npz, arg1=arguments[1], arg0=arguments[0])  # by parameter name, any order
    again = tmp_path / "again.npz"
    assert main(["run", str(path), "--inputs", str(in_npz), "--output", str(again)]) == 0
    np.testing.assert_array_equal(np.load(again)["output_0"], np.load(out_npz)["output_0"])


def test_jax_corpus_inputs_skip_expected_outputs(capsys: pytest.CaptureFixture) -> None:
    stem = JAX_CORPUS / "while_loop"
    args = ["run", f"{stem}.mlir", "--inputs", f"{stem}.npz", "--reference", "interpreter"]
    assert main(args) == 0
    assert "agrees" in capsys.readouterr().out


def test_polymorphic_module_needs_concrete_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "poly.mlir"
    path.write_text(POLYMORPHIC_MLIR)
    assert main(["run", str(path)]) == 1
    assert "shape-polymorphic" in capsys.readouterr().err
    with pytest.raises(UnimplementedError, match="--inputs"):
        run_module(load_module(str(path)))
    result = run_module(
        load_module(str(path)), [np.arange(5, dtype=np.float32)], reference="interpreter"
    )
    np.testing.assert_array_equal(result.outputs, 2 * np.arange(5, dtype=np.float32))


def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["run", str(tmp_path / "missing.hlo")]) == 1
    assert "cannot read" in capsys.readouterr().err
    npz = tmp_path / "odd.npz"
    np.savez(npz, a=np.zeros(4, np.float32), b=np.zeros(4, np.float32))
    path = tmp_path / "small.mlir"
    path.write_text(SMALL_MLIR)
    assert main(["run", str(path), "--inputs", str(npz)]) == 1
    assert "cannot tell the order" in capsys.readouterr().err
    with pytest.raises(InvalidArgumentError, match="iterations"):
        run_module(load_module(str(path)), iterations=0)


INDEXED = """HloModule tools_inputs
ENTRY main {
  operand = f32[6,3] parameter(0)
  start = s32[] parameter(1)
  other = s32[2] parameter(2)
  flags = pred[2] parameter(3)
  half = bf16[2] parameter(4)
  zero = s32[] constant(0)
  offset = s32[] add(start, zero)
  slice = f32[2,3] dynamic-slice(operand, offset, zero), dynamic_slice_sizes={2,3}
  ROOT t = (f32[2,3], s32[2], pred[2], bf16[2]) tuple(slice, other, flags, half)
}
"""


def test_random_inputs_by_type_and_use() -> None:
    module = parse_module(INDEXED)
    assert index_parameters(module) == {1}
    first = random_inputs(module, 1)
    operand, start, other, flags, half = first
    assert operand.dtype == np.float32 and operand.shape == (6, 3)
    assert np.all((-1 <= operand) & (operand < 1))
    assert start.dtype == np.int32 and 0 <= start < 4  # becomes an index
    assert other.dtype == np.int32 and np.all((-8 <= other) & (other < 8))
    assert flags.dtype == np.bool_ and half.dtype == ml_dtypes.bfloat16
    again = random_inputs(module, 1)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_read_npz_orders_numbered_keys(tmp_path: Path) -> None:
    npz = tmp_path / "n.npz"
    np.savez(npz, in_10=np.ones(1), in_2=np.zeros(1), out_0=np.ones(3))
    first, second = read_npz(str(npz))
    assert first[0] == 0 and second[0] == 1


def test_first_difference_is_op_aware() -> None:
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    assert first_difference(x * (1 + 1e-7), x) is None  # rounding: within tolerance
    assert first_difference(np.array([np.nan]), np.array([np.nan])) is None
    ints = np.arange(6, dtype=np.int32)
    off = ints.copy()
    off[4] += 1
    found = first_difference((x, off.reshape(2, 3)), (x, ints.reshape(2, 3)))
    assert (found.output, found.index, found.got, found.want) == (1, (1, 1), 5, 4)
    assert "output 1 at index [1, 1]: got 5, want 4" == str(found)
    shape = first_difference(np.zeros(3, np.float32), np.zeros(4, np.float32))
    assert "want float32[4]" in str(shape)


def test_backend_options_from_the_command_line(capsys: pytest.CaptureFixture) -> None:
    # JAX's mixed-precision program computed as the interpreter rounds (no excess precision).
    stem = JAX_CORPUS / "mixed_precision"
    args = ["run", f"{stem}.mlir", "--inputs", f"{stem}.npz", "--reference", "interpreter"]
    assert main([*args, "--option", "allow_excess_precision=false", "--disable", "cse"]) == 0
    assert "agrees" in capsys.readouterr().out
    assert main(["run", str(CORPUS / "binary_float.hlo"), "--option", "no_such_option=1"]) == 1
    assert "the options are" in capsys.readouterr().err
