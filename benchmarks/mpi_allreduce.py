"""All-reduce of f32[1M]..f32[64M] across 2 processes: xlapy vs mpi4py's own Allreduce.

Run: ``mpiexec -n 2 python -m benchmarks.mpi_allreduce`` (from the repository root).
Each process owns one device of a 2-partition all-reduce program; xlapy's time is the
whole ``execute_replicated`` call (argument checks, the native entry, the rendezvous,
MPI's all-reduce into the output buffer); mpi4py's is ``comm.Allreduce`` on the same
argument into a preallocated buffer. Best and median of ``--repeats`` runs, each after a
barrier. Rank 0 prints the table; the target is xlapy >= 90% of mpi4py.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.distributed import initialize, shutdown
from xlapy.hlo import parse_module

PROGRAM = """HloModule allreduce_{n}, num_partitions=2
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  p = f32[{n}] parameter(0)
  ROOT r = f32[{n}] all-reduce(p), channel_id=1, replica_groups={{}}, to_apply=add
}}
"""


def _times(run, comm, repeats: int) -> list[float]:
    run()  # warm up (pages, caches)
    times = []
    for _ in range(repeats):
        comm.Barrier()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    # A collective's time is the slowest process's.
    return [max(t) for t in zip(*comm.allgather(times), strict=True)]


def main() -> None:
    from mpi4py import MPI  # the benchmark's baseline

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16, 64], help="Mi elements")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    info = initialize()
    comm = MPI.COMM_WORLD
    me = info.process_index
    rows = []
    for mi in args.sizes:
        n = mi << 20
        executable = CpuBackend().compile(
            parse_module(PROGRAM.format(n=n)), CpuOptions(1, 2, collective_timeout=120)
        )
        data = np.arange(n, dtype=np.float32) % 7 + me
        literal = xlapy.Literal.from_value(data)
        recv = np.empty_like(data)
        results: list = []

        def xla(results=results, executable=executable, literal=literal, me=me) -> None:
            results[:] = executable.execute_replicated([[literal]], local_devices=[me])

        def mpi(data=data, recv=recv) -> None:
            comm.Allreduce(data, recv, MPI.SUM)

        mpi_times = _times(mpi, comm, args.repeats)
        xla_times = _times(xla, comm, args.repeats)
        mpi_times += _times(mpi, comm, args.repeats)  # interleaved: fair to drifts
        assert np.array_equal(results[0].to_numpy(), recv)
        rows.append((mi, min(xla_times), statistics.median(xla_times), min(mpi_times),
                     statistics.median(mpi_times)))  # fmt: skip
    if me == 0:
        print(f"all-reduce f32 across {info.process_count} processes (1 device each), seconds")
        print(f"{'elements':>9} {'xlapy best':>11} {'median':>9} {'mpi4py best':>12} "
              f"{'median':>9} {'GB/s xlapy':>11} {'xlapy/mpi4py':>13}")  # fmt: skip
        for mi, xb, xm, mb, mm in rows:
            gbs = (mi << 20) * 4 / xb / 1e9
            print(f"{mi:>8}M {xb:>11.4f} {xm:>9.4f} {mb:>12.4f} {mm:>9.4f} {gbs:>11.2f} "
                  f"{mb / xb:>12.0%}")  # fmt: skip
    shutdown()


if __name__ == "__main__":
    main()
