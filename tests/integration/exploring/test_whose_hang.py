"""A page that stops responding is the app's failure only when its original build,
without our counters, crediting or clock, fails the same action; otherwise the harness
is lightened, the trace says which part went and why, and exploring goes on."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _hung(run) -> list:
    return [s for s in run.steps if any("stopped responding" in n for n in s.notes)]


def test_a_page_that_hangs_only_under_the_harness_is_not_called_hung(served):
    run = served.explore("harness-hang", max_steps=10)
    trace = run.result.trace
    hung = _hung(run)
    assert hung, "the instrumented page must have stopped responding on Spin"
    notes = hung[0].notes
    assert any("original build, without our counters, crediting or clock, answered" in n for n in notes), notes
    assert any("crediting and the clock switched off" in n for n in notes), notes
    assert len(trace.lightened) >= 1 and trace.lightened[0].startswith(f"step {hung[0].index}:")
    # not counted against the app: it explores to its budget, and what came after was recorded
    assert trace.stop_reason == "budget of 10 steps used"
    assert len(trace.steps) == 11
    assert any(s.index > hung[0].index and s.ok for s in trace.steps)


def test_a_real_busy_loop_is_still_the_apps_hang(served):
    run = served.explore("loop-click", max_steps=5)
    trace = run.result.trace
    hung = _hung(run)
    assert len(hung) == 1
    assert any("original build failed the same way" in n for n in hung[0].notes), hung[0].notes
    assert trace.lightened == ()
