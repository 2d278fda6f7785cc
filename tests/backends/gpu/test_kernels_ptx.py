"""The GPU kernel emitter without a GPU: HLO instructions -> NVPTX kernels -> PTX that
ptxas accepts for sm_80 and sm_90, with the launch shapes each strategy promises.

Correctness on a device is checked on a machine with a GPU; here every kernel must
verify as LLVM, link libdevice where it calls math functions, and assemble.
"""

from __future__ import annotations

import re

import pytest

from xlapy.backends.cpu.llvm_types import NotEmittable
from xlapy.backends.gpu import kernels
from xlapy.backends.gpu.kernels import (
    KernelPlan,
    PtxModule,
    assemble,
    can_emit_fused,
    choose_strategy,
    emit_kernel,
    libdevice_name,
    toolchain,
)
from xlapy.backends.gpu.kernels.reduction_parts import reduction_space
from xlapy.errors import FailedPreconditionError, InternalError
from xlapy.hlo import parse_module

ARCHS = ("sm_80", "sm_90")
SHAPE = "[8,33]"  # 264 elements: two blocks of 256, the second one partly idle
COUNT = 8 * 33

FLOAT_UNARY = (
    "abs negate sign floor ceil round-nearest-even round-nearest-afz sqrt rsqrt cbrt "
    "exponential exponential-minus-one log log-plus-one tanh logistic sine cosine tan erf "
    "acos acosh asin asinh atan atanh cosh sinh copy"
).split()
FLOAT_BINARY = "add subtract multiply divide remainder maximum minimum power atan2".split()
INT_UNARY = "abs negate sign not popcnt count-leading-zeros copy".split()
INT_BINARY = (
    "add subtract multiply divide remainder maximum minimum power and or xor shift-left "
    "shift-right-arithmetic shift-right-logical"
).split()
PRED_UNARY = ["not", "copy"]
PRED_BINARY = "and or xor maximum minimum".split()
COMPLEX_UNARY = (
    "negate sign sqrt rsqrt exponential exponential-minus-one log log-plus-one tanh logistic "
    "sine cosine tan copy"
).split()
COMPLEX_BINARY = "add subtract multiply divide power".split()

# Per element type: unary ops, binary ops, compare directions, a type to convert to.
ELEMENTWISE = {
    "f32": (FLOAT_UNARY, FLOAT_BINARY, ("LT", "EQ", "NE", "GE"), "s32"),
    "f64": (FLOAT_UNARY, FLOAT_BINARY, ("LT", "EQ", "NE", "GE"), "f32"),
    "f16": (FLOAT_UNARY, FLOAT_BINARY, ("LT", "EQ"), "f32"),
    "bf16": (FLOAT_UNARY, FLOAT_BINARY, ("LT", "EQ"), "f16"),
    "s32": (INT_UNARY, INT_BINARY, ("LT", "EQ", "NE", "GE"), "f64"),
    "pred": (PRED_UNARY, PRED_BINARY, ("EQ", "NE"), "s32"),
    "c64": (COMPLEX_UNARY, COMPLEX_BINARY, ("EQ", "NE"), "c128"),
}
REAL_OF = {"c64": "f32"}


def elementwise_module(et: str, sample: bool = False) -> str:
    """Every op of ``et``'s table in one module (``sample``: a few of each kind)."""
    unary, binary, directions, target = ELEMENTWISE[et]
    if sample:
        unary, binary, directions = unary[::6], binary[::4], directions[:1]
    s = f"{et}{SHAPE}"
    lines = [
        f"  p0 = {s} parameter(0)",
        f"  p1 = {s} parameter(1)",
        f"  c = pred{SHAPE} parameter(2)",
    ]
    for k, op in enumerate(unary):
        lines.append(f"  u{k} = {s} {op}(p0)")
    for k, op in enumerate(binary):
        lines.append(f"  b{k} = {s} {op}(p0, p1)")
    for k, direction in enumerate(directions):
        lines.append(f"  cmp{k} = pred{SHAPE} compare(p0, p1), direction={direction}")
    lines.append(f"  sel = {s} select(c, p0, p1)")
    lines.append(f"  cvt = {target}{SHAPE} convert(p0)")
    if et in ("f32", "f64", "f16", "bf16", "s32"):
        lines.append(f"  clp = {s} clamp(p1, p0, p1)")
    if et in ("f32", "f64", "f16", "bf16"):
        lines.append(f"  fin = pred{SHAPE} is-finite(p0)")
    if et in REAL_OF:
        part = f"{REAL_OF[et]}{SHAPE}"
        lines += [
            f"  re = {part} real(p0)",
            f"  im = {part} imag(p0)",
            f"  mag = {part} abs(p0)",
            f"  cplx = {s} complex(re, im)",
        ]
    lines.append(f"  ROOT r = {s} add(p0, p1)" if et != "pred" else f"  ROOT r = {s} and(p0, p1)")
    return "HloModule elementwise_" + et + "\n\nENTRY e {\n" + "\n".join(lines) + "\n}\n"


def instructions(text: str, names: list[str] | None = None) -> list:
    module = parse_module(text)
    found = [
        i
        for i in module.entry_computation.instructions
        if i.opcode.value != "parameter" and (names is None or i.name in names)
    ]
    if names is not None:
        assert sorted(i.name for i in found) == sorted(names)
    return found


def entries(ptx: str) -> set[str]:
    return set(re.findall(r"\.entry\s+(\w+)\(", ptx))


def build(items: list, arch: str) -> tuple[PtxModule, dict[str, KernelPlan], str]:
    """Emit every instruction into one module; check the PTX names every launched kernel
    and assembles for ``arch``."""
    module = PtxModule("test", arch)
    plans = {i.name: emit_kernel(module, i) for i in items}
    ptx = module.to_ptx()
    assert f".target {arch}" in ptx and ".version 7.8" in ptx
    launched = {launch.kernel for plan in plans.values() for launch in plan.launches}
    assert launched == entries(ptx)
    assert ".extern" not in ptx and "__nvvm_reflect" not in ptx
    assert assemble(ptx, arch)[:4] == b"\x7fELF"
    return module, plans, ptx


def sane(plan: KernelPlan) -> None:
    for launch in plan.launches:
        assert all(1 <= g <= 1 << 16 for g in launch.grid)
        assert launch.block[2] == 1 and launch.block[0] % 32 == 0
        assert 32 <= launch.block[0] * launch.block[1] <= 1024


# -- elementwise ------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("et", sorted(ELEMENTWISE))
def test_every_elementwise_family_assembles(et: str, arch: str) -> None:
    # The whole table for sm_90 (H100/H200); a sample of it for sm_80, whose PTX differs
    # only in the instructions chosen (f16/bf16 arithmetic, min/max), to keep this fast.
    items = instructions(elementwise_module(et, sample=arch == "sm_80"))
    _, plans, _ = build(items, arch)
    assert len(plans) == len(items) > 6
    for plan in plans.values():
        sane(plan)
        assert plan.scratch_bytes == 0
        (launch,) = plan.launches
        assert launch.block == (256, 1, 1) and launch.grid == (2, 1, 1)


@pytest.mark.parametrize("et", ["f32", "f64"])
def test_libm_functions_come_from_libdevice(et: str) -> None:
    text = f"""HloModule m
ENTRY e {{
  p = {et}[1000] parameter(0)
  t = {et}[1000] tanh(p)
  a = {et}[1000] acos(p)
  ROOT s = {et}[1000] atan2(t, a)
}}"""
    module, plans, ptx = build(instructions(text), "sm_90")
    # acos is libm's in the CPU code (in double, for f32 too): renamed to libdevice's and
    # linked (``build`` checks nothing stays external); tanh and atan2 are pure IR.
    assert module.libdevice_functions == ("__nv_acos",)
    assert plans["t"].launches[0].grid == (4, 1, 1)
    assert "__nv_acos" not in ptx or ".func" in ptx  # inlined, or an internal function


def test_libdevice_names() -> None:
    assert libdevice_name("tanhf") == "__nv_tanhf"
    assert libdevice_name("acos") == "__nv_acos"
    assert libdevice_name("llvm.exp.f64") == "__nv_exp"
    assert libdevice_name("llvm.pow.f32") == "__nv_powf"
    assert libdevice_name("llvm.fabs.f32") is None  # the NVPTX target lowers it itself
    assert libdevice_name("llvm.nvvm.read.ptx.sreg.tid.x") is None


def test_grid_is_capped_and_loops_stride() -> None:
    text = """HloModule m
ENTRY e {
  p = f32[40000000] parameter(0)
  ROOT n = f32[40000000] negate(p)
}"""
    _, plans, ptx = build(instructions(text), "sm_80")
    assert plans["n"].launches[0].grid == (1 << 16, 1, 1)
    assert "%nctaid.x" in ptx  # a grid-stride loop


# -- loop fusions and movement ops ------------------------------------------------------

MOVEMENT = """HloModule movement

fused_movement {
  a = f32[4,6] parameter(0)
  v = f32[6] parameter(1)
  t = f32[6,4] transpose(a), dimensions={1,0}
  bv = f32[6,4] broadcast(v), dimensions={0}
  s = f32[6,4] add(t, bv)
  sl = f32[3,4] slice(s), slice={[1:6:2], [0:4]}
  z = f32[] constant(0)
  pd = f32[5,6] pad(sl, z), padding=1_1x1_1
  rv = f32[5,6] reverse(pd), dimensions={0,1}
  io = s32[5,6] iota(), iota_dimension=1
  cv = f32[5,6] convert(io)
  cc = f32[10,6] concatenate(rv, cv), dimensions={0}
  k = f32[10,6] constant({...})
  ROOT m = f32[10,6] multiply(cc, k)
}

fused_two_outputs {
  x = f64[3,50] parameter(0)
  y = f64[3,50] parameter(1)
  e = f64[3,50] exponential(x)
  ROOT t = (f64[3,50], f64[3,50]) tuple(e, y)
}

fused_dynamic {
  o = f32[16,16] parameter(0)
  i = s32[] parameter(1)
  ds = f32[4,16] dynamic-slice(o, i, i), dynamic_slice_sizes={4,16}
  r = f32[64] reshape(ds)
  ROOT l = f32[64] log(r)
}

ENTRY e {
  a = f32[4,6] parameter(0)
  v = f32[6] parameter(1)
  x = f64[3,50] parameter(2)
  o = f32[16,16] parameter(3)
  i = s32[] parameter(4)
  mv = f32[10,6] fusion(a, v), kind=kLoop, calls=fused_movement
  two = (f64[3,50], f64[3,50]) fusion(x, x), kind=kLoop, calls=fused_two_outputs
  dyn = f32[64] fusion(o, i), kind=kLoop, calls=fused_dynamic
  tr = f32[6,4] transpose(a), dimensions={1,0}
  bc = f32[4,6,3] broadcast(a), dimensions={0,1}
  rs = f32[24] reshape(a)
  ROOT out = (f32[10,6], (f64[3,50], f64[3,50]), f32[64]) tuple(mv, two, dyn)
}
"""


def movement_text() -> str:
    values = ", ".join("{" + ", ".join(str(r * 6 + c) for c in range(6)) + "}" for r in range(10))
    return MOVEMENT.replace("{...}", "{" + values + "}")


@pytest.mark.parametrize("arch", ARCHS)
def test_loop_fusions_and_movement_ops(arch: str) -> None:
    items = instructions(movement_text(), ["mv", "two", "dyn", "tr", "bc", "rs"])
    module, plans, ptx = build(items, arch)
    for plan in plans.values():
        sane(plan)
    assert plans["mv"].launches[0].grid == (1, 1, 1)  # 60 elements
    assert plans["two"].launches[0].grid == (1, 1, 1)
    # The fused constant lives in the module as global data.
    assert re.search(r"\.global \.align 16 \.b8 constant\w*\[240\]", ptx)
    # The two-output fusion takes 2 operands + 2 outputs.
    kernel = plans["two"].launches[0].kernel
    assert (
        len(re.findall(rf"{kernel}_param_\d+", ptx.split(f".entry {kernel}(")[1].split(")")[0]))
        == 4
    )


def test_can_emit_fused_follows_the_generators() -> None:
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,4] parameter(0)
  n = f32[4,4] negate(p)
  t = f32[4,4] transpose(n), dimensions={1,0}
  z = f32[] constant(0)
  r = f32[4] reduce(t, z), dimensions={1}, to_apply=add
  d = f32[4,4] dot(p, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = (f32[4], f32[4,4]) tuple(r, d)
}"""
    by_name = {i.name: i for i in instructions(text)}
    assert can_emit_fused(by_name["n"]) and can_emit_fused(by_name["t"])
    assert can_emit_fused(by_name["r"])
    assert not can_emit_fused(by_name["d"])


def test_unsupported_instructions_raise_not_emittable() -> None:
    text = """HloModule m
ENTRY e {
  p = f32[4,4] parameter(0)
  d = f32[4,4] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[0,4] slice(p), slice={[0:0], [0:4]}
  ROOT t = (f32[4,4], f32[0,4]) tuple(d, e)
}"""
    module = PtxModule("m")
    by_name = {i.name: i for i in instructions(text)}
    with pytest.raises(NotEmittable, match="dot d"):
        emit_kernel(module, by_name["d"])
    with pytest.raises(NotEmittable, match="zero-element"):
        emit_kernel(module, by_name["e"])
    assert module.kernels == []


TRANSPOSES = """HloModule transposes
ENTRY e {
  m = f32[64,100] parameter(0)
  c = c64[3,40,50] parameter(1)
  t = f32[100,64] transpose(m), dimensions={1,0}
  batched = c64[3,50,40] transpose(c), dimensions={0,2,1}
  outer = c64[50,40,3] transpose(c), dimensions={2,1,0}
  ROOT r = (f32[100,64], c64[3,50,40]) tuple(t, batched)
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_tiled_transposes(arch: str) -> None:
    _, plans, ptx = build(instructions(TRANSPOSES, ["t", "batched", "outer"]), arch)
    for plan in plans.values():
        sane(plan)
    # 32 x 32 tiles of the input (columns, rows, batch), blocks of 32 x 8 threads.
    assert plans["t"].launches[0].grid == (4, 2, 1)
    assert plans["batched"].launches[0].grid == (2, 2, 3)
    assert plans["t"].launches[0].block == (32, 8, 1)
    # Any other permutation is a loop kernel.
    assert plans["outer"].launches[0].block == (256, 1, 1)
    assert ".shared .align 16 .b8" in ptx and "bar.sync" in ptx


UPDATES = """HloModule updates
fused_update {
  o = f32[100,64] parameter(0)
  u = f32[10,64] parameter(1)
  i = s32[] parameter(2)
  e = f32[10,64] exponential(u)
  ROOT d = f32[100,64] dynamic-update-slice(o, e, i, i)
}
fused_reading_operand {
  o = f32[100,64] parameter(0)
  i = s32[] parameter(1)
  s = f32[10,64] slice(o), slice={[0:10], [0:64]}
  ROOT d = f32[100,64] dynamic-update-slice(o, s, i, i)
}
ENTRY e {
  o = f32[100,64] parameter(0)
  u = f32[10,64] parameter(1)
  i = s32[] parameter(2)
  single = f32[100,64] dynamic-update-slice(o, u, i, i)
  fused = f32[100,64] fusion(o, u, i), kind=kLoop, calls=fused_update
  racy = f32[100,64] fusion(o, i), kind=kLoop, calls=fused_reading_operand
  ROOT r = (f32[100,64], f32[100,64], f32[100,64]) tuple(single, fused, racy)
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_dynamic_update_slice_in_place(arch: str) -> None:
    items = instructions(UPDATES, ["single", "fused", "racy"])
    racy = next(i for i in items if i.name == "racy")
    assert not kernels.updates_in_place(racy)
    with pytest.raises(NotEmittable, match="in place"):
        emit_kernel(PtxModule("m", arch), racy)
    _, plans, _ = build([i for i in items if i is not racy], arch)
    for plan in plans.values():
        sane(plan)
        # One thread per update element (640), not per output element (6400).
        assert plan.launches[0].grid == (3, 1, 1)


SORTS = """HloModule sorts
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
by_key {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f64[] parameter(2)
  vb = f64[] parameter(3)
  ROOT gt = pred[] compare(ka, kb), direction=GT
}
ENTRY e {
  x = f32[16,100] parameter(0)
  k = s32[60,5] parameter(1)
  v = f64[60,5] parameter(2)
  long = f32[3000] parameter(3)
  rows = f32[16,100] sort(x), dimensions={1}, to_apply=less
  pairs = (s32[60,5], f64[60,5]) sort(k, v), dimensions={0}, is_stable=true, to_apply=by_key
  too_long = f32[3000] sort(long), dimensions={0}, to_apply=less
  ROOT r = (f32[16,100], (s32[60,5], f64[60,5])) tuple(rows, pairs)
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_bitonic_sorts(arch: str) -> None:
    items = instructions(SORTS, ["rows", "pairs", "too_long"])
    too_long = next(i for i in items if i.name == "too_long")
    with pytest.raises(NotEmittable, match="rows longer than 2048"):
        emit_kernel(PtxModule("m", arch), too_long)
    _, plans, ptx = build([i for i in items if i is not too_long], arch)
    # One block per row; half as many threads as the padded row has elements.
    assert plans["rows"].launches[0].grid == (16, 1, 1)
    assert plans["rows"].launches[0].block == (64, 1, 1)
    assert plans["pairs"].launches[0].grid == (5, 1, 1)
    assert plans["pairs"].launches[0].block == (32, 1, 1)
    assert "bar.sync" in ptx


# -- reductions -------------------------------------------------------------------------


def reduce_module(et: str, reducer: str, init: str) -> str:
    return f"""HloModule reductions
red {{
  a = {et}[] parameter(0)
  b = {et}[] parameter(1)
  ROOT r = {et}[] {reducer}(a, b)
}}
ENTRY e {{
  short = {et}[300,200] parameter(0)
  long = {et}[40,5000] parameter(1)
  wide = {et}[100000,3] parameter(2)
  big = {et}[2000000] parameter(3)
  cube = {et}[6,7,8] parameter(4)
  tall = {et}[100000,100] parameter(5)
  z = {et}[] constant({init})
  row = {et}[300] reduce(short, z), dimensions={{1}}, to_apply=red
  tiny_row = {et}[100000] reduce(wide, z), dimensions={{1}}, to_apply=red
  long_row = {et}[40] reduce(long, z), dimensions={{1}}, to_apply=red
  column = {et}[200] reduce(short, z), dimensions={{0}}, to_apply=red
  few_columns = {et}[3] reduce(wide, z), dimensions={{0}}, to_apply=red
  full = {et}[] reduce(big, z), dimensions={{0}}, to_apply=red
  middle = {et}[6,8] reduce(cube, z), dimensions={{1}}, to_apply=red
  small_full = {et}[] reduce(cube, z), dimensions={{0,1,2}}, to_apply=red
  tall_columns = {et}[100] reduce(tall, z), dimensions={{0}}, to_apply=red
  ROOT t = ({et}[300], {et}[200]) tuple(row, column)
}}
"""


EXPECTED_STRATEGY = {
    "row": "warp_rows",
    "tiny_row": "thread_per_output",
    "long_row": "block_rows",
    "column": "thread_per_output",
    "few_columns": "two_pass",
    "full": "two_pass",
    "middle": "thread_per_output",
    "small_full": "warp_rows",
    "tall_columns": "two_pass",  # 100 threads, one per column, would leave the GPU idle
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("et, reducer, init", [("f32", "add", "1"), ("f64", "maximum", "-inf")])
def test_row_column_and_full_reductions(et: str, reducer: str, init: str, arch: str) -> None:
    names = list(EXPECTED_STRATEGY)
    items = instructions(reduce_module(et, reducer, init), names)
    for item in items:
        assert choose_strategy(reduction_space(item, None)) == EXPECTED_STRATEGY[item.name]
    _, plans, ptx = build(items, arch)
    for name, plan in plans.items():
        sane(plan)
        assert (plan.scratch_bytes > 0) == (EXPECTED_STRATEGY[name] == "two_pass")
    assert plans["row"].launches[0].grid == (38, 1, 1)  # 8 rows (warps) per block
    assert plans["long_row"].launches[0].block == (512, 1, 1)
    assert plans["long_row"].launches[0].grid == (40, 1, 1)
    first, second = plans["full"].launches
    assert first.kernel.endswith("_partials") and second.kernel.endswith("_finish")
    assert second.grid == (1, 1, 1) and first.grid[1] == 1 and first.grid[0] > 100
    chunks = first.grid[0]
    width = 4 if et == "f32" else 8
    assert plans["full"].scratch_bytes == -(-chunks * width // 16) * 16
    cols_first, cols_second = plans["few_columns"].launches
    assert cols_first.grid[1] == 3 and cols_second.grid == (3, 1, 1)
    # Every launch of a two-pass plan takes the scratch buffer as its last parameter.
    assert f"{first.kernel}_param_2" in ptx and f"{second.kernel}_param_2" in ptx
    assert "shfl.sync.down.b32" in ptx and "bar.sync" in ptx


VARIADIC = """HloModule argmax
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[64,700] parameter(0)
  y = f32[100000] parameter(1)
  io = s32[64,700] iota(), iota_dimension=1
  iy = s32[100000] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  rows = (f32[64], s32[64]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=argmax
  all = (f32[], s32[]) reduce(y, iy, ninf, zero), dimensions={0}, to_apply=argmax
  ROOT t = ((f32[64], s32[64]), (f32[], s32[])) tuple(rows, all)
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_variadic_argmax_reduce(arch: str) -> None:
    _, plans, ptx = build(instructions(VARIADIC, ["rows", "all"]), arch)
    assert len(plans["rows"].launches) == 1
    first, _ = plans["all"].launches
    # Two accumulators (value, index): two scratch regions of 4-byte values.
    assert plans["all"].scratch_bytes == 2 * (-(-first.grid[0] * 4 // 16) * 16)
    # Operands x, io, ninf, zero then outputs value, index.
    kernel = plans["rows"].launches[0].kernel
    assert f"{kernel}_param_5" in ptx and f"{kernel}_param_6" not in ptx


REDUCE_FUSIONS = """HloModule reduce_fusions
add32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
addc {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT r = c64[] add(a, b)
}
addh {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT r = f16[] add(a, b)
}
orp {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT r = pred[] or(a, b)
}
bf16_mean {
  x = bf16[128,3000] parameter(0)
  f = f32[128,3000] convert(x)
  z = f32[] constant(0)
  s = f32[128] reduce(f, z), dimensions={1}, to_apply=add32
  n = f32[] constant(3000)
  bn = f32[128] broadcast(n), dimensions={}
  m = f32[128] divide(s, bn)
  ROOT o = bf16[128] convert(m)
}
with_side_output {
  x = f32[32,100] parameter(0)
  e = f32[32,100] exponential(x)
  z = f32[] constant(0)
  s = f32[32] reduce(e, z), dimensions={1}, to_apply=add32
  ROOT t = (f32[32], f32[32,100]) tuple(s, e)
}
ENTRY e {
  x = bf16[128,3000] parameter(0)
  y = f32[32,100] parameter(1)
  c = c64[50,2000] parameter(2)
  h = f16[70000] parameter(3)
  p = pred[16,64] parameter(4)
  zc = c64[] constant((0, 0))
  zh = f16[] constant(0)
  f = pred[] constant(false)
  mean = bf16[128] fusion(x), kind=kInput, calls=bf16_mean
  side = (f32[32], f32[32,100]) fusion(y), kind=kInput, calls=with_side_output
  csum = c64[50] reduce(c, zc), dimensions={1}, to_apply=addc
  hsum = f16[] reduce(h, zh), dimensions={0}, to_apply=addh
  any = pred[16] reduce(p, f), dimensions={1}, to_apply=orp
  ROOT t = (bf16[128], (f32[32], f32[32,100])) tuple(mean, side)
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_reduce_fusions_epilogues_side_outputs_and_narrow_types(arch: str) -> None:
    items = instructions(REDUCE_FUSIONS, ["mean", "side", "csum", "hsum", "any"])
    _, plans, ptx = build(items, arch)
    # bf16 data, f32 accumulation, the mean as an epilogue: one block per 3000-long row.
    assert plans["mean"].launches[0].block == (512, 1, 1)
    assert plans["mean"].launches[0].grid == (128, 1, 1)
    side = plans["side"].launches[0].kernel
    assert f"{side}_param_2" in ptx and f"{side}_param_3" not in ptx  # x, sum, exp(x)
    assert plans["csum"].launches[0].block == (512, 1, 1)  # complex values shuffled by parts
    assert plans["hsum"].scratch_bytes > 0
    assert plans["any"].launches[0].grid == (2, 1, 1)


# -- the module and the tools -----------------------------------------------------------


def test_unique_names_are_ptx_identifiers() -> None:
    module = PtxModule("m", "sm_80")
    first = module.unique_name("fusion.3-x")
    second = module.unique_name("fusion.3-x")
    assert first == "fusion_3_x" and second != first
    assert module.unique_name("7up").startswith("_")


def test_ptxas_errors_name_the_line() -> None:
    bad = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  bogus;\n}\n"
    with pytest.raises(InternalError, match=r"ptxas -arch=sm_80(.|\n)*bogus"):
        assemble(bad, "sm_80")


def test_missing_ptxas_is_a_failed_precondition(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "ptxas_path", lambda: None)
    with pytest.raises(FailedPreconditionError, match="nvidia-cuda-nvcc"):
        toolchain.assemble("", "sm_90")
    assert kernels.ptxas_path() is not None  # the real one, from the nvcc wheel
