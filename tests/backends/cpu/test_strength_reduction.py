"""LLVM's loop strength reduction switched per code generation (strength_reduction)."""

from __future__ import annotations

import threading
import time

import llvmlite.binding as llvm

from xlapy.backends.cpu.runtime import jit, strength_reduction

_LOOP = """
define void @f(ptr %a, ptr %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %pa = getelementptr float, ptr %a, i64 %i
  %j = mul i64 %i, 3
  %pb = getelementptr float, ptr %b, i64 %j
  %x = load float, ptr %pb
  store float %x, ptr %pa
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""


def _assembly(enabled: bool) -> str:
    jit._initialize()
    tm = jit.new_target_machine()
    with strength_reduction.section(enabled):
        return tm.emit_assembly(llvm.parse_assembly(_LOOP))


def test_the_section_decides_whether_lsr_runs():
    """b[3 i] read in a loop: LSR turns the index into a pointer bumped by 12 bytes each
    trip; without it the code computes 3 i (on x86-64, an ``lea``) every trip."""
    off, on = _assembly(False), _assembly(True)
    assert off != on
    assert _assembly(False) == off and _assembly(True) == on  # switched back and forth
    if jit.host_triple().startswith("x86_64"):
        assert "$12" in on and "$12" not in off


def test_sections_of_one_setting_overlap_and_the_other_waits():
    """Two sections without LSR are inside at once; one with LSR asks while they are and
    gets in only after both left (were it let in, it would come first: they linger)."""
    events: list[str] = []
    inside = threading.Barrier(3)
    asking = threading.Event()

    def holder(name: str) -> None:
        with strength_reduction.section(False):
            inside.wait(timeout=10)  # both holders and the test are here at once
            assert asking.wait(timeout=10)
            time.sleep(0.05)  # time for a broken section to let the other in
            events.append(f"{name} out")

    def other() -> None:
        asking.set()
        with strength_reduction.section(True):
            events.append("other in")

    threads = [threading.Thread(target=holder, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    inside.wait(timeout=10)
    late = threading.Thread(target=other)
    late.start()
    for t in [*threads, late]:
        t.join(timeout=10)
        assert not t.is_alive()
    assert sorted(events[:2]) == ["a out", "b out"] and events[2] == "other in", events
