"""The page part of the explorer: the tab it explores in and what keeps it usable —
fresh tabs on the start URL, settling after an action, looking (and coming back when
the page navigated off the app), the listeners of what it offers, and recovery from a
hung or crashed page. It must not choose actions or store evidence."""

from __future__ import annotations

import collections
import dataclasses
import pathlib
import time
import urllib.parse
from typing import Callable

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits import browser, clock, injecting, inspecting
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.stages.exploring import observing, timing

HANG_S = observing.HANG_S
SETTLE_MS = 40  # after an action, the most it is waited on: handlers, microtasks and a couple of frames
SETTLE = injecting.function(pathlib.Path(__file__).with_name("settle.mjs"))
MAX_PAGE_FAILURES = 2  # hung or crashed pages tolerated before stopping
LOAD_SHARE = 1 / 3  # of what is left of the deadline: the most one page load may take
STILL_LOADING_S = 0.5  # a page whose load already never came is waited on this long per step


def served_files(url: str, originals: dict[str, bytes]) -> dict[str, bytes]:
    """The original files by the URL the browser asks for (relative to the app's
    root, which is the start page's folder)."""
    parts = urllib.parse.urlsplit(url)
    root = f"{parts.scheme}://{parts.netloc}" + parts.path.rsplit("/", 1)[0] + "/"
    files = {root + urllib.parse.quote(rel): data for rel, data in originals.items()}
    # (a folder's address serves its index.html, as the server does)
    files.update({root + urllib.parse.quote(rel[: -len("index.html")]): data for rel, data in originals.items()
                  if rel == "index.html" or rel.endswith("/index.html")})
    return files


class Stop(Exception):
    """The exploration ends here; the message is the trace's stop_reason."""


@dataclasses.dataclass(frozen=True)
class Where:
    """Where and how long the page is explored: its start URL, the settings' limits and
    the app's deadline."""

    url: str
    config: settings.Exploration
    deadline: clock.Deadline


class Page:
    """The tab of one exploration and its recovery. ``left`` is called whenever the
    current document is gone (its counters are kept by the coverage part)."""

    def __init__(self, where: Where, session: browser.Session | None, router: routing.Router,
                 left: Callable[[], None], parts: timing.Parts) -> None:
        self.url = where.url
        self.origin = routing.origin_of(where.url)
        self.config = where.config
        self.deadline = where.deadline
        self.session = session
        self.router = router
        self.left = left
        self.parts = parts
        self.tab: browser.Tab | None = None
        self.never_loaded: str | None = None  # the URL of a page whose load event did not come
        self.failures, self.overran = 0, False  # overran: a script of ours outlasted the watchdog
        self.mirrored: list[str] = []
        self.settled: collections.Counter[str] = collections.Counter()  # steps settled "quiet" or at the "cap"
        # (document, element ref) -> its listeners; (document, global types) -> the page's
        self.heard: dict[tuple[float, str], tuple[inspecting.Listener, ...]] = {}
        self.heard_page: tuple[tuple[float, tuple[str, ...]], tuple[inspecting.Listener, ...]] | None = None
        self.targets: tuple[str, ...] = ()  # what the code tests clicked elements against (observing.observe)

    @property
    def live_session(self) -> browser.Session:
        """The session; an explorer without one (made after the browser went) never opens a page."""
        assert self.session is not None, "an explorer without a session opens no page"
        return self.session

    @property
    def live_tab(self) -> browser.Tab:
        """The current tab: every step after the first load has one."""
        assert self.tab is not None, "no tab before the first load"
        return self.tab

    def load_s(self) -> float:
        """Seconds a page load may take now: the load timeout, or a third of what is
        left of the app's deadline when that is less (so that a page whose load event
        never comes is still explored), and at least a second, so that a reload can
        still be tried."""
        share = self.deadline.left() * LOAD_SHARE
        return round(max(clock.MARGIN_S, min(self.config.load_timeout_s, share)), 1)

    def drain_router(self) -> tuple[str, ...]:
        blocked, mirrored = self.router.drain()
        self.mirrored.extend(mirrored)
        below = self.session.drain_network() if self.session else ()  # what routing never saw
        return tuple(dict.fromkeys((*blocked, *below)))

    def fresh(self, timeout_s: float, notes: list[str] | None = None) -> int | None:
        """A new tab on the start URL. A load that does not end in time is a note (the
        page is observed as it is), not a failure of ours; a lost page or browser is."""
        self.left()
        with self.parts.timed("load"):
            self.tab = self.live_session.new_tab()
            try:
                return self.tab.goto(self.url, timeout_s)
            except (browser.PageLost, browser.BrowserGone):
                raise
            except browser.BrowserError as error:
                if notes is not None:
                    notes.append(f"the fresh page did not finish loading within {timeout_s:g} s ({error})")
                return None

    def settle(self, notes: list[str]) -> None:
        """Until the page is quiet after an action, at most SETTLE_MS (settle.mjs: a frame
        with no DOM mutation and nothing pending; under Playwright's clock the same
        SETTLE_MS of the page's time every run), then until its load event. What it
        waited for is counted in ``settled`` (quiet or the cap)."""
        tab = self.live_tab
        if tab.virtual_time:  # (its time moves only when let: the same SETTLE_MS every run)
            tab.fast_forward(SETTLE_MS, HANG_S)
            self.settled["cap"] += 1
        else:
            try:
                answer = tab.isolated(SETTLE, {"capMs": SETTLE_MS, "nonce": tab.session.nonce}, HANG_S)
            except (browser.PageLost, browser.BrowserGone):
                raise
            except browser.BrowserError:  # (its document went, a navigation under way): the whole wait
                answer = None
                time.sleep(SETTLE_MS / 1000)
            self.settled["quiet" if isinstance(answer, dict) and answer.get("quiet") else "cap"] += 1
        # (a page that was still loading at the last look, at the same address, is
        # most likely the same endless load: waiting the full time again each step
        # would spend the app's time on nothing)
        still = self.never_loaded is not None and tab.url == self.never_loaded
        try:
            tab.wait_for_load(STILL_LOADING_S if still else min(self.config.step_timeout_s, 5.0))
            self.never_loaded = None
        except browser.PageLost:
            raise
        except browser.BrowserError:
            self.never_loaded = tab.url
            notes.append("the page was still loading when the step was recorded")

    def look(self, index: int, notes: list[str], listen: bool) -> observing.Observation:
        """What the page offers now; back on the start URL when it left the app.
        ``listen``: with the candidates' event listeners (measured apps)."""
        obs = observing.observe(self.live_tab, index, HANG_S, self.targets)
        if routing.origin_of(obs.url) != self.origin:
            notes.append(f"navigated away to {obs.url}; returned to the app")
            self.fresh(self.load_s(), notes)
            self.live_tab.pause(SETTLE_MS)
            obs = observing.observe(self.live_tab, index, HANG_S, self.targets)
        return self._listen(obs) if listen else obs

    def _listen(self, obs: observing.Observation) -> observing.Observation:
        """Attach the candidates' event listeners, reading only those of elements
        (and page-level listener types) not seen before in this document."""
        fresh = [c for c in obs.candidates if (obs.doc, c.ref) not in self.heard]
        page_key = (obs.doc, obs.global_listeners)
        if fresh or self.heard_page is None or self.heard_page[0] != page_key:
            with self.parts.timed("listeners"):
                self._hear(obs, fresh, page_key)
        return dataclasses.replace(
            obs, listeners={c.selector: self.heard.get((obs.doc, c.ref), ()) for c in obs.candidates},
            page_listeners=self.heard_page[1] if self.heard_page else ())

    def _hear(self, obs: observing.Observation, fresh: list[observing.Candidate],
              page_key: tuple[float, tuple[str, ...]]) -> None:
        """Read the listeners of ``fresh`` candidates and of the page (one DevTools call per object)."""
        try:
            per_element, page = inspecting.listeners(self.live_tab, [c.selector for c in fresh], HANG_S)
        except browser.PageLost:
            raise
        except browser.BrowserError:
            per_element, page = [() for _ in fresh], ()
        for c, heard in zip(fresh, per_element):
            self.heard[(obs.doc, c.ref)] = heard
        self.heard_page = (page_key, page)

    def lost(self, error: browser.PageLost, notes: list[str], after: str = "", counted: bool = True,
             why: tuple[str, ...] = ()) -> None:
        """A hung or crashed page: note it (and ``why`` it counts or not), count it,
        reload the app or stop. A fresh page that is lost too (its renderer may be the
        one that crashed) counts again. ``counted`` False: not the app's failure (a
        script of ours ran too long on a page that had just answered, or the app's
        original build answered the same action: verifying.py)."""
        while True:
            self.failures += 1 if counted else 0
            counted = True
            notes.append(f"{error}{after}")
            notes.extend(why)
            why = ()
            self.left()
            if self.failures >= MAX_PAGE_FAILURES:
                raise Stop(f"the page hung or crashed {self.failures} times")
            notes.append("opened a fresh page on the start URL")
            try:
                self.fresh(self.load_s(), notes)
                return
            except browser.PageLost as again:
                error, after = again, " (the fresh page)"
