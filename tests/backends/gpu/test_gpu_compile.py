"""The GPU compiler without a GPU: every program of the HLO corpus and every benchmark
workload compiles to PTX that ``ptxas`` assembles for sm_80 and sm_90, or is refused at
compile time with the op named (never run on the host behind the user's back)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.backends.gpu import GpuOptions, compile_program
from xlapy.backends.gpu.kernels import assemble, ptxas_path
from xlapy.errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module

CORPUS = Path(__file__).resolve().parents[2] / "data" / "hlo_corpus"
SHORT_FORMS = sorted(
    p.name[: -len(".hlo")]
    for p in CORPUS.glob("*.hlo")
    if not p.name.endswith((".opt.hlo", ".verbose.hlo"))
)
# Corpus programs the GPU back-end refuses today, and the op its error names. The list
# is the GPU's to-do list: a program leaving it (now compiling) must be taken off.
REFUSED: dict[str, str] = {
    "all_gather": "custom-call xla.sdy.GlobalToLocalShape",
    "all_reduce": "custom-call xla.sdy.GlobalToLocalShape",
    "all_to_all": "custom-call xla.sdy.GlobalToLocalShape",
    "callbacks": "custom-call debug_print.1",
    "collective_permute": "custom-call xla.sdy.GlobalToLocalShape",
    "conv2d": "convolution",
    "conv_1d_3d": "convolution",
    "conv_batch_grouped": "convolution",
    "conv_grouped": "convolution",
    "conv_grouped_grad": "convolution",
    "linalg_cpu": "custom-call cholesky.1",
    "linalg_tpu": "cholesky",
    "maxpool_grad": "reduce-window",
    "partition_id": "custom-call xla.sdy.GlobalToLocalShape",
    "pmap_psum": "custom-call xla.sdy.GlobalToLocalShape",
    "ragged_all_to_all": "custom-call xla.sdy.GlobalToLocalShape",
    "raw_async_collectives": "all-gather",
    "raw_collective_broadcast": "collective-broadcast",
    "raw_dynamic_shapes": "set-dimension-size",
    "raw_infeed_outfeed": "infeed",
    "raw_replica_id": "replica-id",
    "raw_scan": "scan",
    "raw_variadic_scatter": "scatter",
    "reduce_scatter": "custom-call xla.sdy.GlobalToLocalShape",
    "reduce_window": "reduce-window",
    "rng_uniform": "rng-get-and-update-state",
    "send_recv": "custom-call xla.sdy.GlobalToLocalShape",
}


def _assemble_both(ptx: str) -> None:
    # PTX for sm_80 also assembles for sm_90 (the driver does the same when it loads it).
    assert ".target sm_80" in ptx
    for arch in ("sm_80", "sm_90"):
        assert assemble(ptx, arch)


def test_ptxas_is_installed() -> None:
    """`make test` checks PTX with the real assembler: the test extra installs it."""
    assert ptxas_path() is not None


@pytest.mark.parametrize("case", SHORT_FORMS)
def test_corpus_program_compiles_to_ptx_that_assembles(case: str) -> None:
    module = parse_module((CORPUS / f"{case}.hlo").read_text())
    options = GpuOptions(gpu_arch="sm_80")
    if case in REFUSED:
        with pytest.raises(UnimplementedError, match=REFUSED[case]):
            compile_program(module, options)
        return
    program = compile_program(module, options)
    if program.kernel_count:
        _assemble_both(program.ptx)


def _benchmark_computations() -> dict[str, object]:
    from benchmarks.gpu import workloads as gpu_workloads
    from benchmarks.workloads import WORKLOADS

    built = {f"cpu-suite/{name}": make(256).build for name, make in WORKLOADS.items()}
    built.update({f"gpu-suite/{w.name}": w.build for w in gpu_workloads(4096)})
    return built


BENCHMARK_REFUSED = {
    "cpu-suite/conv2d": "convolution",
    "cpu-suite/sort": "sort",
}


@pytest.mark.parametrize("name", sorted(_benchmark_computations()))
def test_benchmark_workload_compiles_for_sm_90(name: str) -> None:
    computation = _benchmark_computations()[name]()
    client = xlapy.local_client("gpu")
    options = xlapy.CompileOptions(backend_options={"gpu_arch": "sm_90"})
    if name in BENCHMARK_REFUSED:
        with pytest.raises(UnimplementedError, match=BENCHMARK_REFUSED[name]):
            client.compile(computation, options)
        return
    program = client.compile(computation, options)._executable.program
    assert program.arch == "sm_90"
    if program.kernel_count:
        assert ".target sm_90" in program.ptx
        assert assemble(program.ptx, "sm_90")


def test_unsupported_ops_are_refused_at_compile_time_naming_the_op() -> None:
    text = """HloModule s
lt { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e { x = f32[4,5000] parameter(0)
  ROOT s = f32[4,5000] sort(x), dimensions={1}, to_apply=lt }"""
    with pytest.raises(UnimplementedError, match=r"sort s .*no GPU kernel yet.*2048"):
        xlapy.local_client("gpu").compile(parse_module(text))


def test_options_are_checked() -> None:
    with pytest.raises(InvalidArgumentError, match="gpu_arch must name"):
        GpuOptions(gpu_arch="hopper")
    with pytest.raises(InvalidArgumentError, match="one device per executable"):
        GpuOptions(num_replicas=2)


def test_compile_command_writes_the_ptx_without_a_gpu(tmp_path: Path) -> None:
    source = tmp_path / "m.hlo"
    source.write_text(
        "HloModule m\nENTRY e { x = f32[1000] parameter(0)\n  ROOT y = f32[1000] exponential(x) }\n"
    )
    dump = tmp_path / "dump"
    result = subprocess.run(
        [sys.executable, "-m", "xlapy.cli", "compile", str(source), "--platform", "gpu",
         "--gpu-arch", "sm_90", "--dump-dir", str(dump)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "compiled for gpu, 1 kernels for sm_90" in result.stdout
    (ptx,) = dump.glob("*.sm_90.ptx")
    assert ".entry" in ptx.read_text()
    assert assemble(ptx.read_text(), "sm_90")


def test_running_without_a_gpu_says_so() -> None:
    from xlapy.backends.gpu.runtime.driver import cuda_available

    if cuda_available():
        pytest.skip("this machine has a CUDA device: the gpu-marked tests cover running")
    executable = xlapy.local_client("gpu").compile(
        parse_module(
            "HloModule m\nENTRY e { x = f32[3] parameter(0)\n  ROOT y = f32[3] negate(x) }"
        )
    )
    with pytest.raises(FailedPreconditionError, match="no CUDA device"):
        executable(np.ones(3, np.float32))


def test_manifest_lists_the_corpus() -> None:
    manifest = json.loads((CORPUS / "MANIFEST.json").read_text())
    assert set(SHORT_FORMS) <= {f["case"] for f in manifest["files"].values()}
