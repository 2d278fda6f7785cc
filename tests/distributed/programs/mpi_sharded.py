"""Run under ``mpiexec -n 2``: a sharded global program through the client in every process.

Each process joins the job, makes a client with ``--local-devices`` devices, compiles the
same sharded HLO (num_partitions = 2 x local devices, partitioned by xlapy) and calls it
with the whole global arrays; every process must get the global result the unpartitioned
program gives on the interpreter. Prints ``OK <case>`` or ``FAIL <case>: ...`` per case,
also to ``--report``'s per-rank file (see ``rank_report``).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from tests.distributed.programs.rank_report import report_to

import xlapy
from xlapy.distributed import initialize, process_info, shutdown
from xlapy.hlo import parse_module

# Megatron MLP: x replicated, w1 tiled on its columns, w2 on its rows (one all-reduce).
MEGATRON = """HloModule megatron, num_partitions={n}

ENTRY main {{
  x = f32[4,8] parameter(0), sharding={{replicated}}
  w1 = f32[8,{h}] parameter(1), sharding={{devices=[1,{n}]<=[{n}]}}
  w2 = f32[{h},8] parameter(2), sharding={{devices=[{n},1]<=[{n}]}}
  d1 = f32[4,{h}] dot(x, w1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  zero = f32[] constant(0)
  zeros = f32[4,{h}] broadcast(zero), dimensions={{}}
  relu = f32[4,{h}] maximum(d1, zeros)
  ROOT d2 = f32[4,8] dot(relu, w2), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, sharding={{replicated}}
}}
"""

# Elementwise on a row-tiled array, the result left tiled: the client assembles the rows.
ROWS = """HloModule rows, num_partitions={n}

ENTRY main {{
  a = s32[{r},3] parameter(0), sharding={{devices=[{n},1]<=[{n}]}}
  b = s32[{r},3] parameter(1), sharding={{devices=[{n},1]<=[{n}]}}
  m = s32[{r},3] multiply(a, b)
  ROOT s = s32[{r},3] add(m, a), sharding={{devices=[{n},1]<=[{n}]}}
}}
"""


def _cases(n: int) -> dict[str, tuple[str, list[np.ndarray]]]:
    rng = np.random.default_rng(7)
    h = 4 * n
    return {
        "megatron": (
            MEGATRON.format(n=n, h=h),
            [rng.standard_normal(s).astype(np.float32) for s in ((4, 8), (8, h), (h, 8))],
        ),
        "rows": (
            ROWS.format(n=n, r=2 * n),
            [rng.integers(-9, 9, (2 * n, 3)).astype(np.int32) for _ in range(2)],
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--report")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "interpreter"])
    parser.add_argument("--local-devices", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    initialize(timeout=30.0)
    report_to(args.report)
    me, count = process_info().process_index, process_info().process_count
    failures = 0
    for local in args.local_devices:
        n = local * count
        client = xlapy.local_client(args.backend, device_count=local)
        for name, (text, inputs) in _cases(n).items():
            case = f"{args.backend} n={n} {name}"
            try:
                want = xlapy.local_client("interpreter").compile(parse_module(text))(*inputs)
                exe = client.compile(parse_module(text), xlapy.CompileOptions(num_partitions=n))
                got = exe(*inputs)
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
                print(f"OK {case}", flush=True)
            except Exception as e:  # noqa: BLE001 (reported, the test fails on it)
                failures += 1
                print(f"FAIL {case}: {type(e).__name__}: {e}", flush=True)
    print(f"DONE {me} failures={failures}", flush=True)
    shutdown()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
