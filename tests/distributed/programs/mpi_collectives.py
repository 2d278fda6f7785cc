"""Run under ``mpiexec -n 2``: collectives across processes against the one-process run.

Every process builds the same HLO modules, runs them once on all the devices in its own
threads (the reference) and once on its own share of the devices with the other
process's devices over MPI, and prints ``OK <case>`` or ``FAIL <case>: ...`` per case.
``--die`` makes the last rank exit before its first collective; the others print
``DEADLINE <seconds> <message>`` when they give up.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from tests.distributed.programs.rank_report import report_to

import xlapy
from xlapy.backends.cpu import CpuBackend, CpuOptions
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.distributed import allgather_objects, initialize, process_info, shutdown
from xlapy.errors import DeadlineExceededError
from xlapy.hlo import parse_module

REDUCER = """
{name} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = {t}[] {op}(a, b)
}}
"""


def _groups(groups: list[list[int]]) -> str:
    return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in groups) + "}"


def _module(
    name: str, n: int, reducers: list[tuple[str, str, str]], params: list[str], body: str
) -> str:
    text = f"HloModule {name}, num_partitions={n}\n"
    for r, t, op in reducers:
        text += REDUCER.format(name=r, t=t, op=op)
    lines = [f"  p{i} = {s} parameter({i})" for i, s in enumerate(params)]
    return text + "\nENTRY e {\n" + "\n".join(lines) + "\n" + body + "\n}\n"


def cases(n: int) -> dict[str, tuple[str, list[str]]]:
    """name -> (HLO text, parameter types) for ``n`` partitions."""
    ring = _groups([[i, (i + 1) % n] for i in range(n)])
    split = [[i for i in range(n) if i % 2 == k] for k in range(2)] if n > 2 else [list(range(n))]
    pairs = "{" + ",".join(f"{{{i},{(i + 1) % n}}}" for i in range(n)) + "}"
    out = {
        "all-reduce-f32": (
            ["f32[8]"],
            [("add", "f32", "add")],
            "  ROOT x = f32[8] all-reduce(p0), channel_id=1, replica_groups={}, to_apply=add",
        ),
        "all-reduce-s32-max-groups": (
            ["s32[3,2]"],
            [("mx", "s32", "maximum")],
            f"  ROOT x = s32[3,2] all-reduce(p0), channel_id=1, replica_groups={_groups(split)}, "
            "use_global_device_ids=true, to_apply=mx",
        ),
        "all-reduce-bf16": (
            ["bf16[6]"],
            [("add", "bf16", "add")],
            "  ROOT x = bf16[6] all-reduce(p0), channel_id=1, replica_groups={}, to_apply=add",
        ),
        "all-reduce-f32-min": (
            ["f32[5]"],
            [("mn", "f32", "minimum")],
            "  ROOT x = f32[5] all-reduce(p0), channel_id=1, replica_groups={}, to_apply=mn",
        ),
        "all-reduce-tuple": (
            ["f32[4]", "s32[2]"],
            [("add", "f32", "add")],
            "  ROOT x = (f32[4], f32[4]) all-reduce(p0, p0), channel_id=1, replica_groups={}, "
            "to_apply=add",
        ),
        "all-gather": (
            ["f32[2,3]"],
            [],
            f"  ROOT x = f32[{2 * n},3] all-gather(p0), channel_id=1, replica_groups={{}}, "
            "dimensions={0}",
        ),
        "reduce-scatter": (
            [f"f32[{2 * n},3]"],
            [("add", "f32", "add")],
            "  ROOT x = f32[2,3] reduce-scatter(p0), channel_id=1, replica_groups={}, "
            "dimensions={0}, to_apply=add",
        ),
        "all-to-all": (
            [f"s32[{3 * n},2]"],
            [],
            f"  ROOT x = s32[{3 * n},2] all-to-all(p0), channel_id=1, replica_groups={{}}, "
            "dimensions={0}",
        ),
        "collective-permute": (
            ["f32[5]"],
            [],
            f"  ROOT x = f32[5] collective-permute(p0), channel_id=1, source_target_pairs={ring}",
        ),
        "collective-broadcast": (
            ["f32[4]"],
            [],
            f"  ROOT x = f32[4] collective-broadcast(p0), channel_id=1, replica_groups={{{{{n - 1},"
            + ",".join(str(i) for i in range(n - 1))
            + "}}",
        ),
        "send-recv": (
            ["f32[4]"],
            [],
            "  t = token[] after-all()\n"
            f"  s = (f32[4], u32[], token[]) send(p0, t), channel_id=2, "
            f'frontend_attributes={{_xla_send_recv_source_target_pairs="{pairs}"}}\n'
            f"  r = (f32[4], u32[], token[]) recv(t), channel_id=2, "
            f'frontend_attributes={{_xla_send_recv_source_target_pairs="{pairs}"}}\n'
            "  sd = token[] send-done(s), channel_id=2\n"
            "  rd = (f32[4], token[]) recv-done(r), channel_id=2\n"
            "  ROOT x = f32[4] get-tuple-element(rd), index=0",
        ),
    }
    return {
        k: (_module(k.replace("-", "_"), n, red, params, body), params)
        for k, (params, red, body) in out.items()
    }


def arguments(params: list[str], device: int) -> list[xlapy.Literal]:
    """Integer-valued data per device, so float sums are exact in any order."""
    rng = np.random.default_rng(100 + device)
    out = []
    for p in params:
        kind, dims = p.split("[")
        shape = [int(d) for d in dims.rstrip("]").split(",") if d]
        value = rng.integers(-8, 9, size=shape)
        dtype = {"f32": np.float32, "s32": np.int32}.get(kind)
        if kind == "bf16":
            out.append(
                xlapy.Literal.from_value(value.astype(np.float32)).convert(
                    xlapy.types.PrimitiveType.BF16
                )
            )
        else:
            out.append(xlapy.Literal.from_value(value.astype(dtype)))
    return out


def _backend(name: str, n: int, timeout: float):
    if name == "cpu":
        return CpuBackend(), CpuOptions(1, n, collective_timeout=timeout)
    return InterpreterBackend(), InterpreterOptions(1, n, collective_timeout=timeout)


def run_cases(backend_name: str, n: int, only: str | None) -> int:
    info = process_info()
    local_count = n // info.process_count
    local = list(range(info.process_index * local_count, (info.process_index + 1) * local_count))
    failures = 0
    for name, (text, params) in cases(n).items():
        if only and name != only:
            continue
        label = f"{backend_name} n={n} {name}"
        try:
            backend, options = _backend(backend_name, n, 30.0)
            executable = backend.compile(parse_module(text), options)
            per_device = [arguments(params, d) for d in range(n)]
            expected = executable.execute_replicated(per_device)
            got = executable.execute_replicated([per_device[d] for d in local], local_devices=local)
            for d, result in zip(local, got, strict=True):
                want, have = expected[d].to_numpy(), result.to_numpy()
                pairs = zip(want, have, strict=True) if isinstance(want, tuple) else [(want, have)]
                for w, h in pairs:
                    if not np.array_equal(np.asarray(w, np.float64), np.asarray(h, np.float64)):
                        raise AssertionError(f"device {d}: expected {w}, got {h}")
            print(f"OK {label}", flush=True)
        except Exception as e:  # noqa: BLE001  (reported to the test through stdout)
            failures += 1
            print(f"FAIL {label}: {type(e).__name__}: {e}", flush=True)
    return failures


def die_test(backend_name: str, timeout: float) -> None:
    """The last rank leaves before the all-reduce; the others must give up in time."""
    info = process_info()
    if info.process_index == info.process_count - 1:
        os._exit(0)
    n = info.process_count
    text, params = cases(n)["all-reduce-f32"]
    backend, options = _backend(backend_name, n, timeout)
    executable = backend.compile(parse_module(text), options)
    me = info.process_index
    start = time.monotonic()
    try:
        executable.execute_replicated([arguments(params, me)], local_devices=[me])
        print("NO-ERROR", flush=True)
    except DeadlineExceededError as e:
        print(f"DEADLINE {time.monotonic() - start:.2f} {e}", flush=True)
    # MPI_Finalize would wait for the dead peer: leave without it.
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--report")
    parser.add_argument("--backend", default="cpu", choices=["cpu", "interpreter"])
    parser.add_argument("--devices", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--case")
    parser.add_argument("--die", action="store_true")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args()
    initialize(timeout=args.timeout if args.die else 30.0)
    report_to(args.report)
    if args.die:
        die_test(args.backend, args.timeout)
    failures = sum(run_cases(args.backend, n, args.case) for n in args.devices)
    me = process_info().process_index
    everyone = allgather_objects({"rank": me, "shard": np.arange(3) + me})
    if [e["rank"] for e in everyone] == [0, 1] and int(everyone[1]["shard"][0]) == 1:
        print("OK allgather_objects", flush=True)
    else:
        failures += 1
        print(f"FAIL allgather_objects: {everyone}", flush=True)
    print(f"DONE {process_info().process_index} failures={failures}", flush=True)
    shutdown()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
