"""The page's own time under Playwright's clock: installed paused at one fixed instant
(Date.now() and the page's timers alike), so that every run starts at the same time,
and moved only when the explorer lets it, in slices. Each slice is a call of its own:
the page answers between slices (a heavy page's frames never add up to one call the
watchdog would take for a hang), and there are no catch-up bursts of the clock's own.
It decides nothing about how much time to let pass.

A page whose frames are slower than real time by far (a slice of SLICE_MS that takes
more than SLOW_SLICE_S: software WebGL drawing 5 frames a second) would make every
frame of page time cost its full price — a 600 ms key hold, 8 to 11 s. Such a page's
clock turns coarse, for the rest of its life (Pace): each slice then jumps ahead,
firing each due timer and animation frame once, so the page draws one frame per slice
rather than all of them. Its time still moves by the same amounts; only the frames in
between are not drawn."""

from __future__ import annotations

import datetime
import time
from typing import Any, Callable

START = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
SLICE_MS = 250  # the page time one call runs ahead; the page answers between calls
BUDGET_S = 8.0  # the most real time one advance spends before the rest is cut
SLOW_SLICE_S = 1.0  # a slice that takes this long: the page's clock turns coarse


def install(page: Any) -> None:
    """Playwright's clock on ``page``'s context, paused at START. (Installed, it runs on
    in real time until paused, so it is paused a second later in its own time: still
    before the page has any timer, and at the same instant every run.)"""
    page.clock.install(time=START)
    page.clock.pause_at(START + datetime.timedelta(seconds=1))


class Pace:
    """How one page's clock moves: every frame (``run_for``) until a slice took more than
    SLOW_SLICE_S, then coarse (``jump``) for good; ``slowest_s`` is the slice that
    turned it."""

    def __init__(self, noted: Callable[[str], Any] | None = None) -> None:
        self.coarse = False
        self.slowest_s = 0.0
        self.noted = noted  # told once, when the clock turns coarse (the step's note)


def turned(pace: Pace) -> str:
    """The step's note when a page's clock turned coarse."""
    return (f"the page's frames are slow ({SLICE_MS} ms of its time took {pace.slowest_s:.1f} s): its clock now "
            f"jumps {SLICE_MS} ms at a time, one frame each, instead of drawing every frame")


def advance(ms: int, run_for: Callable[[int], Any], jump: Callable[[int], Any] | None = None,
            pace: Pace | None = None, animate: Callable[[int], Any] | None = None) -> int:
    """Let ``ms`` of page time pass, ``run_for(slice)`` at a time — ``jump(slice)`` once
    ``pace`` is coarse — each slice followed by ``animate(slice)`` (the page's CSS and Web
    Animations, whose timeline is frozen with the clock, moved by as much), until done or
    BUDGET_S of real time went on it (a page whose frames are that slow has the rest
    cut); the ms that ran."""
    ran, began = 0, time.monotonic()
    while ran < ms:
        part = min(SLICE_MS, ms - ran)
        if pace is not None and pace.coarse and jump is not None:
            jump(part)
        else:
            start = time.monotonic()
            run_for(part)
            took = time.monotonic() - start
            if pace is not None and jump is not None and took > SLOW_SLICE_S:
                pace.coarse, pace.slowest_s = True, took
                if pace.noted is not None:
                    pace.noted(turned(pace))
        if animate is not None:
            animate(part)
        ran += part
        if time.monotonic() - began > BUDGET_S:
            break
    return ran
