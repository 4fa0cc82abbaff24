"""The page's clock turns coarse on a page whose frames are far slower than real time
(kits/pageclock.py): every frame is run until one slice took more than SLOW_SLICE_S,
then each slice jumps, for the rest of the page's life; the page time that passes is
the same either way."""

from __future__ import annotations

import time

from iwcbench.pipeline.kits import pageclock


def _clock(slice_s: float):
    calls: list[tuple[str, int]] = []

    def run_for(ms: int) -> None:
        calls.append(("run", ms))
        time.sleep(slice_s)

    def jump(ms: int) -> None:
        calls.append(("jump", ms))

    return calls, run_for, jump


def test_a_fast_page_has_every_frame_run(monkeypatch):
    monkeypatch.setattr(pageclock, "SLOW_SLICE_S", 0.5)
    calls, run_for, jump = _clock(0.0)
    pace = pageclock.Pace()
    assert pageclock.advance(1000, run_for, jump, pace) == 1000
    assert calls == [("run", 250)] * 4 and not pace.coarse


def test_a_slow_page_jumps_after_its_first_slow_slice_and_stays_coarse(monkeypatch):
    monkeypatch.setattr(pageclock, "SLOW_SLICE_S", 0.05)
    calls, run_for, jump = _clock(0.06)
    pace = pageclock.Pace()
    assert pageclock.advance(600, run_for, jump, pace) == 600  # same page time
    assert calls == [("run", 250), ("jump", 250), ("jump", 100)]
    assert pace.coarse and pace.slowest_s >= 0.06
    calls.clear()
    pageclock.advance(300, run_for, jump, pace)
    assert calls == [("jump", 250), ("jump", 50)]  # coarse for good


def test_without_a_pace_nothing_turns_coarse(monkeypatch):
    monkeypatch.setattr(pageclock, "SLOW_SLICE_S", 0.01)
    calls, run_for, jump = _clock(0.02)
    assert pageclock.advance(500, run_for) == 500
    assert calls == [("run", 250), ("run", 250)]


def test_every_slice_moves_the_animations_by_its_own_page_time_run_or_jumped(monkeypatch):
    """The page's CSS and Web Animations (their timeline frozen with the clock) move by
    exactly the page time each slice let pass, after it, whether the slice ran every
    frame or jumped: the same amounts in every run."""
    monkeypatch.setattr(pageclock, "SLOW_SLICE_S", 0.05)
    calls, run_for, jump = _clock(0.06)
    animate = lambda ms: calls.append(("animate", ms))  # noqa: E731
    assert pageclock.advance(600, run_for, jump, pageclock.Pace(), animate) == 600
    assert calls == [("run", 250), ("animate", 250), ("jump", 250), ("animate", 250), ("jump", 100), ("animate", 100)]
