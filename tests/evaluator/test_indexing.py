"""Interpreter kernels of gather and scatter, against loop references and the real XLA.

The references below follow the definitions of operation_semantics.md one
index at a time; the kernels compute everything with numpy advanced indexing.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.evaluator.kernels import indexing, movement  # noqa: F401  (registers)

# -- references ----------------------------------------------------------------------------


def ref_gather(operand, indices, offset_dims, collapsed, index_map, ivd, slice_sizes,
               operand_batching=(), indices_batching=()):  # fmt: skip
    if ivd == indices.ndim:
        indices = indices[..., None]
    batch_dims = [d for d in range(indices.ndim) if d != ivd]
    kept = [d for d in range(operand.ndim) if d not in collapsed and d not in operand_batching]
    rank = len(offset_dims) + len(batch_dims)
    batch_sizes = iter(indices.shape[d] for d in batch_dims)
    kept_sizes = iter(slice_sizes[d] for d in kept)
    shape = [next(kept_sizes) if p in offset_dims else next(batch_sizes) for p in range(rank)]
    result = np.zeros(shape, operand.dtype)
    for out in np.ndindex(*shape):
        batch = [out[p] for p in range(rank) if p not in offset_dims]
        offset = [out[p] for p in offset_dims]
        full = list(batch)
        full.insert(ivd, slice(None))
        vector = indices[tuple(full)]
        start = [0] * operand.ndim
        for k, d in enumerate(index_map):
            start[d] = int(vector[k])
        for o, i in zip(operand_batching, indices_batching, strict=True):
            start[o] = batch[batch_dims.index(i)]
        start = [
            min(max(s, 0), n - z) for s, n, z in zip(start, operand.shape, slice_sizes, strict=True)
        ]
        for k, d in enumerate(kept):
            start[d] += offset[k]
        result[out] = operand[tuple(start)]
    return result


def ref_scatter(operands, indices, updates, fn, window_dims, inserted, index_map, ivd,
                operand_batching=(), indices_batching=()):  # fmt: skip
    """Scatter index major, window index minor; a window that does not fit is skipped."""
    outs = [o.copy() for o in operands]
    if ivd == indices.ndim:
        indices = indices[..., None]
    batch_dims = [d for d in range(indices.ndim) if d != ivd]
    scatter_dims = [d for d in range(updates[0].ndim) if d not in window_dims]
    mapped = [d for d in range(outs[0].ndim) if d not in inserted and d not in operand_batching]
    window_shape = [updates[0].shape[d] for d in window_dims]
    for b in np.ndindex(*(updates[0].shape[d] for d in scatter_dims)):
        full = list(b)
        full.insert(ivd, slice(None))
        vector = indices[tuple(full)]
        start = [0] * outs[0].ndim
        for k, d in enumerate(index_map):
            start[d] = int(vector[k])
        for o, i in zip(operand_batching, indices_batching, strict=True):
            start[o] = b[batch_dims.index(i)]
        size = [1] * outs[0].ndim
        for k, d in enumerate(mapped):
            size[d] = window_shape[k]
        if any(s < 0 or s + z > n for s, z, n in zip(start, size, outs[0].shape, strict=True)):
            continue
        for w in np.ndindex(*window_shape):
            u = [0] * updates[0].ndim
            for k, d in enumerate(scatter_dims):
                u[d] = b[k]
            for k, d in enumerate(window_dims):
                u[d] = w[k]
            at = list(start)
            for k, d in enumerate(mapped):
                at[d] += w[k]
            at = tuple(at)
            new = fn(*[o[at] for o in outs], *[x[tuple(u)] for x in updates])
            for o, v in zip(outs, new if isinstance(new, tuple) else (new,), strict=True):
                o[at] = v
    return outs if len(outs) > 1 else outs[0]


def ints(values):
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def dims(shape):
    return ",".join(str(int(d)) for d in shape)


def gather_text(operand_shape, indices_shape, result_shape, offset_dims, collapsed, index_map,
                ivd, slice_sizes, operand_batching=(), indices_batching=(), t="f32", it="s32"):  # fmt: skip
    batching = ""
    if operand_batching:
        batching = (f", operand_batching_dims={ints(operand_batching)}, "
                    f"start_indices_batching_dims={ints(indices_batching)}")  # fmt: skip
    return f"""HloModule m
ENTRY e {{
  p = {t}[{dims(operand_shape)}] parameter(0)
  i = {it}[{dims(indices_shape)}] parameter(1)
  ROOT g = {t}[{dims(result_shape)}] gather(p, i), offset_dims={ints(offset_dims)}, collapsed_slice_dims={ints(collapsed)}, start_index_map={ints(index_map)}{batching}, index_vector_dim={ivd}, slice_sizes={ints(slice_sizes)}
}}
"""


COMPUTATIONS = {
    "add": ("add", lambda a, b: a + b),
    "assign": ("assign", lambda a, b: b),
    "affine": ("affine", lambda a, b: 2 * a + b),  # not commutative: order shows
}


def computation_text(name, t="f32"):
    body = {
        "add": f"b = {t}[] parameter(1)\n  ROOT c = {t}[] add(a, b)",
        "assign": f"ROOT b = {t}[] parameter(1)",
        "affine": f"b = {t}[] parameter(1)\n  two = {t}[] constant(2)\n"
        f"  m = {t}[] multiply(a, two)\n  ROOT c = {t}[] add(m, b)",
    }[name]
    return f"""{name} {{
  a = {t}[] parameter(0)
  {body}
}}
"""


def scatter_text(operand_shape, indices_shape, updates_shape, window_dims, inserted, index_map,
                 ivd, computation, operand_batching=(), indices_batching=(), t="f32", it="s32"):  # fmt: skip
    batching = ""
    if operand_batching:
        batching = (f", input_batching_dims={ints(operand_batching)}, "
                    f"scatter_indices_batching_dims={ints(indices_batching)}")  # fmt: skip
    return f"""HloModule m
{computation_text(computation, t)}
ENTRY e {{
  p = {t}[{dims(operand_shape)}] parameter(0)
  i = {it}[{dims(indices_shape)}] parameter(1)
  u = {t}[{dims(updates_shape)}] parameter(2)
  ROOT s = {t}[{dims(operand_shape)}] scatter(p, i, u), update_window_dims={ints(window_dims)}, inserted_window_dims={ints(inserted)}, scatter_dims_to_operand_dims={ints(index_map)}{batching}, index_vector_dim={ivd}, to_apply={computation}
}}
"""


# -- gather ----------------------------------------------------------------------------------


def test_gather_stablehlo_example():
    operand = np.arange(1, 25, dtype=np.int32).reshape(3, 4, 2)
    indices = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], np.int32)
    text = gather_text((3, 4, 2), (2, 3, 2), (2, 3, 2, 2), [2, 3], [0], [1, 0], 2, [1, 2, 2],
                       t="s32")  # fmt: skip
    want = [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
            [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]  # fmt: skip
    np.testing.assert_array_equal(run(text, operand, indices), want)


def test_gather_with_batching_dims():
    operand = np.arange(1, 49, dtype=np.float32).reshape(2, 3, 4, 2)
    indices = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                        [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]], np.int32)  # fmt: skip
    args = ((2, 3, 4, 2), (2, 2, 3, 2), (2, 2, 3, 2, 2), [3, 4], [1], [2, 1], 3, [1, 1, 2, 2],
            [0], [1])  # fmt: skip
    want = ref_gather(operand, indices, *args[3:])
    np.testing.assert_array_equal(run(gather_text(*args), operand, indices), want)


def test_gather_rows_with_scalar_indices_clamped():
    """jnp.take-style: index_vector_dim == rank means each index is a 1-vector."""
    operand = np.arange(15, dtype=np.float32).reshape(5, 3)
    indices = np.array([[4, -3], [7, 1]], np.int32)
    text = gather_text((5, 3), (2, 2), (2, 2, 3), [2], [0], [0], 2, [1, 3])
    np.testing.assert_array_equal(run(text, operand, indices), operand[np.clip(indices, 0, 4)])


@pytest.mark.parametrize("it", ["u8", "u64", "s8", "s64", "u32"])
def test_gather_index_types(it):
    dtype = {"u8": np.uint8, "u64": np.uint64, "s8": np.int8, "s64": np.int64, "u32": np.uint32}[it]
    operand = np.arange(10, dtype=np.float32)
    top = np.iinfo(dtype).max
    indices = np.array([[0], [3], [top], [9]], dtype)
    text = gather_text((10,), (4, 1), (4, 2), [1], [], [0], 1, [2], it=it)
    want = [[0, 1], [3, 4], [8, 9], [8, 9]]
    np.testing.assert_array_equal(run(text, operand, indices), want)


@pytest.mark.parametrize("t", ["pred", "s4", "u16", "bf16", "f8e5m2", "c64", "f64"])
def test_gather_element_types(t):
    dtype = {"pred": np.bool_, "s4": ml_dtypes.int4, "u16": np.uint16, "bf16": ml_dtypes.bfloat16,
             "f8e5m2": ml_dtypes.float8_e5m2, "c64": np.complex64, "f64": np.float64}[t]  # fmt: skip
    operand = (np.arange(12) % 7).reshape(4, 3).astype(dtype)
    indices = np.array([[1, 0], [3, 2]], np.int32)
    text = gather_text((4, 3), (2, 2), (2, 2, 2), [1, 2], [], [0, 1], 1, [2, 2], t=t)
    got = run(text, operand, indices)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, ref_gather(operand, indices, [1, 2], [], [0, 1], 1, [2, 2]))


def test_gather_zero_size():
    operand = np.arange(6, dtype=np.float32).reshape(2, 3)
    text = gather_text((2, 3), (0, 1), (0, 3), [1], [0], [0], 1, [1, 3])
    assert run(text, operand, np.zeros((0, 1), np.int32)).shape == (0, 3)
    text = gather_text((2, 3), (4, 1), (4, 0), [1], [0], [0], 1, [1, 0])
    assert run(text, operand, np.zeros((4, 1), np.int32)).shape == (4, 0)


# -- scatter ---------------------------------------------------------------------------------


def test_scatter_add_with_duplicates_like_np_add_at():
    operand = np.zeros(6, np.float32)
    indices = np.array([[1], [3], [1], [5], [1]], np.int32)
    updates = np.array([1, 2, 3, 4, 5], np.float32)
    text = scatter_text((6,), (5, 1), (5,), [], [0], [0], 1, "add")
    want = operand.copy()
    np.add.at(want, indices[:, 0], updates)
    np.testing.assert_array_equal(run(text, operand, indices, updates), want)


@pytest.mark.parametrize("computation", sorted(COMPUTATIONS))
def test_scatter_windows_collide_in_scatter_major_order(computation):
    """Window dims first in the updates: XLA still applies scatter index major."""
    operand = np.zeros(4, np.float32)
    indices = np.array([0, 1, 0], np.int32)
    updates = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    text = scatter_text((4,), (3,), (2, 3), [0], [], [0], 1, computation)
    want = ref_scatter([operand], indices, [updates], COMPUTATIONS[computation][1], [0], [], [0], 1)
    np.testing.assert_array_equal(run(text, operand, indices, updates), want)
    if computation == "affine":
        np.testing.assert_array_equal(want, [5, 26, 5, 0])  # what XLA:CPU computes


def test_scatter_skips_windows_that_do_not_fit():
    operand = np.zeros((3, 4), np.float32)
    indices = np.array([[0, 3], [1, 2], [2, -1]], np.int32)
    updates = np.arange(1, 7, dtype=np.float32).reshape(3, 2)
    text = scatter_text((3, 4), (3, 2), (3, 2), [1], [0], [0, 1], 1, "add")
    want = np.zeros((3, 4), np.float32)
    want[1, 2:4] = [3, 4]  # only the second window lies inside the operand
    np.testing.assert_array_equal(run(text, operand, indices, updates), want)


def test_scatter_with_batching_dims_and_scalar_indices():
    operand = np.zeros((2, 5), np.float32)
    indices = np.array([[4, 0, 4], [1, 9, 1]], np.int32)  # batch b of the operand: row b
    updates = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    args = ((2, 5), (2, 3), (2, 3), [], [1], [1], 2, "add", [0], [0])
    want = ref_scatter([operand], indices, [updates], COMPUTATIONS["add"][1], *args[3:7], *args[8:])
    np.testing.assert_array_equal(want, [[2, 0, 0, 0, 4], [0, 10, 0, 0, 0]])
    np.testing.assert_array_equal(run(scatter_text(*args), operand, indices, updates), want)


ARGMAX = """
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
"""


def test_variadic_scatter_keeps_the_max_and_its_tag():
    values = np.full(4, -np.inf, np.float32)
    tags = np.full(4, -1, np.int32)
    indices = np.array([2, 0, 2, 2, 3], np.int32)
    new_values = np.array([5, 1, 7, 7, -2], np.float32)
    new_tags = np.arange(10, 15, dtype=np.int32)
    text = f"""HloModule m
{ARGMAX}
ENTRY e {{
  v = f32[4] parameter(0)
  t = s32[4] parameter(1)
  i = s32[5] parameter(2)
  nv = f32[5] parameter(3)
  nt = s32[5] parameter(4)
  ROOT s = (f32[4], s32[4]) scatter(v, t, i, nv, nt), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=argmax
}}
"""

    def argmax(v0, i0, v1, i1):
        return (v1, i1) if v1 > v0 else (v0, i0)

    want = ref_scatter([values, tags], indices, [new_values, new_tags], argmax, [], [0], [0], 1)
    got = run(text, values, tags, indices, new_values, new_tags)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[1], [11, -1, 12, 14])  # the first of the tied 7s


@pytest.mark.parametrize("t", ["s32", "u8", "bf16", "f16", "pred", "c64", "s4"])
def test_scatter_add_element_types(t):
    dtype = {"s32": np.int32, "u8": np.uint8, "bf16": ml_dtypes.bfloat16, "f16": np.float16,
             "pred": np.bool_, "c64": np.complex64, "s4": ml_dtypes.int4}[t]  # fmt: skip
    operand = (np.arange(5) % 2).astype(dtype)
    indices = np.array([[0], [4], [0], [2]], np.int32)
    updates = np.array([1, 1, 1, 0]).astype(dtype)
    text = scatter_text((5,), (4, 1), (4,), [], [0], [0], 1, "add", t=t)
    got = run(text, operand, indices, updates)
    want = operand.copy()
    for i, u in zip(indices[:, 0], updates, strict=True):
        want[i] = (want[i] | u) if t == "pred" else want[i] + u
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)


def test_scatter_zero_size_updates_and_many_collisions():
    operand = np.zeros(3, np.float32)
    text = scatter_text((3,), (0, 1), (0,), [], [0], [0], 1, "affine")
    empty = run(text, operand, np.zeros((0, 1), np.int32), np.zeros(0, np.float32))
    np.testing.assert_array_equal(empty, operand)
    # 300 updates of one element: one batched round per collision, in order.
    n = 300
    text = scatter_text((3,), (n, 1), (n,), [], [0], [0], 1, "affine", t="s32")
    indices = np.ones((n, 1), np.int32)
    updates = (np.arange(n) % 3).astype(np.int32)
    with np.errstate(over="ignore"):  # s32 wraps, in XLA as in numpy
        want = ref_scatter([np.zeros(3, np.int32)], indices, [updates],
                           lambda a, b: np.int32(2) * a + b, [], [0], [0], 1)  # fmt: skip
    np.testing.assert_array_equal(run(text, np.zeros(3, np.int32), indices, updates), want)


# -- random configurations against the references and the real XLA ----------------------------


def sizes_upto(n):
    """A size in [1, n], or (one time in ten) 0: empty results are worth a few examples."""
    return st.integers(0, 9).map(lambda v: 0 if v == 0 else 1 + (v - 1) % n)


@st.composite
def index_batch(draw, operand_dims, operand_batching, k):
    """Index batch dims (free ones and the batching partners), the index vector's position."""
    free = draw(st.lists(sizes_upto(3), max_size=2))
    entries = [("free", s) for s in free] + [("bat", j) for j in range(len(operand_batching))]
    entries = draw(st.permutations(entries))
    implicit = k == 1 and draw(st.booleans())
    ivd = len(entries) if implicit else draw(st.integers(0, len(entries)))
    shape = [s if kind == "free" else operand_dims[operand_batching[s]] for kind, s in entries]
    if not implicit:
        shape.insert(ivd, k)
    partner = {}
    for pos, (kind, s) in enumerate(entries):
        if kind == "bat":
            partner[s] = pos if (implicit or pos < ivd) else pos + 1
    indices_batching = [partner[j] for j in range(len(operand_batching))]
    batch = [s if kind == "free" else operand_dims[operand_batching[s]] for kind, s in entries]
    return shape, ivd, indices_batching, batch


@st.composite
def operand_dims_and_map(draw):
    rank = draw(st.integers(1, 3))
    operand_dims = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    count = draw(st.integers(0, 1)) if rank > 1 else 0
    operand_batching = sorted(draw(st.permutations(range(rank)))[:count])
    free = [d for d in range(rank) if d not in operand_batching]
    k = draw(st.integers(1, len(free)))
    index_map = list(draw(st.permutations(free))[:k])
    dropped = sorted(d for d in free if draw(st.booleans()))
    return operand_dims, operand_batching, index_map, dropped


def random_indices(seed, shape, bound):
    return np.random.default_rng(seed).integers(-2, bound + 2, shape).astype(np.int32)


@st.composite
def gather_configs(draw):
    operand_dims, operand_batching, index_map, collapsed = draw(operand_dims_and_map())
    rank = len(operand_dims)
    slice_sizes = [
        1 if d in collapsed or d in operand_batching else draw(sizes_upto(operand_dims[d]))
        for d in range(rank)
    ]
    shape, ivd, indices_batching, batch = draw(
        index_batch(operand_dims, operand_batching, len(index_map))
    )
    kept = [d for d in range(rank) if d not in collapsed and d not in operand_batching]
    result_rank = len(kept) + len(batch)
    offset_dims = sorted(draw(st.permutations(range(result_rank)))[: len(kept)])
    sizes, kept_iter, batch_iter = [], iter(kept), iter(batch)
    for p in range(result_rank):
        sizes.append(slice_sizes[next(kept_iter)] if p in offset_dims else next(batch_iter))
    seed = draw(st.integers(0, 2**32 - 1))
    return (tuple(operand_dims), tuple(shape), tuple(sizes), offset_dims, collapsed, index_map,
            ivd, slice_sizes, operand_batching, indices_batching, seed)  # fmt: skip


@st.composite
def scatter_configs(draw):
    operand_dims, operand_batching, index_map, inserted = draw(operand_dims_and_map())
    rank = len(operand_dims)
    mapped = [d for d in range(rank) if d not in inserted and d not in operand_batching]
    window = [draw(sizes_upto(operand_dims[d])) for d in mapped]
    shape, ivd, indices_batching, batch = draw(
        index_batch(operand_dims, operand_batching, len(index_map))
    )
    updates_rank = len(window) + len(batch)
    window_dims = sorted(draw(st.permutations(range(updates_rank)))[: len(window)])
    sizes, window_iter, batch_iter = [], iter(window), iter(batch)
    for p in range(updates_rank):
        sizes.append(next(window_iter) if p in window_dims else next(batch_iter))
    computation = draw(st.sampled_from(sorted(COMPUTATIONS)))
    seed = draw(st.integers(0, 2**32 - 1))
    return (tuple(operand_dims), tuple(shape), tuple(sizes), window_dims, inserted, index_map,
            ivd, computation, operand_batching, indices_batching, seed)  # fmt: skip


HYPOTHESIS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HYPOTHESIS
@given(gather_configs())
def test_gather_random_configurations(config):
    *args, seed = config
    operand = np.random.default_rng(seed).integers(-9, 9, args[0]).astype(np.float32)
    indices = random_indices(seed, args[1], max(args[0]))
    want = ref_gather(operand, indices, *args[3:])
    text = gather_text(*args)
    np.testing.assert_array_equal(run(text, operand, indices), want)
    if pytest.importorskip("jax", reason="the XLA oracle needs jax"):
        from xlapy.testing.xla_oracle import run_hlo_text

        np.testing.assert_array_equal(run_hlo_text(text, [operand, indices])[0], want)


@HYPOTHESIS
@given(scatter_configs())
def test_scatter_random_configurations(config):
    *args, seed = config
    rng = np.random.default_rng(seed)
    operand = rng.integers(-9, 9, args[0]).astype(np.float32)
    updates = rng.integers(-9, 9, args[2]).astype(np.float32)
    indices = random_indices(seed, args[1], max(args[0]))
    fn = COMPUTATIONS[args[7]][1]
    want = ref_scatter([operand], indices, [updates], fn, *args[3:7], *args[8:])
    text = scatter_text(*args)
    np.testing.assert_array_equal(run(text, operand, indices, updates), want)
    if pytest.importorskip("jax", reason="the XLA oracle needs jax"):
        from xlapy.testing.xla_oracle import run_hlo_text

        np.testing.assert_array_equal(run_hlo_text(text, [operand, indices, updates])[0], want)


def test_scatter_into_a_broadcast_keeps_every_update():
    """A broadcast's value used to be a copy in the broadcast's memory order, not C order;
    scatter then updated a flattened *copy* of it and lost every update (batched
    jnp.linalg.solve computed the identity permutation on the interpreter)."""
    text = """HloModule m
overwrite {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY e {
  iota = s32[4] iota(), iota_dimension=0
  table = s32[2,3,4] broadcast(iota), dimensions={2}
  index = s32[1] constant({0})
  updates = s32[2,3] constant({{9, 9, 9}, {8, 8, 8}})
  ROOT scatter = s32[2,3,4] scatter(table, index, updates), update_window_dims={0,1},
    inserted_window_dims={2}, scatter_dims_to_operand_dims={2}, index_vector_dim=0,
    to_apply=overwrite
}
"""
    want = np.broadcast_to(np.arange(4, dtype=np.int32), (2, 3, 4)).copy()
    want[0, :, 0], want[1, :, 0] = 9, 8
    np.testing.assert_array_equal(run(text), want)
