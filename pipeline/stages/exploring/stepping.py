"""The exploration loop: load, then choose → act → record until a stop condition.

It owns the budget, the evidence and recovery (hung or crashed pages, navigation off
the app, popups); the policy only chooses. An app's defects end up in the trace —
never as an exception out of here. Browser calls go through kits/browser.py.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import json
import time
from typing import Callable, Iterator

from iwcbench.pipeline.contracts import artifacts, evidence, settings
from iwcbench.pipeline.kits import browser, browser_events, clock, inspecting
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.stages.exploring import acting, coverage as istanbul, crediting, observing
from iwcbench.pipeline.stages.exploring import policy as policies

HANG_S = 5.0  # a page that does not answer a script call for this long is hung
SETTLE_MS = 40  # after an action: let handlers, microtasks and a couple of frames run
SHOT_EVERY = 3  # a look that changed without a new state is shot at most every 3 steps
MAX_PAGE_FAILURES = 2  # hung or crashed pages tolerated before stopping
MAX_AXE_STATES = 25  # axe-core runs per exploration (one per new state)
AXE_LIMIT_S = 8.0
# axe-core's rules do not yield: on ~50,000 elements one run outlasts 13 s here, and
# only killing the renderer ends it. A page with more elements than this is not checked.
MAX_AXE_ELEMENTS = 15_000
PROBE_BUDGET_MS = 2500  # the probe gives up (the quality stage renders that state) past this
LOAD_SHARE = 1 / 3  # of what is left of the deadline: the most one page load may take
STILL_LOADING_S = 0.5  # a page whose load already never came is waited on this long per step
FLOOD_POPUPS = 10  # windows opened during a failed load that make it a window.open flood (CI counted 47 under load)


class Stop(Exception):
    """The exploration ends here; the message is the trace's stop_reason."""


@dataclasses.dataclass
class _After:
    """What one look at the page after an action found (nothing, when it was lost)."""

    obs: observing.Observation | None = None
    gain: float = 0.0  # kept when the look is lost: the coverage was read
    dom: str | None = None
    shot: str | None = None
    volatile: tuple[evidence.VolatileMark, ...] = ()
    stop: Stop | None = None

    def forget(self) -> None:
        self.obs, self.dom, self.shot, self.volatile = None, None, None, ()


class Explorer:
    def __init__(
        self,
        url: str,
        config: settings.Exploration,
        sink: Callable[[str, bytes], None],
        coverage_map: dict | None,
        chooser: policies.Policy,
        router: routing.Router | None,
        accessibility: bool,
        sites: dict | None = None,
        facts: dict | None = None,
        own_map: dict | None = None,
    ) -> None:
        self.url = url
        self.origin = routing.origin_of(url)
        self.config = config
        self.deadline = clock.Deadline.never()  # the app's: set by the stage (exploring.Options)
        self.never_loaded: str | None = None  # the URL of a page whose load event did not come
        self.virtual_time = False  # its tabs have Playwright's clock (set by the stage)
        # seconds spent per part of the steps (choose, act, settle, observe, coverage,
        # crediting, screenshot, snapshot, axe), each without the parts inside it: where
        # a step's time goes (hack/bench-explore, hack/bench)
        self.parts: collections.Counter[str] = collections.Counter()
        self._inside = 0.0  # seconds of the parts timed inside the one being timed
        self.sink = sink
        self.coverage_map = coverage_map
        # the app's own code (coverage_map without recognised library code)
        self.own_map = own_map if own_map is not None else coverage_map
        self.facts = facts
        self.policy = chooser
        self.router = router if router is not None else routing.OriginGuard(self.origin)
        self.accessibility = accessibility
        # (an element that is not actionable within 2 s will not be: do not wait longer)
        self.action_timeout_s = min(config.step_timeout_s, 2.0)
        self.steps: list[evidence.Step] = []
        self.coverage_base: dict = {}  # counters of documents already left
        self.coverage_live: dict | None = None  # counters of the current document
        self.coverage_doc: float | None = None
        self.sites = sites or {}  # where each counter sits in the served code (crediting.py)
        self.confirmed: set[crediting.Counter] = set()  # counters V8 saw run
        self._unconfirmed: dict = {}  # claimed, not confirmed, at the last V8 take
        self.forged_noted = 0
        self.summary = evidence.CoverageSummary()
        self.visuals: set[str] = set()
        self.shot_states: set[str] = set()
        self.last_shot = -SHOT_EVERY
        self.last_dom: tuple[bytes, str] | None = None  # digest and key of the last snapshot
        self.probes_left = 0  # new DOM snapshots still to probe for the quality stage (set by the stage)
        self.externals: set[str] = set()
        self.axe: dict[int, tuple[evidence.AxeViolation, ...]] = {}
        self.axe_version: str | None = None
        self.axe_error: str | None = None
        self.axe_states: set[str] = set()
        self.failures, self.overran = 0, False  # overran: a script of ours outlasted the watchdog
        self.mirrored: list[str] = []
        self.session: browser.Session | None = None
        self.tab: browser.Tab | None = None
        # (document, element ref) -> its listeners; (document, global types) -> the page's
        self.heard: dict[tuple[float, str], tuple[inspecting.Listener, ...]] = {}
        self.heard_page: tuple[tuple[float, tuple[str, ...]], tuple[inspecting.Listener, ...]] | None = None

    # ---- coverage ------------------------------------------------------------
    @property
    def instrumented(self) -> bool:
        return self.coverage_map is not None

    def coverage_claimed(self) -> dict:
        """Istanbul's counters as the page reported them (the page can write them)."""
        if self.coverage_live is None:
            return self.coverage_base
        return istanbul.merge(self.coverage_base, self.coverage_live)

    def coverage_total(self) -> dict:
        """The counters credited: those V8 saw run (stages/exploring/crediting.py)."""
        return crediting.credit(self.coverage_claimed(), self.confirmed)

    def _page_left(self) -> None:
        """The current document is gone: keep what it counted."""
        if self.coverage_live is not None:
            self.coverage_base = istanbul.merge(self.coverage_base, self.coverage_live)
        self.coverage_live, self.coverage_doc = None, None

    def _confirm(self, notes: list[str]) -> None:
        """Ask V8 what ran when the page claims counters V8 has not confirmed yet (or
        their counts moved since it was last asked)."""
        unconfirmed = {c: n for c, n in crediting.claims(self.coverage_claimed()).items()
                       if c not in self.confirmed}
        if unconfirmed and unconfirmed != self._unconfirmed:
            with self._timed("crediting"):
                self.confirmed |= crediting.confirmations(self.sites, self.tab.take_coverage(HANG_S))
            unconfirmed = {c: n for c, n in unconfirmed.items() if c not in self.confirmed}
        self._unconfirmed = unconfirmed
        if len(unconfirmed) > self.forged_noted:
            self.forged_noted = len(unconfirmed)
            notes.append(f"{len(unconfirmed)} coverage counters the page reports were not seen to run "
                         "by V8; they are not credited")

    def _read_coverage(self, obs: observing.Observation, notes: list[str]) -> float:
        if not self.instrumented:
            return 0.0
        before = self.summary.statements or 0.0
        try:
            snapshot = browser.read_coverage(self.tab, HANG_S)
        except browser.PageLost:
            raise
        except browser.BrowserError as error:
            # The page broke its own counters: it keeps what was credited so far (0 %
            # when nothing was), never "not measured".
            notes.append(f"coverage could not be read: {error}")
            snapshot = self.coverage_live if obs.doc == self.coverage_doc else None
        if obs.doc != self.coverage_doc:
            self._page_left()
        self.coverage_live, self.coverage_doc = snapshot, obs.doc
        self._confirm(notes)
        self.summary = istanbul.summarize_both(self.coverage_total(), self.coverage_map, self.own_map)
        return round((self.summary.statements or 0.0) - before, 4)

    # ---- routing ----------------------------------------------------------
    def _drain_router(self) -> tuple[str, ...]:
        blocked, mirrored = self.router.drain()
        self.mirrored.extend(mirrored)
        below = self.session.drain_network() if self.session else ()  # what routing never saw
        return tuple(dict.fromkeys((*blocked, *below)))

    # ---- the page ---------------------------------------------------------
    def _fresh_page(self, timeout_s: float, notes: list[str] | None = None) -> int | None:
        """A new tab on the start URL. A load that does not end in time is a note (the
        page is observed as it is), not a failure of ours; a lost page or browser is."""
        self._page_left()
        with self._timed("load"):
            self.tab = self.session.new_tab()
            try:
                return self.tab.goto(self.url, timeout_s)
            except (browser.PageLost, browser.BrowserGone):
                raise
            except browser.BrowserError as error:
                if notes is not None:
                    notes.append(f"the fresh page did not finish loading within {timeout_s:g} s ({error})")
                return None

    def _settle(self, notes: list[str]) -> None:
        # (the page runs on while this process sleeps: no browser round trip needed)
        time.sleep(SETTLE_MS / 1000)
        # (a page that was still loading at the last look, at the same address, is
        # most likely the same endless load: waiting the full time again each step
        # would spend the app's time on nothing)
        still = self.never_loaded is not None and self.tab.url == self.never_loaded
        try:
            self.tab.wait_for_load(STILL_LOADING_S if still else min(self.config.step_timeout_s, 5.0))
            self.never_loaded = None
        except browser.PageLost:
            raise
        except browser.BrowserError:
            self.never_loaded = self.tab.url
            notes.append("the page was still loading when the step was recorded")

    def _look(self, index: int, notes: list[str]) -> observing.Observation:
        obs = observing.observe(self.tab, index, HANG_S)
        if routing.origin_of(obs.url) != self.origin:
            notes.append(f"navigated away to {obs.url}; returned to the app")
            self._fresh_page(self.load_s(), notes)
            self.tab.pause(SETTLE_MS)
            obs = observing.observe(self.tab, index, HANG_S)
        return self._listen(obs) if self.instrumented else obs

    def _listen(self, obs: observing.Observation) -> observing.Observation:
        """Attach the candidates' event listeners, reading only those of elements
        (and page-level listener types) not seen before in this document."""
        fresh = [c for c in obs.candidates if (obs.doc, c.ref) not in self.heard]
        page_key = (obs.doc, obs.global_listeners)
        if fresh or self.heard_page is None or self.heard_page[0] != page_key:
            try:
                per_element, page = inspecting.listeners(self.tab, [c.selector for c in fresh], HANG_S)
            except browser.PageLost:
                raise
            except browser.BrowserError:
                per_element, page = [() for _ in fresh], ()
            for c, heard in zip(fresh, per_element):
                self.heard[(obs.doc, c.ref)] = heard
            self.heard_page = (page_key, page)
        return dataclasses.replace(
            obs, listeners={c.selector: self.heard.get((obs.doc, c.ref), ()) for c in obs.candidates},
            page_listeners=self.heard_page[1])

    def _lost(self, error: browser.PageLost, notes: list[str], after: str = "", counted: bool = True) -> None:
        """A hung or crashed page: note it, count it, reload the app or stop. A fresh
        page that is lost too (its renderer may be the one that crashed) counts again.
        ``counted`` False: the page was killed because a script of ours ran too long on
        it (it had just answered), which is not the app's failure."""
        while True:
            self.failures += 1 if counted else 0
            counted = True
            notes.append(f"{error}{after}")
            self._page_left()
            if self.failures >= MAX_PAGE_FAILURES:
                raise Stop(f"the page hung or crashed {self.failures} times")
            notes.append("opened a fresh page on the start URL")
            try:
                self._fresh_page(self.load_s(), notes)
                return
            except browser.PageLost as again:
                error, after = again, " (the fresh page)"

    def _accessibility(self, index: int, obs: observing.Observation, notes: list[str]) -> None:
        """axe-core on each new layout: what is on the page and where, not what its
        text says (a calculator's display or a timer makes a new state every step,
        never a new accessibility problem)."""
        layout = _layout(obs)
        if not self.accessibility or layout in self.axe_states or len(self.axe_states) >= MAX_AXE_STATES:
            return
        self.axe_states.add(layout)
        try:
            elements = self.tab.isolated("() => document.getElementsByTagName('*').length", None, HANG_S)
            if isinstance(elements, int) and elements > MAX_AXE_ELEMENTS:
                self.axe_error = self.axe_error or (f"step {index}: the page has {elements:,} elements, more "
                                                    f"than the {MAX_AXE_ELEMENTS:,} axe-core is run on")
                notes.append(f"axe-core not run: {elements:,} elements")
                return
            result = browser.inject_axe(self.tab, max(clock.MARGIN_S, self.deadline.cap(AXE_LIMIT_S)))
        except browser.PageHung as error:
            # axe-core's rules run without yielding, so its own time limit cannot stop
            # them on a page of tens of thousands of elements: not run again on this app
            self.accessibility, self.overran = False, True
            self.axe_error = self.axe_error or f"step {index}: axe-core ran too long ({error}); not run again"
            raise
        except browser.PageLost:
            raise
        except browser.BrowserError as error:
            self.axe_error = self.axe_error or f"step {index}: {error}"
            notes.append(f"axe-core failed: {error}")
            return
        self.axe_version = result.get("version")
        self.axe[index] = tuple(evidence.AxeViolation(**v) for v in result.get("violations", ()))

    def _snapshot(self, index: int) -> tuple[str, tuple[evidence.VolatileMark, ...]]:
        """The step's DOM snapshot and its volatile marks; a DOM identical to the last
        one is not stored again, the step names the earlier file."""
        data, volatile = observing.snapshot(self.tab, self.config.max_dom_bytes, HANG_S)
        digest = hashlib.sha1(data).digest()
        if self.last_dom is not None and self.last_dom[0] == digest:
            return self.last_dom[1], volatile
        key = f"dom/{index:04d}.html"
        self.sink(key, data)
        self.last_dom = (digest, key)
        if self.probes_left > 0:
            self.probes_left -= 1
            with self._timed("probe"):
                self._probe(key)
        return key, volatile

    def _probe(self, dom: str) -> None:
        """The probe's facts of the live page beside its new snapshot (artifacts.PROBES),
        so that the quality stage need not render the snapshot again. Nothing when the
        page is scrolled and has a fixed or sticky box, or the probe fails: the stage
        renders that state itself."""
        try:
            facts = inspecting.probe(self.tab, HANG_S + PROBE_BUDGET_MS / 1000, PROBE_BUDGET_MS)
        except browser.PageHung:
            self.probes_left, self.overran = 0, True
            raise
        except (browser.PageLost, browser.BrowserGone):
            raise
        except browser.BrowserError:
            return
        if facts is inspecting.OVER_BUDGET:
            self.probes_left = 0  # a page this heavy: the stage renders its states
        elif facts is not None:
            self.sink(artifacts.probe_of(dom), json.dumps(facts, separators=(",", ":")).encode())

    def _shoot(self, index: int, obs: observing.Observation) -> bool:
        """A screenshot for each new state; for a new look of a known state (typed
        text, an animating canvas) at most one every SHOT_EVERY steps."""
        if obs.visual in self.visuals:
            return False
        if obs.state in self.shot_states and index - self.last_shot < SHOT_EVERY:
            return False
        self.visuals.add(obs.visual)
        self.shot_states.add(obs.state)
        self.last_shot = index
        return True

    def _observe(self, index: int, action: evidence.Action, ok: bool, notes: list[str],
                 lost: browser.PageLost | None) -> _After:
        """The page after an action: observed, its coverage read, a screenshot when it
        looks new, its DOM snapshot and axe-core's look. A Stop is handed back, and so is the
        browser's end (it would not open a fresh page): the step is recorded all the same."""
        after = _After()
        try:
            if lost is not None:
                self._lost(lost, notes, f" (after {action.label()})")
            for attempt in range(2):
                try:
                    if ok and attempt == 0:
                        with self._timed("settle"):
                            self._settle(notes)
                    with self._timed("observe"):
                        after.obs = self._look(index, notes)
                    with self._timed("coverage"):
                        after.gain = self._read_coverage(after.obs, notes)
                    if self._shoot(index, after.obs):
                        after.shot = f"shots/{index:04d}.png"
                        with self._timed("screenshot"):
                            self.sink(after.shot, browser.screenshot(self.tab, HANG_S))
                    # After the screenshot, which spends part of the idle window the
                    # snapshot waits for; before axe-core, which must not be in it.
                    with self._timed("snapshot"):
                        after.dom, after.volatile = self._snapshot(index)
                    with self._timed("axe"):
                        self._accessibility(index, after.obs, notes)
                    break
                except browser.PageLost as again:
                    after.forget()
                    ours, self.overran = self.overran, False
                    # raises Stop, or gives a fresh page to look at
                    self._lost(again, notes, f" (after {action.label()})" if index else " (while loading)",
                               counted=not ours)
                except browser.BrowserGone:
                    raise
                except browser.BrowserError as failed:
                    # Our scripts run where the page cannot reach them: what is left
                    # to fail is the page itself (its DOM, its document).
                    after.forget()
                    notes.append(f"the page could not be observed: {failed}")
                    break
        except Stop as reason:
            after.forget()
            after.stop = reason
        except browser.BrowserGone as gone:  # (a fresh page would not open): the step is still recorded
            after.forget()
            after.stop = Stop(f"the browser stopped: {gone}")
        return after

    def record(
        self, index: int, action: evidence.Action, ok: bool, error: str | None,
        notes: list[str], started: float, lost: browser.PageLost | None = None,
    ) -> tuple[evidence.Step, observing.Observation | None]:
        """Observe the page after an action and store the step's evidence. A Stop
        raised on the way is re-raised after the step is recorded."""
        after = self._observe(index, action, ok, notes, lost)
        obs, gain, dom, shot, volatile, stop = after.obs, after.gain, after.dom, after.shot, after.volatile, after.stop
        events = self.session.drain()
        if events.crashed and not any("crash" in n or "responding" in n for n in notes):
            notes.append("the page crashed")
        for link in obs.external_links if obs else ():
            if link not in self.externals:
                self.externals.add(link)
                notes.append(f"external link not followed: {link}")
        step = evidence.Step(
            index=index, action=action, ok=ok, error=error,
            url=obs.url if obs else (self.tab.url if self.tab else self.url),
            dom=dom, screenshot=shot, coverage=self.summary, coverage_gain=gain,
            console_errors=tuple(m for m in events.console_errors if "ERR_BLOCKED_BY_CLIENT" not in m),
            page_errors=tuple(events.page_errors), unlisted=evidence.Unlisted.of(events.unlisted),
            blocked_requests=self._drain_router(),
            dialogs=tuple(events.dialogs), notes=tuple(notes + events.notes), volatile=volatile,
            duration_s=round(time.monotonic() - started, 3),
        )
        self.steps.append(step)
        if stop is not None:
            raise stop
        return step, obs

    # ---- the run ----------------------------------------------------------
    def load(self, note: str | None = None) -> tuple[str | None, observing.Observation | None]:
        """Step 0 (``note`` goes into its notes). Returns (load_error, observation)."""
        started, notes = time.monotonic(), [self.session.isolation] + ([note] if note else [])
        action = evidence.Action(kind="load", target=self.url)
        self.tab = self.session.new_tab()
        limit = self.load_s()
        try:
            status = self.tab.goto(self.url, limit)
        except browser.PageLost as error:
            return self._load_failed(action, started, f"{error} (while loading)")
        except browser.BrowserError as error:
            if "Timeout" not in str(error):
                return self._load_failed(action, started, str(error))
            try:  # the load event never came: is the page alive at all?
                observing.observe(self.tab, 0, HANG_S)
            except browser.PageHung:
                if self.session.popups >= FLOOD_POPUPS:
                    return self._load_failed(action, started, (
                        f"the page kept opening windows (a window.open flood: {self.session.popups} "
                        f"popups closed) and did not finish loading within "
                        f"{limit:g} s; the renderer was killed"))
                return self._load_failed(action, started, (
                    f"the page did not finish loading within {limit:g} s and "
                    f"its scripts never yielded (an endless loop?); the renderer was killed"))
            except browser.BrowserError as failed:
                return self._load_failed(action, started, f"the page did not finish loading within "
                                         f"{limit:g} s: {failed}")
            notes.append(f"the load event did not fire within {limit:g} s")
            self.never_loaded = self.tab.url
            status = None
        if status is not None and status >= 400:
            return self._load_failed(action, started, f"HTTP {status} for {self.url}")
        try:
            step, obs = self.record(0, action, True, None, notes, started)
        except Stop as stop:
            return self._load_failed(action, started, str(stop))
        if obs is None:
            return self._load_failed(action, started, "; ".join(step.notes) or "the page was lost")
        return None, obs

    def _load_failed(self, action: evidence.Action, started: float, reason: str):
        events = self.session.drain() if self.session else browser_events.Events()
        self.steps = [evidence.Step(
            index=0, action=action, ok=False, error=reason, url=self.url,
            console_errors=tuple(events.console_errors), page_errors=tuple(events.page_errors),
            unlisted=evidence.Unlisted.of(events.unlisted),
            dialogs=tuple(events.dialogs), notes=(self.session.isolation, *events.notes) if self.session
            else tuple(events.notes), blocked_requests=self._drain_router(),
            duration_s=round(time.monotonic() - started, 3))]
        return reason, None

    @contextlib.contextmanager
    def _timed(self, part: str) -> Iterator[None]:
        """Time ``part``; a part timed inside it counts for itself, not twice."""
        began, outer = time.monotonic(), self._inside
        self._inside = 0.0
        try:
            yield
        finally:
            spent = time.monotonic() - began
            self.parts[part] += spent - self._inside
            self._inside = outer + spent

    def load_s(self) -> float:
        """Seconds a page load may take now: the load timeout, or a third of what is
        left of the app's deadline when that is less (so that a page whose load event
        never comes is still explored), and at least a second, so that a reload can
        still be tried."""
        share = self.deadline.left() * LOAD_SHARE
        return round(max(clock.MARGIN_S, min(self.config.load_timeout_s, share)), 1)

    def loop(self, obs: observing.Observation, deadline: float, started: float) -> str:
        """Steps 1..max_steps. Returns the stop reason."""
        config = self.config
        for index in range(1, config.max_steps + 1):
            if time.monotonic() >= deadline:
                return f"time limit {config.app_timeout_s:g} s"
            obs = dataclasses.replace(
                obs, step=index, coverage=self.summary, elapsed_s=round(time.monotonic() - started, 3),
                budget_left=config.max_steps - index + 1)
            with self._timed("choose"):
                action = self.policy.choose(obs)
            if action is None:
                return "the policy had nothing left to try"
            if action.kind == "finish":
                if self.policy.name == "heuristic" and action.intent:
                    return action.intent  # the heuristic's own stop rule, worded as such
                return "the explorer declared testing complete" + (f": {action.intent}" if action.intent else "")
            step_started, notes = time.monotonic(), []
            ok, error = True, None
            lost: browser.PageLost | None = None
            try:
                with self._timed("act"):
                    acting.perform(self.tab, action, self.action_timeout_s, self.url)
            except browser.PageLost as gone:
                ok, error, lost = False, str(gone), gone
            except browser.BrowserGone:
                raise
            except browser.BrowserError as failed:
                ok, error = False, str(failed)
            step, after = self.record(index, action, ok, error, notes, step_started, lost)
            self.policy.observe(step, after)
            if after is None:
                return "the page could not be observed"
            obs = after
        return f"budget of {config.max_steps} steps used"


def _layout(obs: observing.Observation) -> str:
    """What is on the page and where it is: the page's address and title and the
    kinds of its controls, without their text."""
    kinds = sorted({(c.tag, c.role, c.type, c.kinds, c.item is not None) for c in obs.candidates})
    where = obs.url.split("?", 1)[0]
    return hashlib.sha1(repr((where, obs.title, obs.canvases, kinds)).encode()).hexdigest()
