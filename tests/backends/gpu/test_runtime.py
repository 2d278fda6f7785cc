"""The GPU runtime: what runs anywhere (device detection, the allocator's policy with fake
memory, the row-major -> column-major GEMM mapping against numpy, kernel-parameter
packing, CUDA error mapping), then, marked ``gpu``, the same on a real device."""

import ctypes
import gc
import threading
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest
from cuda.bindings import driver as cuda

from xlapy.backends.gpu.runtime import allocator as alloc_mod
from xlapy.backends.gpu.runtime.allocator import CachingAllocator, rounded_size
from xlapy.backends.gpu.runtime.cublas import Cublas
from xlapy.backends.gpu.runtime.driver import (
    cuda_available,
    get_device,
    no_device_reason,
    probe_driver,
)
from xlapy.backends.gpu.runtime.gemm_args import GEMM_TYPES, column_major_gemm, gemm_types
from xlapy.backends.gpu.runtime.module import DeviceBuffer, PointerParams
from xlapy.backends.gpu.runtime.status import error_for
from xlapy.errors import (
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnimplementedError,
)

MiB = 1 << 20


# -- device detection -------------------------------------------------------------------------------
def test_detection_says_why_there_is_no_device():
    if cuda_available():
        assert no_device_reason() == ""
        assert get_device(0) is get_device(0)
        return
    reason = no_device_reason()
    assert reason and "\n" not in reason
    with pytest.raises(FailedPreconditionError, match="no CUDA device: " + reason[:20]):
        get_device(0)


def fake_driver(init=None, count=1, init_raises=None):
    ok = cuda.CUresult.CUDA_SUCCESS

    def cu_init(flags):
        if init_raises:
            raise init_raises
        return ((init or ok),)

    return SimpleNamespace(
        CUresult=cuda.CUresult, cuInit=cu_init, cuDeviceGetCount=lambda: (ok, count)
    )


@pytest.mark.parametrize(
    "api, expected",
    [
        (None, "cuda-bindings is not installed"),
        (fake_driver(init_raises=OSError("libcuda.so.1: cannot open")), "could not be loaded"),
        (fake_driver(init=cuda.CUresult.CUDA_ERROR_NO_DEVICE), "cuInit failed: CUDA_ERROR_NO_DEVICE"),
        (fake_driver(count=0), "found no device"),
    ],
)
def test_probe_reasons(api, expected):
    count, reason = probe_driver(api)
    assert count == 0 and expected in reason


def test_probe_counts_devices():
    assert probe_driver(fake_driver(count=2)) == (2, "")


def test_cuda_errors_map_to_xla_errors():
    oom = error_for(cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(1024 bytes)")
    assert isinstance(oom, ResourceExhaustedError)
    assert str(oom).startswith("cuMemAlloc(1024 bytes): CUDA_ERROR_OUT_OF_MEMORY")
    bad = error_for(cuda.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuLaunchKernel(fusion.3)", "log")
    assert isinstance(bad, InternalError)
    assert "cuLaunchKernel(fusion.3): CUDA_ERROR_ILLEGAL_ADDRESS" in str(bad)
    assert str(bad).endswith("\nlog")


# -- the allocator, on fake memory ------------------------------------------------------------------
class FakeMemory:
    """alloc/free callables over a pretend device of ``capacity`` bytes."""

    def __init__(self, capacity=1 << 30):
        self.capacity = capacity
        self.live: dict[int, int] = {}
        self.next = 0x10000
        self.syncs = 0

    def alloc(self, nbytes):
        if sum(self.live.values()) + nbytes > self.capacity:
            raise ResourceExhaustedError(f"cuMemAlloc({nbytes} bytes): CUDA_ERROR_OUT_OF_MEMORY")
        pointer, self.next = self.next, self.next + nbytes + 4096
        self.live[pointer] = nbytes
        return pointer

    def free(self, pointer):
        del self.live[pointer]

    def sync(self):
        self.syncs += 1

    def allocator(self):
        return CachingAllocator(self.alloc, self.free, synchronize=self.sync)


@pytest.mark.parametrize(
    "nbytes, size",
    [
        (0, 512), (1, 512), (512, 512), (513, 1024), (MiB, MiB),
        (MiB + 1, MiB + MiB // 4), (3 * MiB, 3 * MiB), (3 * MiB + 1, 3 * MiB + MiB // 2),
        (1000 * MiB, 1024 * MiB),
    ],
)  # fmt: skip
def test_sizes_round_up(nbytes, size):
    assert rounded_size(nbytes) == size


def test_rounding_wastes_at_most_a_quarter():
    for nbytes in range(MiB + 1, 64 * MiB, 997 * 1013):
        assert nbytes <= rounded_size(nbytes) < nbytes * 1.25 + 1


def test_released_blocks_are_reused_by_rounded_size():
    memory = FakeMemory()
    allocator = memory.allocator()
    first = allocator.allocate(1000)
    allocator.release(first)
    again = allocator.allocate(700)  # same 1024-byte bin
    assert again.pointer == first.pointer
    other = allocator.allocate(2000)  # a different bin: a new device allocation
    assert other.pointer != first.pointer
    stats = allocator.stats()
    assert stats["allocations"] == 3 and stats["cache_hits"] == 1
    assert stats["device_allocations"] == 2
    assert stats["bytes_in_use"] == 1024 + 2048 == stats["bytes_reserved"]


def test_stats_and_empty_cache():
    memory = FakeMemory()
    allocator = memory.allocator()
    blocks = [allocator.allocate(n) for n in (10, 600, 5 * MiB)]
    allocator.release(blocks[1])
    allocator.release(blocks[1])  # a second release is a no-op
    stats = allocator.stats()
    assert stats["bytes_in_use"] == 512 + 5 * MiB
    assert stats["bytes_cached"] == 1024
    assert stats["bytes_reserved"] == 512 + 1024 + 5 * MiB
    assert stats["peak_bytes_in_use"] == 512 + 1024 + 5 * MiB
    assert allocator.empty_cache() == 1024
    assert memory.syncs == 1 and len(memory.live) == 2
    assert allocator.stats()["bytes_reserved"] == 512 + 5 * MiB
    assert allocator.empty_cache() == 0 and memory.syncs == 1  # nothing cached: no wait


def test_out_of_memory_empties_the_cache_and_retries_once():
    memory = FakeMemory(capacity=4 * MiB)
    allocator = memory.allocator()
    cached = [allocator.allocate(MiB) for _ in range(3)]
    for block in cached:
        allocator.release(block)
    big = allocator.allocate(2 * MiB)  # fits only once the three cached blocks are freed
    stats = allocator.stats()
    assert stats["oom_retries"] == 1 and stats["device_frees"] == 3 and memory.syncs == 1
    assert memory.live == {big.pointer: 2 * MiB}
    with pytest.raises(ResourceExhaustedError) as info:
        allocator.allocate(3 * MiB)
    message = str(info.value)
    assert "3145728 bytes" in message and "2097152 bytes) in use" in message
    assert "CUDA_ERROR_OUT_OF_MEMORY" in message
    assert allocator.stats()["oom_retries"] == 2


def test_release_during_allocation_does_not_deadlock():
    """A finalizer may release a buffer while its thread is inside the allocator."""
    memory = FakeMemory()
    allocator = memory.allocator()
    early = allocator.allocate(100)

    def alloc_with_gc(nbytes):
        allocator.release(early)  # as a DeviceBuffer's finalizer would, mid-allocation
        return memory.alloc(nbytes)

    allocator._alloc = alloc_with_gc
    allocator.allocate(5000)
    stats = allocator.stats()
    assert stats["bytes_cached"] == 512 and stats["bytes_in_use"] == 5120


def test_device_buffers_go_back_on_release_and_collection():
    allocator = FakeMemory().allocator()
    buffer = DeviceBuffer(None, allocator.allocate(0), 0, allocator)
    assert buffer.pointer and buffer.nbytes == 0 and buffer.capacity == alloc_mod.GRANULE
    buffer.release()
    buffer.release()
    assert buffer.released and allocator.stats()["bytes_in_use"] == 0
    kept = DeviceBuffer(None, allocator.allocate(300), 300, allocator)
    assert kept.pointer == buffer.pointer
    del kept
    gc.collect()
    assert allocator.stats()["bytes_in_use"] == 0 and allocator.stats()["cache_hits"] == 1


def test_allocator_under_threads():
    memory = FakeMemory()
    allocator = memory.allocator()

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(300):
            blocks = [allocator.allocate(int(n)) for n in rng.integers(0, 8192, 4)]
            for block in blocks:
                allocator.release(block)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = allocator.stats()
    assert stats["bytes_in_use"] == 0 and stats["allocations"] == 4 * 300 * 4
    assert stats["bytes_cached"] == sum(memory.live.values())
    assert stats["cache_hits"] + stats["device_allocations"] == stats["allocations"]


# -- kernel parameters ------------------------------------------------------------------------------
def test_pointer_params_point_at_the_values():
    args = [0x7F0000001000, 0x7F0000002000, 1]
    params = PointerParams(args)
    array = (ctypes.c_void_p * 3).from_address(params.address)
    assert [ctypes.c_uint64.from_address(array[i]).value for i in range(3)] == args
    assert PointerParams([]).address == 0


# -- the GEMM mapping, against numpy ----------------------------------------------------------------
def column_major_view(flat, offset, rows, cols, ld):
    index = offset + np.arange(rows)[:, None] + np.arange(cols)[None, :] * ld
    return flat[index]


def emulate_cublas(args, operands, c_flat):
    """What cublasGemmStridedBatchedEx computes, read column-major as cuBLAS reads."""
    first, second = operands[args.first], operands[args.second]
    for i in range(args.batch):
        a_rows, a_cols = (args.m, args.k) if args.transa == 0 else (args.k, args.m)
        b_rows, b_cols = (args.k, args.n) if args.transb == 0 else (args.n, args.k)
        a = column_major_view(first, i * args.stride_a, a_rows, a_cols, args.lda)
        b = column_major_view(second, i * args.stride_b, b_rows, b_cols, args.ldb)
        a = a if args.transa == 0 else a.T
        b = b if args.transb == 0 else b.T
        index = i * args.stride_c + np.arange(args.m)[:, None] + np.arange(args.n)[None, :] * args.ldc
        c_flat[index] = a @ b


def stored(rng, batch, rows, cols, ld, dtype=np.float64):
    """A batch of row-major rows x cols matrices with row stride ``ld`` (padding = NaN)."""
    full = np.full((batch, rows, ld), np.nan, dtype=dtype)
    full[:, :, :cols] = rng.standard_normal((batch, rows, cols))
    return full


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("batch, m, n, k, pad", [(1, 3, 5, 4, 0), (3, 4, 2, 7, 0), (2, 5, 6, 3, 2)])
def test_column_major_mapping_matches_numpy(transpose_a, transpose_b, batch, m, n, k, pad):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a_shape = (k, m) if transpose_a else (m, k)
    b_shape = (n, k) if transpose_b else (k, n)
    lda, ldb, ldc = a_shape[1] + pad, b_shape[1] + pad, n + pad
    a = stored(rng, batch, *a_shape, lda)
    b = stored(rng, batch, *b_shape, ldb)
    c = np.full(batch * m * ldc, np.nan)
    args = column_major_gemm(
        m=m, n=n, k=k, transpose_a=transpose_a, transpose_b=transpose_b, batch=batch,
        stride_a=a[0].size, stride_b=b[0].size, stride_c=m * ldc,
        lda=lda if pad else None, ldb=ldb if pad else None, ldc=ldc if pad else None,
    )  # fmt: skip
    emulate_cublas(args, {"a": a.reshape(-1), "b": b.reshape(-1)}, c)
    op_a = a[:, :, : a_shape[1]]
    op_b = b[:, :, : b_shape[1]]
    op_a = op_a.transpose(0, 2, 1) if transpose_a else op_a
    op_b = op_b.transpose(0, 2, 1) if transpose_b else op_b
    got = c.reshape(batch, m, ldc)[:, :, :n]
    np.testing.assert_allclose(got, op_a @ op_b, rtol=1e-12)


def test_gemm_mapping_refuses_bad_requests():
    with pytest.raises(InvalidArgumentError, match="lda=2 is less than"):
        column_major_gemm(m=3, n=4, k=5, transpose_a=False, transpose_b=False, lda=2)
    with pytest.raises(InvalidArgumentError, match="at least 1"):
        column_major_gemm(m=0, n=4, k=5, transpose_a=False, transpose_b=False)
    with pytest.raises(UnimplementedError, match="32-bit"):
        column_major_gemm(m=1 << 31, n=4, k=5, transpose_a=False, transpose_b=False)


def test_gemm_types():
    assert {str(d) for d in GEMM_TYPES} == {
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    }  # fmt: skip
    assert gemm_types(np.float16).compute_type == gemm_types(np.float32).compute_type == 68
    assert gemm_types(ml_dtypes.bfloat16).scale_dtype == np.float32
    assert gemm_types(np.complex128).compute_type == 70
    with pytest.raises(UnimplementedError, match="cuBLAS gemm of int32"):
        gemm_types(np.int32)


# -- on a device ------------------------------------------------------------------------------------
ADD_PTX = r"""
.version 7.8
.target sm_80
.address_size 64

.visible .entry add_f32(.param .u64 x, .param .u64 y, .param .u64 out, .param .u64 count)
{
    .reg .pred %p;
    .reg .b32 %i, %n, %bid, %bdim, %t;
    .reg .f32 %a, %b, %c;
    .reg .b64 %px, %py, %po, %pn, %off;
    ld.param.u64 %px, [x];
    ld.param.u64 %py, [y];
    ld.param.u64 %po, [out];
    ld.param.u64 %pn, [count];
    cvta.to.global.u64 %px, %px;
    cvta.to.global.u64 %py, %py;
    cvta.to.global.u64 %po, %po;
    cvta.to.global.u64 %pn, %pn;
    ld.global.u32 %n, [%pn];
    mov.u32 %bid, %ctaid.x;
    mov.u32 %bdim, %ntid.x;
    mov.u32 %t, %tid.x;
    mad.lo.u32 %i, %bid, %bdim, %t;
    setp.ge.u32 %p, %i, %n;
    @%p bra DONE;
    mul.wide.u32 %off, %i, 4;
    add.u64 %px, %px, %off;
    add.u64 %py, %py, %off;
    add.u64 %po, %po, %off;
    ld.global.f32 %a, [%px];
    ld.global.f32 %b, [%py];
    add.f32 %c, %a, %b;
    st.global.f32 [%po], %c;
DONE:
    ret;
}
"""

ROUND_TRIP_DTYPES = [
    np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128,
    np.int8, np.uint16, np.int64, np.bool_,
]  # fmt: skip


@pytest.mark.gpu
def test_device_facts(device):
    assert device.arch.startswith("sm_") and device.compute_capability >= (5, 0)
    assert device.sm_count > 0 and device.total_memory > 1 << 30
    assert device.max_threads_per_block >= 1024 and device.max_shared_per_block >= 48 * 1024


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ROUND_TRIP_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(0,), (1,), (3, 257)])
def test_round_trip(device, dtype, shape):
    array = (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)
    buffer = device.to_device(array)
    assert buffer.pointer and buffer.nbytes == array.nbytes
    np.testing.assert_array_equal(device.to_host(buffer, dtype, shape), array)


@pytest.mark.gpu
def test_memset_copy_and_read_scalar(device):
    source = device.to_device(np.arange(64, dtype=np.uint8))
    target = device.allocate(64)
    device.memset(target, 0xAB, 64)
    device.copy(target, source, 16, dst_offset=8, src_offset=32)
    expected = np.full(64, 0xAB, np.uint8)
    expected[8:24] = np.arange(32, 48)
    np.testing.assert_array_equal(device.to_host(target, np.uint8, (64,)), expected)
    assert device.read_scalar(source, np.uint8) == 0
    with pytest.raises(InvalidArgumentError, match="outside the source buffer"):
        device.copy(target, source, 40, src_offset=32)


@pytest.mark.gpu
@pytest.mark.parametrize("shared_bytes", [0, 64 * 1024])
def test_ptx_kernel_launch(device, shared_bytes):
    module = device.load_module(ADD_PTX)
    function = module.function("add_f32")
    assert module.function("add_f32") is function
    n = 1000
    x = np.linspace(0, 1, n, dtype=np.float32)
    y = np.arange(n, dtype=np.float32)
    buffers = [device.to_device(x), device.to_device(y), device.allocate(4 * n)]
    count = device.to_device(np.array([n], np.uint32))
    pointers = [b.pointer for b in buffers] + [count.pointer]
    device.launch(function, ((n + 255) // 256, 1, 1), (256, 1, 1), pointers, shared_bytes)
    np.testing.assert_array_equal(device.to_host(buffers[2], np.float32, (n,)), x + y)
    with pytest.raises(NotFoundError, match="no kernel named 'missing'"):
        module.function("missing")


@pytest.mark.gpu
def test_bad_ptx_reports_the_jit_log(device):
    with pytest.raises(InternalError, match=r"cuModuleLoadDataEx\(PTX.*\n.*log") as info:
        device.load_module(ADD_PTX.replace("add.f32 %c, %a, %b", "add.f32 %c, %a, %nope"))
    assert "nope" in str(info.value)


def gemm_tolerance(dtype, k, abs_a, abs_b, expected):
    """f32 accumulation for f16/bf16/f32 (so TF32 would fail), then the result's rounding."""
    accumulate, result = {
        "float16": (2.0**-24, 2.0**-11), "bfloat16": (2.0**-24, 2.0**-8),
        "float32": (2.0**-24, 2.0**-24), "complex64": (2.0**-24, 2.0**-24),
        "float64": (2.0**-53, 2.0**-53), "complex128": (2.0**-53, 2.0**-53),
    }[np.dtype(dtype).name]  # fmt: skip
    return 4 * k * accumulate * (abs_a @ abs_b) + 2 * result * np.abs(expected) + 1e-30


def random_of(rng, dtype, shape):
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", list(GEMM_TYPES), ids=lambda d: d.name)
@pytest.mark.parametrize(
    "batch, m, n, k, transpose_a, transpose_b",
    [(1, 64, 48, 80, False, False), (3, 17, 9, 33, True, False), (2, 8, 31, 130, False, True),
     (4, 5, 6, 7, True, True), (1, 1, 1, 1, False, False)],
)  # fmt: skip
def test_gemm_matches_numpy(device, dtype, batch, m, n, k, transpose_a, transpose_b):
    rng = np.random.default_rng(batch * 1000 + m + n + k)
    a = random_of(rng, dtype, (batch, k, m) if transpose_a else (batch, m, k))
    b = random_of(rng, dtype, (batch, n, k) if transpose_b else (batch, k, n))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    op_a = a.astype(wide).transpose(0, 2, 1) if transpose_a else a.astype(wide)
    op_b = b.astype(wide).transpose(0, 2, 1) if transpose_b else b.astype(wide)
    expected = op_a @ op_b
    buffers = [device.to_device(a), device.to_device(b), device.allocate(batch * m * n * a.itemsize)]
    Cublas(device).gemm(
        dtype, m=m, n=n, k=k, a=buffers[0].pointer, b=buffers[1].pointer, c=buffers[2].pointer,
        transpose_a=transpose_a, transpose_b=transpose_b, batch=batch,
        stride_a=m * k, stride_b=k * n, stride_c=m * n,
    )  # fmt: skip
    got = device.to_host(buffers[2], dtype, (batch, m, n)).astype(wide)
    bound = gemm_tolerance(dtype, k, np.abs(op_a), np.abs(op_b), expected)
    assert np.all(np.abs(got - expected) <= bound), np.max(np.abs(got - expected) / bound)


@pytest.mark.gpu
def test_gemm_with_row_strides(device):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 10)).astype(np.float32)  # a 6 x 4 matrix in rows of 10
    b = rng.standard_normal((4, 12)).astype(np.float32)  # 4 x 5 in rows of 12
    c = device.to_device(np.full((6, 8), -1.0, np.float32))  # 6 x 5 in rows of 8
    ab = [device.to_device(a), device.to_device(b)]
    Cublas(device).gemm(
        np.float32, m=6, n=5, k=4, a=ab[0].pointer, b=ab[1].pointer, c=c.pointer,
        transpose_a=False, transpose_b=False, lda=10, ldb=12, ldc=8,
    )  # fmt: skip
    got = device.to_host(c, np.float32, (6, 8))
    np.testing.assert_allclose(got[:, :5], a[:, :4] @ b[:, :5], rtol=1e-5, atol=1e-5)
    assert np.all(got[:, 5:] == -1.0)


@pytest.mark.gpu
def test_allocator_reuses_device_memory(device):
    gc.collect()  # earlier tests' buffers go back now, not in the middle of this test
    first = device.allocate(778_000)
    pointer = first.pointer
    first.release()
    hits = device.allocator.stats()["cache_hits"]
    again = device.allocate(777_900)  # the same 512-byte granule
    assert again.pointer == pointer
    assert device.allocator.stats()["cache_hits"] == hits + 1
    zero = device.allocate(0)
    assert zero.pointer and zero.pointer != pointer


@pytest.mark.gpu
def test_out_of_device_memory(device):
    with pytest.raises(ResourceExhaustedError, match=r"allocating 10\.0 TiB .* in use"):
        device.allocate(10 << 40)
    device.to_host(device.to_device(np.ones(4)), np.float64, (4,))  # still usable


@pytest.mark.gpu
def test_timer_and_other_threads(device):
    n = 1 << 22
    x = device.to_device(np.ones(n, np.float32))
    with device.timer() as timing:
        for _ in range(5):
            device.copy(device.allocate(4 * n), x, 4 * n)
    assert timing.elapsed_ms is not None and 0 < timing.elapsed_ms < 1000
    results = []
    thread = threading.Thread(
        target=lambda: results.append(device.to_host(x, np.float32, (4,)))
    )
    thread.start()
    thread.join()
    np.testing.assert_array_equal(results[0], np.ones(4, np.float32))
