"""The exploration loop: load, then choose → act → record until a stop condition.

It owns the budget, the evidence and recovery (hung or crashed pages, navigation off
the app, popups); the policy only chooses. An app's defects end up in the trace —
never as an exception out of here. Browser calls go through kits/browser.py.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from iwcbench.pipeline.contracts import evidence, settings
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import acting, coverage as istanbul, crediting, observing
from iwcbench.pipeline.stages.exploring import policy as policies

HANG_S = 5.0  # a page that does not answer a script call for this long is hung
SETTLE_MS = 150  # after an action: let handlers, timers and transitions run
MAX_PAGE_FAILURES = 2  # hung or crashed pages tolerated before stopping
MAX_AXE_STATES = 25  # axe-core runs per exploration (one per new state)
AXE_LIMIT_S = 8.0
FLOOD_POPUPS = 50  # windows opened during a failed load that make it a window.open flood


class Stop(Exception):
    """The exploration ends here; the message is the trace's stop_reason."""


class Explorer:
    def __init__(
        self,
        url: str,
        config: settings.Exploration,
        sink: Callable[[str, bytes], None],
        coverage_map: dict | None,
        chooser: policies.Policy,
        router: browser.Router | None,
        accessibility: bool,
        sites: dict | None = None,
    ) -> None:
        self.url = url
        self.origin = browser.origin_of(url)
        self.config = config
        self.sink = sink
        self.coverage_map = coverage_map
        self.policy = chooser
        self.router = router if router is not None else browser.OriginGuard(self.origin)
        self.accessibility = accessibility
        self.action_timeout_s = min(config.step_timeout_s, 3.0)
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
        self.states: set[str] = set()
        self.known_actions: set[str] = set()
        self.done: set[tuple[str, str]] = set()  # (state, "kind|selector") performed there
        self.externals: set[str] = set()
        self.axe: dict[int, tuple[evidence.AxeViolation, ...]] = {}
        self.axe_version: str | None = None
        self.axe_error: str | None = None
        self.axe_states: set[str] = set()
        self.failures = 0
        self.mirrored: list[str] = []
        self.session: browser.Session | None = None
        self.tab: browser.Tab | None = None

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
        self.summary = istanbul.summarize(self.coverage_total(), self.coverage_map)
        return round((self.summary.statements or 0.0) - before, 4)

    # ---- routing ----------------------------------------------------------
    def _drain_router(self) -> tuple[str, ...]:
        blocked, mirrored = self.router.drain()
        self.mirrored.extend(mirrored)
        below = self.session.drain_network() if self.session else ()  # what routing never saw
        return tuple(dict.fromkeys((*blocked, *below)))

    # ---- the page ---------------------------------------------------------
    def _fresh_page(self, timeout_s: float) -> int | None:
        self._page_left()
        self.tab = self.session.new_tab()
        return self.tab.goto(self.url, timeout_s)

    def _settle(self, notes: list[str]) -> None:
        try:
            self.tab.wait_for_load(min(self.config.step_timeout_s, 5.0))
        except browser.PageLost:
            raise
        except browser.BrowserError:
            notes.append("the page was still loading when the step was recorded")
        self.tab.pause(SETTLE_MS)

    def _look(self, index: int, notes: list[str]) -> observing.Observation:
        obs = observing.observe(self.tab, index, HANG_S)
        if browser.origin_of(obs.url) != self.origin:
            notes.append(f"navigated away to {obs.url}; returned to the app")
            self._fresh_page(self.config.load_timeout_s)
            self.tab.pause(SETTLE_MS)
            obs = observing.observe(self.tab, index, HANG_S)
        return obs

    def _lost(self, error: browser.PageLost, notes: list[str], after: str = "") -> None:
        """A hung or crashed page: note it, count it, reload the app or stop."""
        self.failures += 1
        notes.append(f"{error}{after}")
        self._page_left()
        if self.failures >= MAX_PAGE_FAILURES:
            raise Stop(f"the page hung or crashed {self.failures} times")
        notes.append("opened a fresh page on the start URL")
        self._fresh_page(self.config.load_timeout_s)

    def _accessibility(self, index: int, obs: observing.Observation, notes: list[str]) -> None:
        if not self.accessibility or obs.state in self.axe_states or len(self.axe_states) >= MAX_AXE_STATES:
            return
        self.axe_states.add(obs.state)
        try:
            result = browser.inject_axe(self.tab, AXE_LIMIT_S)
        except browser.PageLost:
            raise
        except browser.BrowserError as error:
            self.axe_error = self.axe_error or f"step {index}: {error}"
            notes.append(f"axe-core failed: {error}")
            return
        self.axe_version = result.get("version")
        self.axe[index] = tuple(evidence.AxeViolation(**v) for v in result.get("violations", ()))

    def record(
        self, index: int, action: evidence.Action, ok: bool, error: str | None,
        notes: list[str], started: float, lost: browser.PageLost | None = None,
    ) -> tuple[evidence.Step, observing.Observation | None]:
        """Observe the page after an action and store the step's evidence. A Stop
        raised on the way is re-raised after the step is recorded."""
        obs: observing.Observation | None = None
        gain, dom, shot = 0.0, None, None
        volatile: tuple[evidence.VolatileMark, ...] = ()
        stop: Stop | None = None
        try:
            if lost is not None:
                self._lost(lost, notes, f" (after {action.label()})")
            for attempt in range(2):
                try:
                    if ok and attempt == 0:
                        self._settle(notes)
                    obs = self._look(index, notes)
                    gain = self._read_coverage(obs, notes)
                    if obs.visual not in self.visuals:
                        self.visuals.add(obs.visual)
                        shot = f"shots/{index:04d}.png"
                        self.sink(shot, browser.screenshot(self.tab, HANG_S))
                    # After the screenshot, which spends part of the idle window the
                    # snapshot waits for; before axe-core, which must not be in it.
                    dom = f"dom/{index:04d}.html"
                    html, volatile = observing.snapshot(self.tab, self.config.max_dom_bytes, HANG_S)
                    self.sink(dom, html)
                    self._accessibility(index, obs, notes)
                    break
                except browser.PageLost as again:
                    obs, dom, shot, volatile = None, None, None, ()
                    # raises Stop, or gives a fresh page to look at
                    self._lost(again, notes, f" (after {action.label()})" if index else " (while loading)")
                except browser.BrowserGone:
                    raise
                except browser.BrowserError as failed:
                    # Our scripts run where the page cannot reach them: what is left
                    # to fail is the page itself (its DOM, its document).
                    obs, dom, shot, volatile = None, None, None, ()
                    notes.append(f"the page could not be observed: {failed}")
                    break
        except Stop as reason:
            obs, dom, shot, stop, volatile = None, None, None, reason, ()
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
            page_errors=tuple(events.page_errors), blocked_requests=self._drain_router(),
            dialogs=tuple(events.dialogs), notes=tuple(notes + events.notes), volatile=volatile,
            duration_s=round(time.monotonic() - started, 3),
        )
        self.steps.append(step)
        if stop is not None:
            raise stop
        return step, obs

    def novel(self, step: evidence.Step, obs: observing.Observation | None) -> bool:
        """Did this step find anything new (state, coverage, or an action to try)?"""
        if obs is None:
            return False
        actions = {f"{k}|{c.selector}" for c in obs.candidates for k in c.kinds}
        new = obs.state not in self.states or step.coverage_gain > 0 or not actions <= self.known_actions
        self.states.add(obs.state)
        self.known_actions |= actions
        return new

    def untried(self, obs: observing.Observation) -> bool:
        """Does the page offer an element action not yet performed in this state?"""
        return any((obs.state, f"{kind}|{c.selector}") not in self.done
                   for c in obs.candidates if not c.external for kind in c.kinds)

    # ---- the run ----------------------------------------------------------
    def load(self) -> tuple[str | None, observing.Observation | None]:
        """Step 0. Returns (load_error, observation)."""
        started, notes = time.monotonic(), [self.session.isolation]
        action = evidence.Action(kind="load", target=self.url)
        self.tab = self.session.new_tab()
        try:
            status = self.tab.goto(self.url, self.config.load_timeout_s)
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
                        f"{self.config.load_timeout_s:g} s; the renderer was killed"))
                return self._load_failed(action, started, (
                    f"the page did not finish loading within {self.config.load_timeout_s:g} s and "
                    f"its scripts never yielded (an endless loop?); the renderer was killed"))
            except browser.BrowserError as failed:
                return self._load_failed(action, started, f"the page did not finish loading within "
                                         f"{self.config.load_timeout_s:g} s: {failed}")
            notes.append(f"the load event did not fire within {self.config.load_timeout_s:g} s")
            status = None
        if status is not None and status >= 400:
            return self._load_failed(action, started, f"HTTP {status} for {self.url}")
        try:
            step, obs = self.record(0, action, True, None, notes, started)
        except Stop as stop:
            return self._load_failed(action, started, str(stop))
        if obs is None:
            return self._load_failed(action, started, "; ".join(step.notes) or "the page was lost")
        self.novel(step, obs)
        return None, obs

    def _load_failed(self, action: evidence.Action, started: float, reason: str):
        events = self.session.drain() if self.session else browser.Events()
        self.steps = [evidence.Step(
            index=0, action=action, ok=False, error=reason, url=self.url,
            console_errors=tuple(events.console_errors), page_errors=tuple(events.page_errors),
            dialogs=tuple(events.dialogs), notes=(self.session.isolation, *events.notes) if self.session
            else tuple(events.notes), blocked_requests=self._drain_router(),
            duration_s=round(time.monotonic() - started, 3))]
        return reason, None

    def loop(self, obs: observing.Observation, deadline: float, started: float) -> str:
        """Steps 1..max_steps. Returns the stop reason."""
        config = self.config
        idle = 0
        for index in range(1, config.max_steps + 1):
            if time.monotonic() >= deadline:
                return f"time limit {config.app_timeout_s:g} s"
            obs = dataclasses.replace(
                obs, step=index, coverage=self.summary, elapsed_s=round(time.monotonic() - started, 3),
                budget_left=config.max_steps - index + 1)
            action = self.policy.choose(obs)
            if action is None:
                return "the policy had nothing left to try"
            if action.kind == "finish":
                return "the explorer declared testing complete"
            step_started, notes = time.monotonic(), []
            ok, error = True, None
            lost: browser.PageLost | None = None
            try:
                acting.perform(self.tab, action, self.action_timeout_s, self.url)
            except browser.PageLost as gone:
                ok, error, lost = False, str(gone), gone
            except browser.BrowserGone:
                raise
            except browser.BrowserError as failed:
                ok, error = False, str(failed)
            if action.selector:
                self.done.add((obs.state, f"{action.kind}|{action.selector}"))
            step, after = self.record(index, action, ok, error, notes, step_started, lost)
            self.policy.observe(step, after)
            if after is None:
                return "the page could not be observed"
            obs = after
            idle = 0 if self.novel(step, after) else idle + 1
            # (not while this state still offers something never tried in it)
            if self.policy.name == "heuristic" and idle >= config.stop_after_idle_steps and not self.untried(after):
                return f"nothing new reachable after {idle} steps"
        return f"budget of {config.max_steps} steps used"
