"""The page's own time under Playwright's clock: installed paused at one fixed instant
(Date.now() and the page's timers alike), so that every run starts at the same time,
and moved only when the explorer lets it, in slices. Each slice is a call of its own:
the page answers between slices (a heavy page's frames never add up to one call the
watchdog would take for a hang), and there are no catch-up bursts of the clock's own.
It decides nothing about how much time to let pass."""

from __future__ import annotations

import datetime
import time
from typing import Any, Callable

START = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
SLICE_MS = 250  # the page time one call runs ahead; the page answers between calls
BUDGET_S = 8.0  # the most real time one advance spends before the rest is cut


def install(page: Any) -> None:
    """Playwright's clock on ``page``'s context, paused at START. (Installed, it runs on
    in real time until paused, so it is paused a second later in its own time: still
    before the page has any timer, and at the same instant every run.)"""
    page.clock.install(time=START)
    page.clock.pause_at(START + datetime.timedelta(seconds=1))


def advance(ms: int, run_for: Callable[[int], Any]) -> int:
    """Let ``ms`` of page time pass, ``run_for(slice)`` at a time, until done or BUDGET_S
    of real time went on it (a page whose frames are that slow has the rest cut);
    the ms that ran."""
    ran, began = 0, time.monotonic()
    while ran < ms:
        part = min(SLICE_MS, ms - ran)
        run_for(part)
        ran += part
        if time.monotonic() - began > BUDGET_S:
            break
    return ran
