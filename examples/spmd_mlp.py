"""Training steps of an MLP on several devices, partitioned by xlapy: 4 devices in one
process, or the devices of several processes under ``mpiexec``.

Two ways to shard the same step (HLO text with ``sharding=`` annotations):

* data parallel: the batch (x, y) is split over the devices, the weights are
  replicated; the partitioner adds the all-reduce of the weight gradients;
* tensor parallel (Megatron): x and y are replicated, W1 is split by columns and
  W2 by rows (the hidden units), so the forward pass needs one all-reduce and the
  weights stay split across steps.

Each step is checked against the unpartitioned step on one device. Run:

    python examples/spmd_mlp.py [--platform cpu|interpreter] [--steps 5] [--devices 4]
    mpiexec -n 2 python examples/spmd_mlp.py --devices 1

Under ``mpiexec`` every process joins the job (``xlapy.distributed.initialize``) and runs
``--devices`` devices of the ``processes x devices`` the program is partitioned over;
every process gets the global results. ``benchmarks/mpi_mlp.py`` times the chained
data-parallel step (``chained_step``) on one process and on two.
"""

from __future__ import annotations

import argparse

import numpy as np

import xlapy
from xlapy import distributed
from xlapy.client import CompileOptions
from xlapy.hlo import parse_module

REPLICATED = "{replicated}"


def rows(n: int) -> str:
    return f"{{devices=[{n},1]<=[{n}]}}"


def columns(n: int) -> str:
    return f"{{devices=[1,{n}]<=[{n}]}}"


def mlp_step(batch: int, d: int, h: int, o: int, lr: float, sx: str, s1: str, s2: str) -> str:
    """One SGD step of relu(x @ W1) @ W2 against y with the mean squared error, gradients
    written out by hand: (x, y, W1, W2) -> (loss, W1', W2'). ``sx`` shards x and y, ``s1``
    and ``s2`` the weights (and the new weights)."""
    scale = 2.0 / (batch * o)
    return f"""HloModule mlp_step
add {{ a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }}
ENTRY step {{
  x = f32[{batch},{d}] parameter(0), sharding={sx}
  y = f32[{batch},{o}] parameter(1), sharding={sx}
  w1 = f32[{d},{h}] parameter(2), sharding={s1}
  w2 = f32[{h},{o}] parameter(3), sharding={s2}
  hid = f32[{batch},{h}] dot(x, w1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  zero = f32[] constant(0)
  zeros = f32[{batch},{h}] broadcast(zero), dimensions={{}}
  act = f32[{batch},{h}] maximum(hid, zeros)
  out = f32[{batch},{o}] dot(act, w2), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  err = f32[{batch},{o}] subtract(out, y)
  sq = f32[{batch},{o}] multiply(err, err)
  total = f32[] reduce(sq, zero), dimensions={{0,1}}, to_apply=add
  inv = f32[] constant({1.0 / (batch * o)!r})
  loss = f32[] multiply(total, inv)
  k = f32[] constant({scale!r})
  kb = f32[{batch},{o}] broadcast(k), dimensions={{}}
  gout = f32[{batch},{o}] multiply(err, kb)
  gw2 = f32[{h},{o}] dot(act, gout), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  gact = f32[{batch},{h}] dot(gout, w2), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}
  live = pred[{batch},{h}] compare(hid, zeros), direction=GT
  ghid = f32[{batch},{h}] select(live, gact, zeros)
  gw1 = f32[{d},{h}] dot(x, ghid), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  rate = f32[] constant({lr!r})
  r1 = f32[{d},{h}] broadcast(rate), dimensions={{}}
  r2 = f32[{h},{o}] broadcast(rate), dimensions={{}}
  u1 = f32[{d},{h}] multiply(gw1, r1)
  u2 = f32[{h},{o}] multiply(gw2, r2)
  nw1 = f32[{d},{h}] subtract(w1, u1)
  nw2 = f32[{h},{o}] subtract(w2, u2)
  ROOT t = (f32[], f32[{d},{h}], f32[{h},{o}]) tuple(loss, nw1, nw2), sharding={{{REPLICATED}, {s1}, {s2}}}
}}"""


def data_parallel(n: int, batch: int = 64, d: int = 32, h: int = 64, o: int = 8, lr=0.05):
    return mlp_step(batch, d, h, o, lr, rows(n), REPLICATED, REPLICATED)


def tensor_parallel(n: int, batch: int = 64, d: int = 32, h: int = 64, o: int = 8, lr=0.05):
    return mlp_step(batch, d, h, o, lr, REPLICATED, columns(n), rows(n))


def problem(batch: int = 64, d: int = 32, h: int = 64, o: int = 8, seed: int = 0):
    """A regression problem and initial weights (float32)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, d)).astype(np.float32)
    target = rng.standard_normal((d, o)).astype(np.float32) / np.sqrt(d)
    y = np.tanh(x @ target).astype(np.float32)
    w1 = (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32)
    w2 = (rng.standard_normal((h, o)) / np.sqrt(h)).astype(np.float32)
    return x, y, w1, w2


def join_job() -> int:
    """Join the MPI job when a launcher started this process; the number of processes."""
    if distributed.launched_by_mpi():
        distributed.initialize()
    return distributed.process_info().process_count


def say(text: str) -> None:
    """Print, prefixed with this process's rank in a job of several."""
    info = distributed.process_info()
    print(text if info.process_count == 1 else f"[{info.process_index}] {text}", flush=True)


def train(platform: str, steps: int, devices: int = 4) -> None:
    """``devices`` per process; the program is partitioned over all processes' devices."""
    client = xlapy.local_client(platform, device_count=devices)
    n = devices * distributed.process_info().process_count
    x, y, w1, w2 = problem()
    reference = client.compile(parse_module(data_parallel(1)))
    for name, text in (("data parallel", data_parallel), ("tensor parallel", tensor_parallel)):
        exe = client.compile(parse_module(text(n)), CompileOptions(num_partitions=n))
        say(f"== {name} on {n} {platform} devices ({devices} in this process)")
        say(str(exe.partitioning_report))
        a1, a2, b1, b2 = w1, w2, w1, w2
        for step in range(steps):
            loss, a1, a2 = exe(x, y, a1, a2)  # global arrays in, global arrays out
            want, b1, b2 = reference(x, y, b1, b2)
            say(f"step {step}: loss {float(loss):.6f} (one device: {float(want):.6f})")
            np.testing.assert_allclose(loss, want, rtol=1e-4)
            np.testing.assert_allclose(a1, b1, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(a2, b2, rtol=1e-4, atol=1e-5)
    chained(client, devices, steps)


def chained_step(client, devices: int, shape: dict | None = None):
    """The data-parallel step, kept on the devices: ``step()`` runs one step on the
    weights the previous one left (``execute_sharded``: this process's per-device
    handles in and out, no numpy in between) and returns this process's outputs, one
    row per local device: (loss, W1, W2) handles. ``devices`` per process."""
    shape = shape or {"batch": 64, "d": 32, "h": 64, "o": 8}
    batch, d, h, o = shape["batch"], shape["d"], shape["h"], shape["o"]
    n = devices * distributed.process_info().process_count
    x, y, w1, w2 = problem(batch, d, h, o)
    text = mlp_step(batch, d, h, o, 0.05, rows(n), REPLICATED, REPLICATED)
    exe = client.compile(parse_module(text), CompileOptions(num_partitions=n))
    local = exe.local_logical_ids  # this process's pieces of the batch
    xs = [client.transfer_to_server(p) for p in np.split(x, n)]
    ys = [client.transfer_to_server(p) for p in np.split(y, n)]
    weights = [client.transfer_to_server(w1), client.transfer_to_server(w2)]
    state = [weights for _ in local]
    previous: list = []

    def step() -> list:
        nonlocal state, previous
        out = exe.execute_sharded([[xs[i], ys[i], *state[k]] for k, i in enumerate(local)])
        for handle in (h for row in previous for h in row):
            handle.delete()  # the step before's outputs, consumed by this one
        previous, state = out, [row[1:] for row in out]
        return out

    return step


def chained(client, devices: int, steps: int) -> None:
    """Data parallel again, the weights kept on the devices between steps."""
    step = chained_step(client, devices)
    for _ in range(steps):
        out = step()
    losses = [float(client.transfer(row[0]).to_numpy()) for row in out]
    everywhere = [loss for part in distributed.allgather_objects(losses) for loss in part]
    say(f"== chained data parallel: loss after {steps} steps {losses[0]:.6f} on every device")
    assert len(set(everywhere)) == 1, everywhere


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cpu", choices=["cpu", "interpreter"])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--devices", type=int, default=None, help="devices per process "
                        "(default: 4 alone, 1 per process under mpiexec)")  # fmt: skip
    args = parser.parse_args()
    processes = join_job()
    devices = args.devices or (4 if processes == 1 else 1)
    train(args.platform, args.steps, devices)
    say("OK")


if __name__ == "__main__":
    main()
