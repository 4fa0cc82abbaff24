"""How an exploration starts, and what it measures about loading.

The first load decides three things before any action:

* the instrumented build failed to load (did not load at all, threw at load where
  the original does not, or shows nothing where the original shows something) →
  the original build is explored in black box instead, with the reason
  "instrumented build failed to load: …" — our instrumentation must never make a
  working app look broken;
* the page shows nothing (an empty document, or a body with no visible text, media,
  control or painted box, still so after BLANK_WAITS looks) → the exploration stops
  there with that reason;
* otherwise the exploration goes on as loaded.

The original build is served through the browser (Session/Tab.serve_files) from
the files instrumenting kept, so no second server is needed. After an instrumented
exploration, ``load_times`` loads both builds once more, warm, to compare them.
It must not choose actions; stepping.Explorer does the loading itself.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from iwcbench.pipeline.kits import browser, clock, inspecting
from iwcbench.pipeline.stages.exploring import observing, paging, stepping

BLANK_WAITS = 2  # further looks, BLANK_WAIT_MS apart, before a page counts as blank
BLANK_WAIT_MS = 500


@dataclasses.dataclass(frozen=True)
class Start:
    explorer: stepping.Explorer  # the one to explore with (a black-box one after a fallback)
    load_error: str | None
    first: observing.Observation | None
    fallback: str | None = None  # "instrumented build failed to load: …"
    blank: str | None = None  # why the page shows nothing


@dataclasses.dataclass(frozen=True)
class _Probe:
    error: str | None
    page_errors: int
    blank: str | None


def _blank(explorer: stepping.Explorer) -> str | None:
    """Why the current page shows nothing, after a few chances to render."""
    for attempt in range(BLANK_WAITS + 1):
        try:
            reason = inspecting.shows_nothing(explorer.page.live_tab, stepping.HANG_S)
        except browser.BrowserError:
            return None  # a page we cannot ask is not known to be blank
        if reason is None or attempt == BLANK_WAITS:
            return reason
        explorer.page.live_tab.pause(BLANK_WAIT_MS)
    return None


def _probe(explorer: stepping.Explorer, url: str, files: dict[str, bytes], timeout_s: float) -> _Probe:
    """Load the original build once, in a fresh tab, and see how it does. Under
    Playwright's clock it gets the idle window the instrumented page's first snapshot
    ran in the page's time, so that the two builds' errors at load are counted over the
    same timers (observing.snapshot)."""
    page = explorer.page
    try:
        tab = page.live_session.new_tab()
    except browser.PageLost as failed:
        return _Probe(error=str(failed), page_errors=0, blank=None)
    page.tab = tab
    try:
        tab.serve_files(files)
        status = tab.goto(url, timeout_s)
        error = f"HTTP {status} for {url}" if status is not None and status >= 400 else None
        blank = _blank(explorer) if error is None else None
        if error is None and tab.virtual_time:
            tab.fast_forward(observing.IDLE_MS, stepping.HANG_S)
    except browser.BrowserGone:
        raise
    except browser.BrowserError as failed:
        error, blank = str(failed), None
    events = page.live_session.drain()
    page.router.drain()
    return _Probe(error=error, page_errors=len(events.page_errors), blank=blank)


def _time_to_check(explorer: stepping.Explorer, deadline: clock.Deadline) -> bool:
    """Whether there is time to see if the original build throws at load too: two more
    loads (the original's, then the instrumented one's again) may take at most half of
    what is left. When not, the instrumented page is explored as it is, and step 0 says so."""
    load_s = explorer.steps[0].duration_s
    if 2 * load_s <= deadline.left() / 2:
        return True
    first = explorer.steps[0]
    explorer.steps[0] = first.model_copy(update={"notes": (*first.notes, (
        f"the page threw at load; not checked against the original build: that takes two more loads of "
        f"about {load_s:.1f} s, and {deadline.left():.0f} s are left"))})
    return False


def start(url: str, make: Callable[[dict | None], stepping.Explorer], coverage_map: dict | None,
          originals: dict[str, bytes] | None, session: browser.Session, deadline: clock.Deadline) -> Start:
    """The first load (see the module docstring). ``make(coverage_map)`` builds an
    Explorer on ``session``; None as its argument gives a black-box one."""
    explorer = make(coverage_map)
    load_error, first = explorer.load()
    instrumented_failure: str | None = None
    blank = _blank(explorer) if load_error is None else None
    if load_error is not None:
        instrumented_failure = load_error
    elif blank is not None:
        instrumented_failure = f"the page shows nothing ({blank})"
    elif explorer.steps and explorer.steps[0].page_errors:
        instrumented_failure = f"it threw at load: {explorer.steps[0].page_errors[0]}"
    if coverage_map is None or not originals or instrumented_failure is None:
        return Start(explorer, load_error, first, blank=blank)
    if load_error is None and blank is None and not _time_to_check(explorer, deadline):
        return Start(explorer, load_error, first)
    files = paging.served_files(url, originals)
    if deadline.spent():  # no time to try the original build: what the instrumented one gave
        return Start(explorer, load_error, None if load_error else first, blank=blank)
    probe = _probe(explorer, url, files, explorer.page.load_s())
    threw = load_error is None and blank is None
    original_fine = probe.error is None and probe.blank is None and (
        not threw or probe.page_errors < len(explorer.steps[0].page_errors))
    if not original_fine:
        if threw:  # both builds throw at load: the app's own error; explore what we have
            explorer = make(coverage_map)
            load_error, first = explorer.load()
            return Start(explorer, load_error, first)
        return Start(explorer, load_error, None if load_error else first, blank=blank)
    reason = f"instrumented build failed to load: {instrumented_failure}"
    session.serve_files(files)
    fallback = make(None)
    load_error, first = fallback.load(note=f"{reason}; exploring the original build without coverage")
    return Start(fallback, load_error, first, fallback=reason)


def load_times(explorer: stepping.Explorer, url: str, originals: dict[str, bytes]
               ) -> tuple[float | None, float | None]:
    """Seconds to the load event of the instrumented and the original build, each
    loaded warm in a fresh tab (the original twice: the first load warms it).
    Each load waits no longer than a third of what is left of the app's deadline; with
    too little left, or when a load never ends, the figures are None (not measured)."""
    files = paging.served_files(url, originals)
    page = explorer.page
    share = page.deadline.left() / 3

    def timed(original: bool) -> float | None:
        if share < clock.MARGIN_S:
            return None
        try:
            tab = page.live_session.new_tab()
            page.tab = tab
            if original:
                tab.serve_files(files)
            started = time.monotonic()
            tab.goto(url, min(share, page.config.load_timeout_s))
            return round(time.monotonic() - started, 3)
        except browser.BrowserGone:
            raise
        except browser.BrowserError:
            return None
        finally:
            page.live_session.drain()
            page.router.drain()

    if timed(True) is None:  # the page's load never ends: measuring again tells nothing
        return None, None
    original = timed(True)
    return timed(False), original
