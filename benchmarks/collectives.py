"""``python -m benchmarks.collectives``: collectives and a data-parallel step on devices
of one process (issue 19's single-process targets).

- all-reduce (sum) of f32[1M] .. f32[64M] across 4 devices (threads of this process,
  meeting in the CPU backend's native collective thunks), timed through
  ``Executable.execute_sharded`` on device buffers (GlobalData) so that no host
  conversion is counted. Reported as
  * algorithm bandwidth: bytes of one device's buffer / time,
  * bus bandwidth: algorithm bandwidth x 2(N-1)/N (NCCL's convention),
  * memory traffic: every input read once and every result written once, 2 x N x
    bytes / time, as a fraction of this machine's copy bandwidth (numpy ``copyto``
    on one thread, counted as STREAM counts copy: bytes read + bytes written).
  Target (issue 19): >= 70% of memory bandwidth.
- the data-parallel MLP step of ``examples/spmd_mlp.py`` (batch split over the devices,
  weights replicated, gradients all-reduced) on 1, 2 and 4 devices: steps/s and
  samples/s, weights kept on the devices between steps.

Not part of ``make test``; numbers depend on the machine's cores (devices are threads).
Writes JSON with ``--json FILE``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import statistics
import time

import numpy as np

import xlapy
from xlapy.client import CompileOptions
from xlapy.hlo import parse_module

EXAMPLE = pathlib.Path(__file__).parents[1] / "examples" / "spmd_mlp.py"

ALL_REDUCE = """HloModule all_reduce
add {{ a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }}
ENTRY e {{
  x = f32[{n}] parameter(0)
  ROOT r = f32[{n}] all-reduce(x), replica_groups={{}}, to_apply=add
}}"""


def best_of(run, repeats: int) -> float:
    """The fastest of ``repeats`` timed runs, after one warm-up run (seconds)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def copy_bandwidth(nbytes: int = 256 << 20, repeats: int = 5) -> float:
    """numpy copy on one thread, bytes read + written per second (GB/s)."""
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    seconds = best_of(lambda: np.copyto(dst, src), repeats)
    return 2 * nbytes / seconds / 1e9


def all_reduce(client, elements: int, devices: int, repeats: int) -> dict:
    exe = client.compile(
        parse_module(ALL_REDUCE.format(n=elements)), CompileOptions(num_replicas=devices)
    )
    buffers = [
        [client.transfer_to_server(np.full(elements, d + 1, np.float32))] for d in range(devices)
    ]
    results = []

    def run():
        out = exe.execute_sharded(buffers)
        for row in results:
            row[0].delete()
        results[:] = out

    seconds = best_of(run, repeats)
    check = client.transfer(results[0][0]).to_numpy()
    assert check[0] == devices * (devices + 1) / 2 and check[-1] == check[0]
    for row in results:
        row[0].delete()
    for row in buffers:
        row[0].delete()
    nbytes = elements * 4
    algorithm = nbytes / seconds / 1e9
    return {
        "elements": elements,
        "mb_per_device": nbytes / 2**20,
        "ms": seconds * 1e3,
        "algorithm_gbs": algorithm,
        "bus_gbs": algorithm * 2 * (devices - 1) / devices,
        "memory_gbs": 2 * devices * nbytes / seconds / 1e9,
    }


def load_example():
    spec = importlib.util.spec_from_file_location("spmd_mlp", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mlp_throughput(client, devices: int, shape: dict, repeats: int) -> dict:
    example = load_example()
    text = example.mlp_step(
        shape["batch"], shape["d"], shape["h"], shape["o"], 0.01,
        example.rows(devices), example.REPLICATED, example.REPLICATED,
    )  # fmt: skip
    x, y, w1, w2 = example.problem(shape["batch"], shape["d"], shape["h"], shape["o"])
    options = CompileOptions(num_partitions=devices, use_spmd_partitioning=True)
    exe = client.compile(parse_module(text), options)
    xs = [client.transfer_to_server(p) for p in np.split(x, devices)]
    ys = [client.transfer_to_server(p) for p in np.split(y, devices)]
    state = [[client.transfer_to_server(w1), client.transfer_to_server(w2)] for _ in xs]
    previous: list = []

    def step():
        nonlocal state, previous
        out = exe.execute_sharded([[xs[i], ys[i], *state[i]] for i in range(devices)])
        for handle in (h for row in previous for h in row):
            handle.delete()  # the step before's outputs, consumed by this one
        previous, state = out, [row[1:] for row in out]

    step()  # warm-up
    seconds = statistics.median([best_of(step, 1) for _ in range(3 * repeats)])
    return {
        "devices": devices,
        "ms_per_step": seconds * 1e3,
        "steps_per_s": 1 / seconds,
        "samples_per_s": shape["batch"] / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cpu")
    parser.add_argument("--devices", type=int, default=4)
    parser.add_argument("--max-elements", type=int, default=64 << 20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()

    client = xlapy.local_client(args.platform, device_count=args.devices)
    copy = copy_bandwidth()
    print(f"numpy copy bandwidth (one thread, read + write): {copy:.1f} GB/s")
    print(f"\nall-reduce (sum) across {args.devices} {args.platform} devices in one process")
    print(f"{'elements':>10} {'MB/dev':>7} {'ms':>9} {'alg GB/s':>9} {'bus GB/s':>9} "
          f"{'mem GB/s':>9} {'of copy':>8}")  # fmt: skip
    reduces = []
    elements = 1 << 20
    while elements <= args.max_elements:
        row = all_reduce(client, elements, args.devices, args.repeats)
        row["fraction_of_copy"] = row["memory_gbs"] / copy
        reduces.append(row)
        print(f"{row['elements']:>10} {row['mb_per_device']:>7.0f} {row['ms']:>9.2f} "
              f"{row['algorithm_gbs']:>9.2f} {row['bus_gbs']:>9.2f} {row['memory_gbs']:>9.2f} "
              f"{row['fraction_of_copy']:>8.0%}")  # fmt: skip
        elements *= 4

    shape = {"batch": args.batch, "d": 256, "h": 512, "o": 64}
    print(f"\ndata-parallel MLP step ({shape}) on {args.platform}")
    print(f"{'devices':>8} {'ms/step':>9} {'steps/s':>9} {'samples/s':>10} {'speed-up':>9}")
    steps = []
    counts = [n for n in (1, 2, 4) if n <= args.devices]
    for n in counts:
        row = mlp_throughput(client, n, shape, args.repeats)
        row["speedup"] = row["steps_per_s"] / (
            steps[0]["steps_per_s"] if steps else row["steps_per_s"]
        )
        steps.append(row)
        print(f"{n:>8} {row['ms_per_step']:>9.2f} {row['steps_per_s']:>9.1f} "
              f"{row['samples_per_s']:>10.0f} {row['speedup']:>8.2f}x")  # fmt: skip
    if args.json:
        report = {"copy_gbs": copy, "all_reduce": reduces, "mlp_data_parallel": steps}
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
