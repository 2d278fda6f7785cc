"""The native runtime every executable links against, compiled once per process.

``xlapy_parallel_for(task, buffers, n, workers)`` runs ``task(buffers, start,
stop)`` over ``[0, n)`` split into ``workers`` contiguous chunks: one chunk on
the calling thread, the others on POSIX threads created for the call (this
costs tens of microseconds, so the compiler only splits kernels that run far
longer). Native code runs without the GIL, so the chunks really run in
parallel.
"""

from __future__ import annotations

import os
import threading

from . import jit

_RUNTIME_IR = r"""
%task = type { void (i8**, i64, i64)*, i8**, i64, i64 }

declare i32 @pthread_create(i64*, i8*, i8* (i8*)*, i8*)
declare i32 @pthread_join(i64, i8**)

define internal i8* @xlapy_worker(i8* %arg) {
  %t = bitcast i8* %arg to %task*
  %fp = getelementptr %task, %task* %t, i32 0, i32 0
  %fn = load void (i8**, i64, i64)*, void (i8**, i64, i64)** %fp
  %bp = getelementptr %task, %task* %t, i32 0, i32 1
  %bufs = load i8**, i8*** %bp
  %sp = getelementptr %task, %task* %t, i32 0, i32 2
  %start = load i64, i64* %sp
  %ep = getelementptr %task, %task* %t, i32 0, i32 3
  %stop = load i64, i64* %ep
  call void %fn(i8** %bufs, i64 %start, i64 %stop)
  ret i8* null
}

define void @xlapy_parallel_for(void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %workers_in) {
entry:
  %few = icmp slt i64 %n, %workers_in
  %w0 = select i1 %few, i64 %n, i64 %workers_in
  %toomany = icmp sgt i64 %w0, 64
  %workers = select i1 %toomany, i64 64, i64 %w0
  %single = icmp sle i64 %workers, 1
  br i1 %single, label %inline, label %split
inline:
  call void %fn(i8** %bufs, i64 0, i64 %n)
  ret void
split:
  %tasks = alloca %task, i64 64
  %threads = alloca i64, i64 64
  %created = alloca i1, i64 64
  br label %spawn
spawn:
  %k = phi i64 [1, %split], [%k1, %spawned]
  %lo.num = mul i64 %n, %k
  %lo = sdiv i64 %lo.num, %workers
  %k1 = add i64 %k, 1
  %hi.num = mul i64 %n, %k1
  %hi = sdiv i64 %hi.num, %workers
  %t = getelementptr %task, %task* %tasks, i64 %k
  %f0 = getelementptr %task, %task* %t, i32 0, i32 0
  store void (i8**, i64, i64)* %fn, void (i8**, i64, i64)** %f0
  %f1 = getelementptr %task, %task* %t, i32 0, i32 1
  store i8** %bufs, i8*** %f1
  %f2 = getelementptr %task, %task* %t, i32 0, i32 2
  store i64 %lo, i64* %f2
  %f3 = getelementptr %task, %task* %t, i32 0, i32 3
  store i64 %hi, i64* %f3
  %th = getelementptr i64, i64* %threads, i64 %k
  %arg = bitcast %task* %t to i8*
  %rc = call i32 @pthread_create(i64* %th, i8* null, i8* (i8*)* @xlapy_worker, i8* %arg)
  %ok = icmp eq i32 %rc, 0
  %cr = getelementptr i1, i1* %created, i64 %k
  store i1 %ok, i1* %cr
  br i1 %ok, label %spawned, label %run_here
run_here:
  call void %fn(i8** %bufs, i64 %lo, i64 %hi)
  br label %spawned
spawned:
  %more = icmp slt i64 %k1, %workers
  br i1 %more, label %spawn, label %first
first:
  %first.hi.num = mul i64 %n, 1
  %first.hi = sdiv i64 %first.hi.num, %workers
  call void %fn(i8** %bufs, i64 0, i64 %first.hi)
  br label %join
join:
  %j = phi i64 [1, %first], [%j1, %joined]
  %cj = getelementptr i1, i1* %created, i64 %j
  %was = load i1, i1* %cj
  br i1 %was, label %do_join, label %joined
do_join:
  %tj = getelementptr i64, i64* %threads, i64 %j
  %tid = load i64, i64* %tj
  %jr = call i32 @pthread_join(i64 %tid, i8** null)
  br label %joined
joined:
  %j1 = add i64 %j, 1
  %jmore = icmp slt i64 %j1, %workers
  br i1 %jmore, label %join, label %done
done:
  ret void
}
"""

_lock = threading.Lock()
_code: list[object] = []


def ensure_runtime() -> None:
    """Compile the runtime once and make its functions callable from generated code."""
    with _lock:
        if _code:
            return
        import llvmlite.binding as llvm

        jit.target_machine()
        module = llvm.parse_assembly(_RUNTIME_IR)
        module.triple = jit.host_triple()
        module.verify()
        engine = llvm.create_mcjit_compiler(module, jit._new_target_machine())
        engine.finalize_object()
        jit.register_symbol("xlapy_parallel_for", engine.get_function_address("xlapy_parallel_for"))
        _code.append(engine)


def worker_count() -> int:
    """Threads a large kernel is split over: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
