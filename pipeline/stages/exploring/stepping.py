"""The exploration loop: load, then choose → act → record until a stop condition.

A small loop over three parts built once from typed inputs: the page (paging.Page:
the tab, settling, looking, recovery from hung or crashed pages and from navigation
off the app), the coverage (tracking.Tracker: counters credited where V8 saw code
run) and the recorder (recording.Recorder: screenshots, snapshots, probes, axe-core).
It owns the budget and the steps; the policy only chooses. An app's defects end up in
the trace — never as an exception out of here. Browser calls go through kits/browser.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

from iwcbench.pipeline.contracts import evidence, settings
from iwcbench.pipeline.kits import browser, browser_events, lanes
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.stages.exploring import acting, observing, paging, policy as policies, recording, timing
from iwcbench.pipeline.stages.exploring import tracking, verifying

HANG_S = paging.HANG_S
Stop = paging.Stop
LANE_WAIT_S = 15.0  # the longest a step waits for another worker's Lighthouse (then it goes on)
FLOOD_POPUPS = 10  # windows opened during a failed load that make it a window.open flood (CI counted 47 under load)


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Everything one explorer is built from."""

    where: paging.Where  # the start URL, the settings, the app's deadline
    keeping: recording.Keeping  # where evidence goes and what is recorded
    chooser: policies.Policy
    router: routing.Router
    measured: tracking.Measured | None  # None: black box (no coverage is read)
    virtual_time: bool = False  # its tabs have Playwright's clock
    # the app's files as they came (served path -> bytes): what a hang is checked
    # against before it counts as the app's (verifying.py); empty: nothing to check
    originals: dict[str, bytes] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _After:
    """What one look at the page after an action found (nothing, when it was lost)."""

    obs: observing.Observation | None = None
    gain: float = 0.0  # kept when the look is lost: the coverage was read
    dom: str | None = None
    shot: str | None = None
    volatile: tuple[evidence.VolatileMark, ...] = ()
    drawing: bool = False  # the canvases drew while nobody acted
    stop: Stop | None = None

    def forget(self) -> None:
        self.obs, self.dom, self.shot, self.volatile, self.drawing = None, None, None, (), False

    @property
    def looks(self) -> evidence.Looks | None:
        """What the step left beside its DOM (None: the page was not read after it)."""
        if self.obs is None or self.dom is None:
            return None
        obs = self.obs
        return evidence.Looks(kept=obs.kept, pixels=obs.pixels, unread=obs.unread,
                              drawing=self.drawing)


class Explorer:
    """One exploration's loop over its page, coverage and recorder."""

    def __init__(self, inputs: Inputs, session: browser.Session | None) -> None:
        self.inputs = inputs
        self.config: settings.Exploration = inputs.where.config
        self.policy = inputs.chooser
        self.virtual_time = inputs.virtual_time
        self.timing = timing.Parts()
        self.coverage = tracking.Tracker(inputs.measured, self.timing)
        self.page = paging.Page(inputs.where, session, inputs.router, self.coverage.page_left, self.timing)
        if inputs.measured is not None:
            self.page.targets = tracking.targets(inputs.measured.facts)
        self.recorder = recording.Recorder(inputs.keeping, self.page, self.timing)
        self.harness = verifying.Harness(inputs.originals if inputs.measured is not None else None)
        # (an element that is not actionable within 2 s will not be: do not wait longer)
        self.action_timeout_s = min(self.config.step_timeout_s, 2.0)
        self.steps: list[evidence.Step] = []

    @property
    def instrumented(self) -> bool:
        return self.inputs.measured is not None

    def _observe(self, index: int, action: evidence.Action, ok: bool, notes: list[str],
                 lost: browser.PageLost | None) -> _After:
        """The page after an action: observed, its coverage read, a screenshot when it
        looks new, its DOM snapshot and axe-core's look. A Stop is handed back, and so is the
        browser's end (it would not open a fresh page): the step is recorded all the same."""
        page, timed = self.page, self.timing.timed
        after = _After()
        try:
            if lost is not None:
                self._recover(index, action, lost, notes, f" (after {action.label()})")
            for attempt in range(2):
                try:
                    if ok and attempt == 0:
                        with timed("settle"):
                            page.settle(notes)
                    with timed("observe"):
                        after.obs = page.look(index, notes, listen=self.instrumented)
                    with timed("coverage"):
                        after.gain = self.coverage.read(page.live_tab, after.obs, notes)
                    after.shot = self.recorder.shoot(index, after.obs)
                    # After the screenshot, which spends part of the idle window the
                    # snapshot waits for; before axe-core, which must not be in it.
                    with timed("snapshot"):
                        after.dom, taken = self.recorder.snapshot(index, after.obs.pixels or None)
                        after.volatile, after.drawing = taken.volatile, taken.drawing
                    with timed("axe"):
                        self.recorder.check_accessibility(index, after.obs, notes)
                    break
                except browser.PageLost as again:
                    after.forget()
                    ours, page.overran = page.overran, False
                    # raises Stop, or gives a fresh page to look at
                    self._recover(index, action, again, notes,
                                  f" (after {action.label()})" if index else " (while loading)", counted=not ours)
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

    def _recover(self, index: int, action: evidence.Action, error: browser.PageLost, notes: list[str],
                 after: str, counted: bool = True) -> None:
        """A lost page: counted as the app's only when its original build fails the same
        action too (verifying.py); otherwise the harness is lightened and it is not."""
        why: tuple[str, ...] = ()
        if counted and self.harness.checkable(self.page):
            with self.timing.timed("verify"):
                verdict = verifying.original(self.page, self.harness.originals, action, self.action_timeout_s)
            why = (verdict.detail,)
            if not verdict.apps:
                if self.harness.lightenable:
                    why += (self.harness.lighten(index, self.page, self.coverage, str(error)),)
                counted = False
        self.page.lost(error, notes, after, counted, why)

    def record(
        self, index: int, action: evidence.Action, ok: bool, error: str | None,
        notes: list[str], started: float, lost: browser.PageLost | None = None, on_canvas: bool | None = None,
        choice: evidence.Choice | None = None,
    ) -> tuple[evidence.Step, observing.Observation | None]:
        """Observe the page after an action and store the step's evidence. A Stop
        raised on the way is re-raised after the step is recorded. ``on_canvas``: the
        action's element is a canvas (``evidence.Step.on_canvas``)."""
        after = self._observe(index, action, ok, notes, lost)
        obs, page = after.obs, self.page
        events = page.live_session.drain()
        if events.crashed and not any("crash" in n or "responding" in n for n in notes):
            notes.append("the page crashed")
        self.recorder.external_links(obs, notes)
        step = evidence.Step(
            index=index, action=action, ok=ok, error=error,
            url=obs.url if obs else (page.tab.url if page.tab else page.url),
            dom=after.dom, screenshot=after.shot, coverage=self.coverage.summary, coverage_gain=after.gain,
            console_errors=tuple(m for m in events.console_errors if "ERR_BLOCKED_BY_CLIENT" not in m),
            page_errors=tuple(events.page_errors), unlisted=evidence.Unlisted.of(events.unlisted),
            blocked_requests=page.drain_router(),
            dialogs=tuple(events.dialogs), notes=tuple(notes + events.notes), volatile=after.volatile,
            looks=after.looks, requests=events.requests, on_canvas=on_canvas, choice=choice, duration_s=round(time.monotonic() - started, 3),
        )
        self.steps.append(step)
        if after.stop is not None:
            raise after.stop
        return step, obs

    # ---- the run ----------------------------------------------------------
    def load(self, note: str | None = None) -> tuple[str | None, observing.Observation | None]:
        """Step 0 (``note`` goes into its notes). Returns (load_error, observation)."""
        page = self.page
        session = page.live_session
        started, notes = time.monotonic(), [session.isolation] + ([note] if note else [])
        action = evidence.Action(kind="load", target=page.url)
        try:
            page.tab = session.new_tab()
        except browser.PageLost:  # (the renderer of an earlier page of the app went down with it: once more)
            try:
                page.tab = session.new_tab()
            except browser.PageLost as error:
                return self._load_failed(action, started, f"{error} (twice, before the app's page loaded)")
        limit = page.load_s()
        try:
            status = page.tab.goto(page.url, limit)
        except browser.PageLost as error:
            return self._load_failed(action, started, f"{error} (while loading)")
        except browser.BrowserError as error:
            if "Timeout" not in str(error):
                return self._load_failed(action, started, str(error))
            try:  # the load event never came: is the page alive at all?
                observing.observe(page.tab, 0, HANG_S)
            except browser.PageHung:
                if session.popups >= FLOOD_POPUPS:
                    return self._load_failed(action, started, (
                        f"the page kept opening windows (a window.open flood: {session.popups} "
                        f"popups closed) and did not finish loading within "
                        f"{limit:g} s; the renderer was killed"))
                return self._load_failed(action, started, (
                    f"the page did not finish loading within {limit:g} s and "
                    f"its scripts never yielded (an endless loop?); the renderer was killed"))
            except browser.BrowserError as failed:
                return self._load_failed(action, started, f"the page did not finish loading within "
                                         f"{limit:g} s: {failed}")
            notes.append(f"the load event did not fire within {limit:g} s")
            page.never_loaded = page.tab.url
            status = None
        if status is not None and status >= 400:
            return self._load_failed(action, started, f"HTTP {status} for {page.url}")
        try:
            step, obs = self.record(0, action, True, None, notes, started)
        except Stop as stop:
            return self._load_failed(action, started, str(stop))
        if obs is None:
            return self._load_failed(action, started, "; ".join(step.notes) or "the page was lost")
        return None, obs

    def _load_failed(self, action: evidence.Action, started: float, reason: str) -> tuple[str, None]:
        session = self.page.session
        events = session.drain() if session else browser_events.Events()
        self.steps = [evidence.Step(
            index=0, action=action, ok=False, error=reason, url=self.page.url,
            console_errors=tuple(events.console_errors), page_errors=tuple(events.page_errors),
            unlisted=evidence.Unlisted.of(events.unlisted),
            dialogs=tuple(events.dialogs), notes=(session.isolation, *events.notes) if session
            else tuple(events.notes), blocked_requests=self.page.drain_router(),
            duration_s=round(time.monotonic() - started, 3))]
        return reason, None

    def _step(self, index: int, action: evidence.Action,
              before: observing.Observation) -> tuple[evidence.Step, observing.Observation | None]:
        """Act on the page ``before`` showed, then record what came of it."""
        step_started = time.monotonic()
        notes: list[str] = []
        ok, error = True, None
        lost: browser.PageLost | None = None
        try:
            with self.timing.timed("act"):
                acting.perform(self.page.live_tab, action, self.action_timeout_s, self.page.url)
        except browser.PageLost as gone:
            ok, error, lost = False, str(gone), gone
        except browser.BrowserGone:
            raise
        except browser.BrowserError as failed:
            ok, error = False, str(failed)
        return self.record(index, action, ok, error, notes, step_started, lost, before.on_canvas(action),
                           self.policy.choice())

    def loop(self, obs: observing.Observation, deadline: float, started: float) -> str:
        """Steps 1..max_steps. Returns the stop reason."""
        config, timed = self.config, self.timing.timed
        for index in range(1, config.max_steps + 1):
            if time.monotonic() >= deadline:
                return f"time limit {config.app_timeout_s:g} s"
            obs = dataclasses.replace(
                obs, step=index, coverage=self.coverage.summary, elapsed_s=round(time.monotonic() - started, 3),
                budget_left=config.max_steps - index + 1)
            with timed("choose"):
                action = self.policy.choose(obs)
            if action is None:
                return "the policy had nothing left to try"
            if action.kind == "finish":
                if self.policy.name == "heuristic" and action.intent:
                    return action.intent  # the heuristic's own stop rule, worded as such
                return "the explorer declared testing complete" + (f": {action.intent}" if action.intent else "")
            with contextlib.ExitStack() as lane:
                with timed("lane"):  # (not while another worker's Lighthouse measures time)
                    lane.enter_context(lanes.beside(lanes.MEASURE, LANE_WAIT_S))
                step, after = self._step(index, action, obs)
            self.policy.observe(step, after)
            if after is None:
                return "the page could not be observed"
            obs = after
        return f"budget of {config.max_steps} steps used"
