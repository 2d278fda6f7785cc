"""The native runtime every executable links against, compiled once per process.

``xlapy_parallel_for(task, buffers, n, workers)`` runs ``task(buffers, start,
stop)`` over ``[0, n)`` on the calling thread and a pool of POSIX threads
started on first use and kept for the process. The range is cut into about
four contiguous chunks per thread, which the threads take one at a time from an
atomic counter, so a core that other work slows down holds up one chunk rather
than a fixed share. An idle worker spins briefly on the pool's generation
counter before it sleeps on a condition variable, so back-to-back kernels
(softmax's three) start without a wake-up, and a wake-up costs microseconds
rather than the tens of a thread creation. One caller uses the pool at a time;
a concurrent caller (replicas running in threads) creates threads for its call,
one contiguous chunk each. Native code runs without the GIL, so the chunks really run in
parallel.

The pool's threads do not survive ``fork``, but its state (``started``, the locks a
kernel running in another thread held) would: a child that ran a kernel would wait for
workers that do not exist. ``xlapy_pool_after_fork`` forgets the pool in the child (the
child has one thread, so nothing else is using it then), which then starts its own
threads on first use; ``os.register_at_fork`` calls it.

``xlapy_poll_interrupt`` lets long-running native loops (``while``) be interrupted:
it times itself, asks to be called about once a millisecond, and about every 50 ms
runs Python's pending signal handlers on the main thread (the only one that runs
them), handing back what a handler raised (``KeyboardInterrupt`` for Ctrl-C). See
``emit.control``.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable

import llvmlite.binding as llvm

from . import fallback, fast_call, jit, strength_reduction

_RUNTIME_IR = r"""
%task = type { void (i8**, i64, i64)*, i8**, i64, i64 }

declare i32 @pthread_create(i64*, i8*, i8* (i8*)*, i8*)
declare i32 @pthread_join(i64, i8**)
declare i32 @pthread_detach(i64)
declare i32 @pthread_mutex_lock(i8*)
declare i32 @pthread_mutex_trylock(i8*)
declare i32 @pthread_mutex_unlock(i8*)
declare i32 @pthread_cond_wait(i8*, i8*)
declare i32 @pthread_cond_broadcast(i8*)
declare void @llvm.x86.sse2.pause()
declare void @llvm.x86.sse.stmxcsr(i8*)
declare void @llvm.x86.sse.ldmxcsr(i8*)

; The pool: glibc's mutexes and condition variables are valid when zeroed.
@pool.busy = internal global [64 x i8] zeroinitializer, align 64
@pool.lock = internal global [64 x i8] zeroinitializer, align 64
@pool.work = internal global [64 x i8] zeroinitializer, align 64
@pool.done = internal global [64 x i8] zeroinitializer, align 64
@pool.generation = internal global i64 0, align 64
@pool.active = internal global i64 0
@pool.pending = internal global i64 0
@pool.started = internal global i64 0
@pool.job = internal global %task zeroinitializer   ; fn, buffers, n, chunks
@pool.next = internal global i64 0, align 64           ; the next chunk to take

define internal void @xlapy_run_task(%task* %t) {
  %fp = getelementptr %task, %task* %t, i32 0, i32 0
  %fn = load void (i8**, i64, i64)*, void (i8**, i64, i64)** %fp
  %bp = getelementptr %task, %task* %t, i32 0, i32 1
  %bufs = load i8**, i8*** %bp
  %sp = getelementptr %task, %task* %t, i32 0, i32 2
  %start = load i64, i64* %sp
  %ep = getelementptr %task, %task* %t, i32 0, i32 3
  %stop = load i64, i64* %ep
  call void %fn(i8** %bufs, i64 %start, i64 %stop)
  ret void
}

define internal i8* @xlapy_worker(i8* %arg) {
  %t = bitcast i8* %arg to %task*
  call void @xlapy_run_task(%task* %t)
  ret i8* null
}

; A pool worker: waits for a new generation (spinning briefly first, so that back to
; back kernels do not pay a wake-up), runs its task if it has one, reports, repeats.
; A thread starts with its creator's MXCSR; a pool started by a flush_denormals program
; (FTZ|DAZ set) must still run other programs with IEEE denormals, so the worker clears
; both bits first (flush_denormals' tasks set them around their own work).
define internal i8* @xlapy_pool_worker(i8* %arg) {
entry:
  %mode = alloca i32
  %mode.p = bitcast i32* %mode to i8*
  call void @llvm.x86.sse.stmxcsr(i8* %mode.p)
  %inherited = load i32, i32* %mode
  %ieee = and i32 %inherited, {no_flush}
  store i32 %ieee, i32* %mode
  call void @llvm.x86.sse.ldmxcsr(i8* %mode.p)
  %k = ptrtoint i8* %arg to i64
  %lock = getelementptr [64 x i8], [64 x i8]* @pool.lock, i64 0, i64 0
  %work = getelementptr [64 x i8], [64 x i8]* @pool.work, i64 0, i64 0
  %done = getelementptr [64 x i8], [64 x i8]* @pool.done, i64 0, i64 0
  br label %idle
idle:
  %seen = phi i64 [0, %entry], [%now, %finished]
  br label %spin
spin:
  %spins = phi i64 [0, %idle], [%spins1, %spin_more]
  %g = load atomic i64, i64* @pool.generation acquire, align 8
  %new = icmp ne i64 %g, %seen
  br i1 %new, label %wait, label %spin_more
spin_more:
  call void @llvm.x86.sse2.pause()
  %spins1 = add i64 %spins, 1
  %keep = icmp slt i64 %spins1, 4000
  br i1 %keep, label %spin, label %wait
wait:
  call i32 @pthread_mutex_lock(i8* %lock)
  br label %check
check:
  %g2 = load i64, i64* @pool.generation
  %same = icmp eq i64 %g2, %seen
  br i1 %same, label %sleep, label %woken
sleep:
  call i32 @pthread_cond_wait(i8* %work, i8* %lock)
  br label %check
woken:
  %active = load i64, i64* @pool.active
  call i32 @pthread_mutex_unlock(i8* %lock)
  %mine = icmp slt i64 %k, %active
  br i1 %mine, label %run, label %finished
run:
  call void @xlapy_take_chunks()
  call i32 @pthread_mutex_lock(i8* %lock)
  %p = load i64, i64* @pool.pending
  %p1 = sub i64 %p, 1
  store i64 %p1, i64* @pool.pending
  %last = icmp eq i64 %p1, 0
  br i1 %last, label %signal, label %unlock
signal:
  call i32 @pthread_cond_broadcast(i8* %done)
  br label %unlock
unlock:
  call i32 @pthread_mutex_unlock(i8* %lock)
  br label %finished
finished:
  %now = phi i64 [%g2, %woken], [%g2, %unlock]
  br label %idle
}

; Take chunks of the pool's job until none is left: chunk c is
; [n * c / chunks, n * (c + 1) / chunks). Threads that run ahead take more chunks,
; so a core slowed by other work holds up a chunk, not a fixed share.
define internal void @xlapy_take_chunks() {
entry:
  %fp = getelementptr %task, %task* @pool.job, i32 0, i32 0
  %fn = load void (i8**, i64, i64)*, void (i8**, i64, i64)** %fp
  %bp = getelementptr %task, %task* @pool.job, i32 0, i32 1
  %bufs = load i8**, i8*** %bp
  %np = getelementptr %task, %task* @pool.job, i32 0, i32 2
  %n = load i64, i64* %np
  %cp = getelementptr %task, %task* @pool.job, i32 0, i32 3
  %chunks = load i64, i64* %cp
  br label %take
take:
  %c = atomicrmw add i64* @pool.next, i64 1 monotonic
  %left = icmp slt i64 %c, %chunks
  br i1 %left, label %work, label %done
work:
  %lo.num = mul i64 %n, %c
  %lo = sdiv i64 %lo.num, %chunks
  %c1 = add i64 %c, 1
  %hi.num = mul i64 %n, %c1
  %hi = sdiv i64 %hi.num, %chunks
  call void %fn(i8** %bufs, i64 %lo, i64 %hi)
  br label %take
done:
  ret void
}

define internal void @xlapy_chunk(%task* %t, void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %k, i64 %workers) {
  %lo.num = mul i64 %n, %k
  %lo = sdiv i64 %lo.num, %workers
  %k1 = add i64 %k, 1
  %hi.num = mul i64 %n, %k1
  %hi = sdiv i64 %hi.num, %workers
  %f0 = getelementptr %task, %task* %t, i32 0, i32 0
  store void (i8**, i64, i64)* %fn, void (i8**, i64, i64)** %f0
  %f1 = getelementptr %task, %task* %t, i32 0, i32 1
  store i8** %bufs, i8*** %f1
  %f2 = getelementptr %task, %task* %t, i32 0, i32 2
  store i64 %lo, i64* %f2
  %f3 = getelementptr %task, %task* %t, i32 0, i32 3
  store i64 %hi, i64* %f3
  ret void
}

; Run on the pool's workers 1..workers-1 (started on first use) and this thread; false
; if the pool is in use by another caller or has no threads.
define internal i1 @xlapy_pool_for(void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %workers) {
entry:
  %busy = getelementptr [64 x i8], [64 x i8]* @pool.busy, i64 0, i64 0
  %lock = getelementptr [64 x i8], [64 x i8]* @pool.lock, i64 0, i64 0
  %work = getelementptr [64 x i8], [64 x i8]* @pool.work, i64 0, i64 0
  %done = getelementptr [64 x i8], [64 x i8]* @pool.done, i64 0, i64 0
  %taken = call i32 @pthread_mutex_trylock(i8* %busy)
  %free = icmp eq i32 %taken, 0
  br i1 %free, label %start, label %refuse
refuse:
  ret i1 false
start:
  call i32 @pthread_mutex_lock(i8* %lock)
  %tid = alloca i64
  br label %grow
grow:
  %have = load i64, i64* @pool.started
  %need = add i64 %have, 1
  %short = icmp slt i64 %need, %workers
  br i1 %short, label %create, label %grown
create:
  %index = add i64 %have, 1
  %arg = inttoptr i64 %index to i8*
  %rc = call i32 @pthread_create(i64* %tid, i8* null, i8* (i8*)* @xlapy_pool_worker, i8* %arg)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %created, label %grown
created:
  %t = load i64, i64* %tid
  call i32 @pthread_detach(i64 %t)
  store i64 %index, i64* @pool.started
  br label %grow
grown:
  %started = load i64, i64* @pool.started
  %avail = add i64 %started, 1
  %fewer = icmp slt i64 %avail, %workers
  %w = select i1 %fewer, i64 %avail, i64 %workers
  %alone = icmp sle i64 %w, 1
  br i1 %alone, label %give_up, label %fill
give_up:
  call i32 @pthread_mutex_unlock(i8* %lock)
  call i32 @pthread_mutex_unlock(i8* %busy)
  ret i1 false
fill:
  ; About four chunks per thread: enough to even out a slow core, few enough that a
  ; chunk is still long.
  %per = mul i64 %w, 4
  %small = icmp slt i64 %n, %per
  %chunks = select i1 %small, i64 %n, i64 %per
  %jf = getelementptr %task, %task* @pool.job, i32 0, i32 0
  store void (i8**, i64, i64)* %fn, void (i8**, i64, i64)** %jf
  %jb = getelementptr %task, %task* @pool.job, i32 0, i32 1
  store i8** %bufs, i8*** %jb
  %jn = getelementptr %task, %task* @pool.job, i32 0, i32 2
  store i64 %n, i64* %jn
  %jc = getelementptr %task, %task* @pool.job, i32 0, i32 3
  store i64 %chunks, i64* %jc
  store i64 0, i64* @pool.next
  br label %publish
publish:
  store i64 %w, i64* @pool.active
  %others = sub i64 %w, 1
  store i64 %others, i64* @pool.pending
  %g = load i64, i64* @pool.generation
  %g1 = add i64 %g, 1
  store atomic i64 %g1, i64* @pool.generation release, align 8
  call i32 @pthread_cond_broadcast(i8* %work)
  call i32 @pthread_mutex_unlock(i8* %lock)
  call void @xlapy_take_chunks()
  call i32 @pthread_mutex_lock(i8* %lock)
  br label %await
await:
  %left = load i64, i64* @pool.pending
  %all = icmp eq i64 %left, 0
  br i1 %all, label %finish, label %nap
nap:
  call i32 @pthread_cond_wait(i8* %done, i8* %lock)
  br label %await
finish:
  call i32 @pthread_mutex_unlock(i8* %lock)
  call i32 @pthread_mutex_unlock(i8* %busy)
  ret i1 true
}

define void @xlapy_parallel_for(void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %workers_in) {
entry:
  %few = icmp slt i64 %n, %workers_in
  %w0 = select i1 %few, i64 %n, i64 %workers_in
  %toomany = icmp sgt i64 %w0, 64
  %workers = select i1 %toomany, i64 64, i64 %w0
  %single = icmp sle i64 %workers, 1
  br i1 %single, label %inline, label %pool
inline:
  call void %fn(i8** %bufs, i64 0, i64 %n)
  ret void
pool:
  %pooled = call i1 @xlapy_pool_for(void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %workers)
  br i1 %pooled, label %done, label %split
split:
  %tasks = alloca %task, i64 64
  %threads = alloca i64, i64 64
  %created = alloca i1, i64 64
  br label %spawn
spawn:
  %k = phi i64 [1, %split], [%k1, %spawned]
  %k1 = add i64 %k, 1
  %t = getelementptr %task, %task* %tasks, i64 %k
  call void @xlapy_chunk(%task* %t, void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 %k, i64 %workers)
  %th = getelementptr i64, i64* %threads, i64 %k
  %arg = bitcast %task* %t to i8*
  %rc = call i32 @pthread_create(i64* %th, i8* null, i8* (i8*)* @xlapy_worker, i8* %arg)
  %ok = icmp eq i32 %rc, 0
  %cr = getelementptr i1, i1* %created, i64 %k
  store i1 %ok, i1* %cr
  br i1 %ok, label %spawned, label %run_here
run_here:
  call void @xlapy_run_task(%task* %t)
  br label %spawned
spawned:
  %more = icmp slt i64 %k1, %workers
  br i1 %more, label %spawn, label %first
first:
  %t0 = getelementptr %task, %task* %tasks, i64 0
  call void @xlapy_chunk(%task* %t0, void (i8**, i64, i64)* %fn, i8** %bufs, i64 %n, i64 0, i64 %workers)
  call void @xlapy_run_task(%task* %t0)
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
""".replace("{no_flush}", str(~(1 << 15 | 1 << 6)))

_FORK_IR = r"""
declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)

; In a forked child: no worker threads, no job, no lock held (glibc's zeroed mutexes and
; condition variables are valid). The child's only thread is its main thread.
define void @xlapy_pool_after_fork() {
  %busy = getelementptr [64 x i8], [64 x i8]* @pool.busy, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %busy, i8 0, i64 64, i1 false)
  %lock = getelementptr [64 x i8], [64 x i8]* @pool.lock, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %lock, i8 0, i64 64, i1 false)
  %work = getelementptr [64 x i8], [64 x i8]* @pool.work, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %work, i8 0, i64 64, i1 false)
  %done = getelementptr [64 x i8], [64 x i8]* @pool.done, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %done, i8 0, i64 64, i1 false)
  store i64 0, i64* @pool.generation
  store i64 0, i64* @pool.active
  store i64 0, i64* @pool.pending
  store i64 0, i64* @pool.started
  store i64 0, i64* @pool.next
  store %task zeroinitializer, %task* @pool.job
  %self = call i64 @pthread_self()
  store i64 %self, i64* @interrupt.main_thread
  ret void
}
"""

# A loop's poll state (``POLL_STATE_WORDS`` i64s, in its arena, kept across runs; any
# garbage is valid): [0] iterations until the next call, [1] the current stride,
# [2] the time of the last call and [3] of the last look at Python's signals (ns,
# CLOCK_MONOTONIC), [4..6] the exception a signal handler raised (type, value,
# traceback: new references, or null).
POLL_STATE_WORDS = 7
POLL_MAX_STRIDE = 1 << 22
_POLL_IR = r"""
%timespec = type { i64, i64 }
declare i32 @clock_gettime(i32, %timespec*)
declare i64 @pthread_self()
declare i32 @PyGILState_Ensure()
declare void @PyGILState_Release(i32)
declare i32 @PyErr_CheckSignals()
declare void @PyErr_Fetch(i8**, i8**, i8**)
declare void @PyErr_NormalizeException(i8**, i8**, i8**)

@interrupt.main_thread = internal global i64 0

define void @xlapy_set_main_thread(i64 %thread) {
  store i64 %thread, i64* @interrupt.main_thread
  ret void
}

; Called when a loop's countdown ([0]) reaches zero. Doubles the stride while calls
; come less than 0.5 ms apart and halves it when they come more than 2 ms apart, so a
; tight loop pays a clock read per millisecond and a slow one checks every iteration.
; Every 50 ms, on the main thread, takes the GIL and runs Python's pending signal
; handlers: returns 1 with the exception one raised in [4..6], else 0.
define i32 @xlapy_poll_interrupt(i64* %state) {
entry:
  %ts = alloca %timespec
  call i32 @clock_gettime(i32 1, %timespec* %ts)
  %sp = getelementptr %timespec, %timespec* %ts, i32 0, i32 0
  %sec = load i64, i64* %sp
  %np = getelementptr %timespec, %timespec* %ts, i32 0, i32 1
  %nsec = load i64, i64* %np
  %secns = mul i64 %sec, 1000000000
  %now = add i64 %secns, %nsec
  %stride.p = getelementptr i64, i64* %state, i64 1
  %stride.raw = load i64, i64* %stride.p
  %stride.m1 = sub i64 %stride.raw, 1
  %stride.bad = icmp uge i64 %stride.m1, {max_stride}
  %stride = select i1 %stride.bad, i64 1, i64 %stride.raw
  %last.p = getelementptr i64, i64* %state, i64 2
  %last = load i64, i64* %last.p
  %elapsed = sub i64 %now, %last
  %fast = icmp ult i64 %elapsed, 500000
  %slow.min = icmp ugt i64 %elapsed, 2000000
  %slow.max = icmp ult i64 %elapsed, 1000000000     ; older: the loop was not running
  %slow = and i1 %slow.min, %slow.max
  %twice = shl i64 %stride, 1
  %twice.big = icmp ugt i64 %twice, {max_stride}
  %doubled = select i1 %twice.big, i64 {max_stride}, i64 %twice
  %half = lshr i64 %stride, 1
  %half.zero = icmp eq i64 %half, 0
  %halved = select i1 %half.zero, i64 1, i64 %half
  %adjusted = select i1 %slow, i64 %halved, i64 %stride
  %next = select i1 %fast, i64 %doubled, i64 %adjusted
  store i64 %next, i64* %stride.p
  store i64 %next, i64* %state
  store i64 %now, i64* %last.p
  %looked.p = getelementptr i64, i64* %state, i64 3
  %looked = load i64, i64* %looked.p
  %since = sub i64 %now, %looked
  %due = icmp uge i64 %since, 50000000
  br i1 %due, label %thread, label %quiet
quiet:
  ret i32 0
thread:
  store i64 %now, i64* %looked.p
  %self = call i64 @pthread_self()
  %main = load i64, i64* @interrupt.main_thread
  %is_main = icmp eq i64 %self, %main
  br i1 %is_main, label %python, label %quiet
python:
  %gil = call i32 @PyGILState_Ensure()
  %rc = call i32 @PyErr_CheckSignals()
  %raised = icmp ne i32 %rc, 0
  br i1 %raised, label %fetch, label %release
fetch:
  %words = bitcast i64* %state to i8**
  %type = getelementptr i8*, i8** %words, i64 4
  %value = getelementptr i8*, i8** %words, i64 5
  %traceback = getelementptr i8*, i8** %words, i64 6
  call void @PyErr_Fetch(i8** %type, i8** %value, i8** %traceback)
  call void @PyErr_NormalizeException(i8** %type, i8** %value, i8** %traceback)
  br label %release
release:
  call void @PyGILState_Release(i32 %gil)
  %status = zext i1 %raised to i32
  ret i32 %status
}
""".replace("{max_stride}", str(POLL_MAX_STRIDE))

# Profiling (``CpuOptions.profile``; ``backends.cpu.profiling``): code compiled to be
# profiled reads the clock before a thunk and calls the recorder after it. The recorder
# finds the run's event buffer through the run context (null: not profiled now, record
# nothing) and appends (site, start, stop) if there is room, else counts the event as
# dropped: it never writes past the buffer. Buffer words: [0] capacity in events, [1]
# events written, [2] events dropped, [3] unused, then 3 words per event. One run writes
# one buffer from one thread (pool tasks are timed as a whole on the calling thread).
PROFILE_HEADER_WORDS = 4
PROFILE_EVENT_WORDS = 3
_PROFILE_IR = (
    r"""
define i64 @xlapy_profile_now() {
  %ts = alloca %timespec
  call i32 @clock_gettime(i32 1, %timespec* %ts)
  %sp = getelementptr %timespec, %timespec* %ts, i32 0, i32 0
  %sec = load i64, i64* %sp
  %np = getelementptr %timespec, %timespec* %ts, i32 0, i32 1
  %nsec = load i64, i64* %np
  %secns = mul i64 %sec, 1000000000
  %now = add i64 %secns, %nsec
  ret i64 %now
}

define void @xlapy_profile_record(i8* %ctx, i64 %site, i64 %start) {
entry:
  %stop = call i64 @xlapy_profile_now()
  %no_ctx = icmp eq i8* %ctx, null
  br i1 %no_ctx, label %done, label %look
look:
  %field = getelementptr i8, i8* %ctx, i64 {offset}
  %field.p = bitcast i8* %field to i64**
  %buffer = load i64*, i64** %field.p
  %off = icmp eq i64* %buffer, null
  br i1 %off, label %done, label %check
check:
  %capacity = load i64, i64* %buffer
  %count.p = getelementptr i64, i64* %buffer, i64 1
  %count = load i64, i64* %count.p
  %full = icmp uge i64 %count, %capacity
  br i1 %full, label %drop, label %write
write:
  %words = mul i64 %count, {event_words}
  %at = add i64 %words, {header_words}
  %e0 = getelementptr i64, i64* %buffer, i64 %at
  store i64 %site, i64* %e0
  %e1 = getelementptr i64, i64* %e0, i64 1
  store i64 %start, i64* %e1
  %e2 = getelementptr i64, i64* %e0, i64 2
  store i64 %stop, i64* %e2
  %count1 = add i64 %count, 1
  store i64 %count1, i64* %count.p
  br label %done
drop:
  %dropped.p = getelementptr i64, i64* %buffer, i64 2
  %dropped = load i64, i64* %dropped.p
  %dropped1 = add i64 %dropped, 1
  store i64 %dropped1, i64* %dropped.p
  br label %done
done:
  ret void
}
""".replace("{offset}", str(fallback.CONTEXT_OFFSETS["profile"]))
    .replace("{event_words}", str(PROFILE_EVENT_WORDS))
    .replace("{header_words}", str(PROFILE_HEADER_WORDS))
)

# The Python C API functions the poll calls, resolved in this process.
_PYTHON_API = (
    "PyGILState_Ensure",
    "PyGILState_Release",
    "PyErr_CheckSignals",
    "PyErr_Fetch",
    "PyErr_NormalizeException",
)

# Every call from native code into Python (``codegen``'s ``xlapy_fallback``) goes through
# this trampoline, which presets the status to ``fallback.INTERRUPTED``: see
# ``fallback._dispatch`` for why the callback cannot be trusted to return one.
_DISPATCH_IR = r"""
declare void @xlapy_python_dispatch(i8*, i64, i8**, i32*)

define i32 @xlapy_fallback(i8* %ctx, i64 %thunk, i8** %pointers) {
  %status = alloca i32
  store volatile i32 {interrupted}, i32* %status
  call void @xlapy_python_dispatch(i8* %ctx, i64 %thunk, i8** %pointers, i32* %status)
  %result = load volatile i32, i32* %status
  ret i32 %result
}
""".replace("{interrupted}", str(fallback.INTERRUPTED))

# The calling thread's MXCSR (x86's SSE control and status word), read and written from
# Python: what tests of ``CpuOptions.flush_denormals`` check the native code restores.
_MXCSR_IR = r"""
define i32 @xlapy_read_mxcsr() {
  %word = alloca i32
  %p = bitcast i32* %word to i8*
  call void @llvm.x86.sse.stmxcsr(i8* %p)
  %value = load i32, i32* %word
  ret i32 %value
}

define void @xlapy_write_mxcsr(i32 %value) {
  %word = alloca i32
  store i32 %value, i32* %word
  %p = bitcast i32* %word to i8*
  call void @llvm.x86.sse.ldmxcsr(i8* %p)
  ret void
}
"""

_lock = threading.Lock()
_code: list[object] = []
_mxcsr: dict[str, Callable[..., int | None]] = {}  # "read", "write"
_fast_call: list[ctypes._CFuncPtr] = []  # xlapy_fast_call, made once


def ensure_runtime() -> None:
    """Compile the runtime once and make its functions callable from generated code."""
    with _lock:
        if _code:
            return
        jit.target_machine()
        for name in _PYTHON_API:
            address = ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value
            jit.register_symbol(name, address or 0)
        jit.register_symbol("xlapy_python_dispatch", fallback.dispatch_address())
        module = llvm.parse_assembly(
            _RUNTIME_IR
            + _FORK_IR
            + _POLL_IR
            + _PROFILE_IR
            + _DISPATCH_IR
            + _MXCSR_IR
            + fast_call.FAST_CALL_IR
        )
        module.triple = jit.host_triple()
        module.verify()
        engine = llvm.create_mcjit_compiler(module, jit.new_target_machine())
        with strength_reduction.section(True):  # the thread pool's loops: LLVM's default
            engine.finalize_object()
        for name in (
            "xlapy_parallel_for",
            "xlapy_poll_interrupt",
            "xlapy_fallback",
            "xlapy_profile_now",
            "xlapy_profile_record",
        ):
            jit.register_symbol(name, engine.get_function_address(name))
        _code.append(engine)
        set_main_thread = ctypes.CFUNCTYPE(None, ctypes.c_uint64)(
            engine.get_function_address("xlapy_set_main_thread")
        )
        set_main_thread(threading.main_thread().ident or 0)
        after_fork = ctypes.CFUNCTYPE(None)(engine.get_function_address("xlapy_pool_after_fork"))
        _code.append(after_fork)
        os.register_at_fork(after_in_child=after_fork)
        _mxcsr["read"] = ctypes.CFUNCTYPE(ctypes.c_uint32)(
            engine.get_function_address("xlapy_read_mxcsr")
        )
        _mxcsr["write"] = ctypes.CFUNCTYPE(None, ctypes.c_uint32)(
            engine.get_function_address("xlapy_write_mxcsr")
        )
        _fast_call.append(fast_call.FUNCTION_TYPE(engine.get_function_address(fast_call.SYMBOL)))


def fast_call_function() -> ctypes._CFuncPtr:
    """``xlapy_fast_call`` as a ctypes function (``fast_call``), one for every executable."""
    ensure_runtime()
    return _fast_call[0]


def read_mxcsr() -> int:
    """The calling thread's MXCSR word (FTZ is bit 15, DAZ bit 6, flags bits 0-5)."""
    ensure_runtime()
    return int(_mxcsr["read"]())


def write_mxcsr(value: int) -> None:
    """Set the calling thread's MXCSR word (tests: a caller with an unusual mode)."""
    ensure_runtime()
    _mxcsr["write"](value & 0xFFFF)


def pool_ir() -> str:
    """The thread pool's LLVM IR text (``xlapy_parallel_for`` and its workers, pthreads
    only, x86-64), which an ahead-of-time object links in for ``--threads N``."""
    return _RUNTIME_IR


def worker_count() -> int:
    """Threads a large kernel is split over: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
