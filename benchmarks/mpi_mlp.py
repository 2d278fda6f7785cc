"""``python -m benchmarks.mpi_mlp``: the data-parallel MLP step on one process and on two
(``mpiexec -n 2``), issue 19's multi-process target (>= 1.6x the steps/s of one process).

Every run takes the same global batch: one process with one device runs all of it, two
processes with one device each run half each and all-reduce the weight gradients over
MPI (``examples/spmd_mlp.py``'s ``chained_step``: weights kept on the devices between
steps, so no host conversion is counted). Each configuration runs in a fresh process
(``--worker``), started here alone or under ``mpiexec``; a worker times ``--steps`` steps
after a warm-up, the processes of a job meeting before and after, and rank 0 prints one
JSON line. Not part of ``make test``: on a machine with fewer cores than processes x
devices (or shared with other work) the processes compete for the cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "spmd_mlp.py"


def load_example():
    spec = importlib.util.spec_from_file_location("spmd_mlp", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worker(args: argparse.Namespace) -> None:
    """One configuration, in this process (and the others of its job)."""
    if args.pin:  # before any kernel is built: kernels split over the cores we may use
        rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[rank % len(cores)]})
    import xlapy
    from xlapy import distributed

    example = load_example()
    processes = example.join_job()
    client = xlapy.local_client(args.platform, device_count=args.devices)
    shape = {"batch": args.batch, "d": args.d, "h": args.h, "o": args.o}
    step = example.chained_step(client, args.devices, shape)
    for _ in range(3):  # warm-up: compile caches, buffers, MPI connections
        step()
    distributed.allgather_objects(None)  # every process starts timing together
    start = time.perf_counter()
    for _ in range(args.steps):
        out = step()
    client.transfer(out[0][0]).to_numpy()
    distributed.allgather_objects(None)
    seconds = (time.perf_counter() - start) / args.steps
    if distributed.process_info().process_index == 0:
        row = {"processes": processes, "devices_per_process": args.devices,
               "ms_per_step": seconds * 1e3, "steps_per_s": 1 / seconds,
               "samples_per_s": args.batch / seconds}  # fmt: skip
        print("RESULT " + json.dumps(row), flush=True)


def launch(processes: int, args: argparse.Namespace) -> dict:
    """A worker run alone (1 process) or under ``mpiexec -n processes``; its result."""
    command = [sys.executable, "-m", "benchmarks.mpi_mlp", "--worker",
               "--platform", args.platform, "--devices", "1", "--steps", str(args.steps),
               "--batch", str(args.batch), "--d", str(args.d), "--h", str(args.h),
               "--o", str(args.o), *(["--pin"] if args.pin else [])]  # fmt: skip
    if processes > 1:
        mpiexec = shutil.which("mpiexec", path=str(pathlib.Path(sys.executable).parent))
        mpiexec = mpiexec or shutil.which("mpiexec")
        if mpiexec is None:
            raise SystemExit("mpiexec is not installed: pip install 'xlapy[mpi]'")
        binding = [] if args.bind_to == "none" else ["-bind-to", args.bind_to]
        command = [mpiexec, *binding, "-n", str(processes), *command]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.limit
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise SystemExit(f"no result from {' '.join(command)}:\n{done.stdout}\n{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cpu")
    parser.add_argument("--devices", type=int, default=1, help="devices per process (worker)")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--d", type=int, default=256)
    parser.add_argument("--h", type=int, default=512)
    parser.add_argument("--o", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--pin", action="store_true", help="one core per process (rank r "
                        "on the r-th core): scaling with the cores, not the threads")  # fmt: skip
    parser.add_argument("--bind-to", default="core", help="mpiexec's -bind-to for the "
                        "job ('none': unbound; each process's kernels then split over all "
                        "the cores, and the processes' threads oversubscribe them)")  # fmt: skip
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    print(
        f"data-parallel MLP step, global batch {args.batch} (d={args.d}, h={args.h}, "
        f"o={args.o}), {args.platform}, one device per process{', one core each' if args.pin else ''}; "
        f"best of {args.repeats} runs each, interleaved"
    )
    print(f"{'processes':>9} {'ms/step':>9} {'steps/s':>9} {'samples/s':>10} {'speed-up':>9} "
          f"{'median st/s':>11}")  # fmt: skip
    runs: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(args.repeats):  # interleaved: a burst of other work hits both alike
        for processes in runs:
            runs[processes].append(launch(processes, args))
    rows = []
    for processes, results in runs.items():
        row = max(results, key=lambda r: r["steps_per_s"])
        row["median_steps_per_s"] = sorted(r["steps_per_s"] for r in results)[len(results) // 2]
        row["speedup"] = row["steps_per_s"] / (
            rows[0]["steps_per_s"] if rows else row["steps_per_s"]
        )
        rows.append(row)
        print(f"{processes:>9} {row['ms_per_step']:>9.2f} {row['steps_per_s']:>9.1f} "
              f"{row['samples_per_s']:>10.0f} {row['speedup']:>8.2f}x "
              f"{row['median_steps_per_s']:>11.1f}", flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
