"""The explore stage: drive a served app in real Chromium and record what happens.

``explore(url, settings, sink, ...)`` returns an ``Exploration`` (trace, axe-core
report, final Istanbul coverage). Evidence files go through ``sink`` as they are
made. Decisions come from a ``policy.Policy`` (the offline ``heuristic`` by default;
the LLM tester plugs in through the same protocol). It must not import other stages,
and an app's defect never escapes as an exception: it is in the trace.

Modules: starting (the first load: fallback to the original build, blank pages,
load times), stepping (the loop over its parts: paging — the tab and its recovery,
tracking — the coverage, recording — the evidence, timing — where the time goes,
verifying — whether a lost page is the app's failure or the harness's),
observing + observe.mjs (what the page offers; naming.mjs: what an element is called), acting (doing an action), policy
(the protocol), heuristic (the default: offering — its options, memory — what it
remembers) with values, rules, playing (keys, waits, positions), reaching (what of
the code never ran and what could run it) and steering (which actions lead there), clicker (the
seeded random baseline, ``--explorer random``), coverage (Istanbul math), crediting
(only what V8 saw run counts), guidance (plateau help for the LLM tester), assisted
(the heuristic, handing the LLM tester a few steps where coverage stalls).
uitest_policy (WebGen-Bench's GUI agent: the only policy that sees a test case) and
replay_policy (playing a stored passing case back) are driven by the same loop, one
test case per ``explore`` call (runs/uitests.py).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.contracts import evidence, instrumented as instrumented_mod, servers
from iwcbench.pipeline.kits import browser, clock
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.stages.exploring import clicker, coverage, crediting, heuristic, policy as policies
from iwcbench.pipeline.stages.exploring import observing, paging, recording, starting, stepping, tracking


@dataclasses.dataclass(frozen=True)
class Exploration:
    trace: evidence.Trace
    a11y: evidence.AccessibilityReport
    coverage: dict  # final merged Istanbul coverage; {} in black box
    fallback: str | None = None  # "instrumented build failed to load: …": the original was explored
    blank: str | None = None  # why the page shows nothing (the exploration stopped at the load)
    load_time_s: float | None = None  # to the load event, warm: the instrumented build
    original_load_time_s: float | None = None  # and the original build
    parts: dict[str, float] = dataclasses.field(default_factory=dict)  # seconds per part of the steps


# The policies a run's settings name that need nothing but the page; "llm" is brought by
# the caller, which owns the model client (without it the heuristic explores).
OFFLINE: dict[settings_mod.ChosenPolicy, Callable[[], policies.Policy]] = {
    "heuristic": heuristic.HeuristicPolicy,
    "random": clicker.RandomClicker,
}


def offline_policy(name: settings_mod.ChosenPolicy) -> policies.Policy:
    """The offline policy a settings name stands for."""
    return OFFLINE.get(name, heuristic.HeuristicPolicy)()


@dataclasses.dataclass(frozen=True)
class Options:
    """How one exploration runs, besides its settings: who chooses the actions, who
    answers the page's requests, whether axe-core looks at each new state."""

    policy: policies.Policy | None = None  # None: the settings' offline policy
    # Decides every request (kits/mirror/routing.Hermetic: the app's server and the CDN
    # mirror); None: a routing.OriginGuard refuses everything off the app's origin.
    # Below both, the browser reaches only the app's origin (kits/egress.py).
    hermetic: routing.Router | None = None
    accessibility: bool = True
    # How many new DOM snapshots to probe in the live page for the quality stage
    # (kits/page/probe.mjs; stored as artifacts.PROBES), the first ones; 0: none.
    probes: int = 0
    # When exploring must be done (the app's hard deadline, less what later stages keep);
    # None: app_timeout_s from now. Every page load waits no longer than what is left.
    deadline: clock.Deadline | None = None
    # A worker's warm Chromium to explore in (a fresh context of it); None: a browser
    # of this exploration's own, started and ended with it.
    browser: browser.Browser | None = None


def explore(
    url: str,
    settings: settings_mod.Exploration,
    sink: Callable[[str, bytes], None],
    instrumented: instrumented_mod.Instrumented | None = None,
    options: Options = Options(),
) -> Exploration:
    """Explore the app at ``url``. ``instrumented`` (the instrument stage's bundle) None,
    or one without a coverage map, means black box (no coverage is read). From the
    bundle: its sites say where each counter sits (only counters V8 saw run are
    credited: crediting.py); its code facts steer the heuristic; its original files
    let a build that fails to load instrumented be explored as it came (starting.py);
    its vendored code is left out of own-code coverage, and the heuristic does not
    steer towards it."""
    run = _Exploring(url, settings, sink, instrumented, options)
    try:
        run.drive()
    except browser.BrowserGone as gone:
        run.stop_reason = f"the browser stopped: {gone}"
        if run.explorer is None or not run.explorer.steps:
            run.load_error = str(gone)
    return run.exploration()


def _schedules_time(facts: dict[str, instrumented_mod.CodeFacts] | None) -> bool:
    """Does the app's code schedule timers or animation frames (code facts)?"""
    return any(file_facts.timers for file_facts in (facts or {}).values())


class _Exploring:
    """One exploration under way: its inputs, the explorer the first load chose, and
    what the load and the loop found out."""

    def __init__(self, url: str, settings: settings_mod.Exploration, sink: Callable[[str, bytes], None],
                 instrumented: instrumented_mod.Instrumented | None, options: Options) -> None:
        given = instrumented if instrumented is not None and instrumented.measured else None
        self.url, self.settings, self.sink, self.options = url, settings, sink, options
        self.coverage_map = given.coverage_map if given is not None else None
        vendored = given.vendored if given is not None else {}
        self.sites = given.sites if given is not None else {}
        self.facts = given.facts if given is not None else None
        self.originals = given.originals if given is not None else None
        self.chooser = options.policy if options.policy is not None else offline_policy(settings.policy)
        self.own_map = (coverage.own_code(self.coverage_map, vendored) if self.coverage_map is not None and vendored
                        else self.coverage_map)
        self.router = (options.hermetic if options.hermetic is not None
                       else routing.OriginGuard(routing.origin_of(url)))
        self.started = time.monotonic()
        self.deadline = (options.deadline if options.deadline is not None
                         else clock.Deadline.after(settings.app_timeout_s))
        self.explorer: stepping.Explorer | None = None  # the one exploring, once the first load has chosen it
        self.stop_reason = ""
        self.load_error: str | None = None
        self.fallback: str | None = None
        self.blank: str | None = None
        self.load_time: float | None = None
        self.original_load_time: float | None = None
        # seconds outside the steps: the browser's start, the first load, the load times
        self.outer: dict[str, float] = {}

    def _inputs(self, cmap: dict | None) -> stepping.Inputs:
        """An explorer's inputs; ``cmap`` None: a black-box one (the original build)."""
        measured = (tracking.Measured(coverage_map=cmap, own_map=self.own_map if self.own_map is not None else cmap,
                                      sites=self.sites, facts=self.facts or {},
                                      server_counters=(routing.origin_of(self.url) + servers.COUNTERS_PATH
                                                       if self.url.startswith(("http://", "https://")) else None))
                    if cmap is not None else None)
        settings = self.settings
        return stepping.Inputs(
            where=paging.Where(url=self.url, config=settings, deadline=self.deadline),
            keeping=recording.Keeping(sink=self.sink, max_dom_bytes=settings.max_dom_bytes,
                                      accessibility=self.options.accessibility, probes=self.options.probes),
            chooser=self.chooser, router=self.router, measured=measured, originals=self.originals or {},
            # (the random clicker stays the bare baseline it is measured as)
            virtual_time=(cmap is not None and settings.virtual_time and self.chooser.name != "random"
                          and _schedules_time(self.facts)))

    def _make(self, session: browser.Session, cmap: dict | None) -> stepping.Explorer:
        inputs = self._inputs(cmap)
        session.virtual_time = inputs.virtual_time
        return stepping.Explorer(inputs, session)

    def drive(self) -> None:
        """The first load, then the loop (unless the app did not load or shows nothing)."""
        settings, url = self.settings, self.url
        context = browser.ContextOptions(
            viewport_width=settings.viewport_width, viewport_height=settings.viewport_height, seed=settings.seed)
        hashes = crediting.hashes(self.sites)
        began = time.monotonic()
        with browser.Session(context, allow=(routing.origin_of(url),),
                             coverage_hashes=hashes if self.coverage_map is not None else frozenset(),
                             browser=self.options.browser) as session:
            session.add_installer(self.router.install)
            self.outer["launch"] = time.monotonic() - began
            began = time.monotonic()
            begun = starting.start(url, lambda cmap: self._make(session, cmap), self.coverage_map, self.originals,
                                   session, self.deadline)
            # the first load and its look; the look's own parts are the explorer's
            self.outer["start"] = time.monotonic() - began - sum(begun.explorer.timing.seconds.values())
            self.explorer, self.load_error, self.fallback, self.blank = (
                begun.explorer, begun.load_error, begun.fallback, begun.blank)
            if self.load_error is not None:
                self.stop_reason = f"the app did not load: {self.load_error}"
            elif self.blank is not None:
                self.stop_reason = f"the page shows nothing: {self.blank}"
            else:
                self._loop(begun.first)

    def _loop(self, first: observing.Observation | None) -> None:
        explorer, settings = self.explorer, self.settings
        assert explorer is not None
        assert first is not None  # start() gives the first look whenever the load did not fail
        measured = explorer.inputs.measured
        self.chooser.begin(policies.Context(
            start_url=self.url, app_origin=explorer.page.origin, seed=settings.seed,
            max_steps=settings.max_steps, instrumented=measured is not None,
            step_timeout_s=settings.step_timeout_s, plateau_steps=settings.plateau_steps,
            coverage=explorer.coverage.total if measured is not None else None,
            coverage_map=measured.own_map if measured is not None else None,
            facts=measured.facts if measured is not None else None,
            idle_steps=settings.stop_after_idle_steps,
            virtual_time=explorer.virtual_time, viewport=f"{settings.viewport_width}x{settings.viewport_height}"))
        try:
            self.stop_reason = explorer.loop(first, self.deadline.at, self.started)
        except stepping.Stop as stop:
            self.stop_reason = str(stop)
        self.chooser.end(self.stop_reason)
        if explorer.instrumented and self.originals:
            began = time.monotonic()
            self.load_time, self.original_load_time = starting.load_times(explorer, self.url, self.originals)
            self.outer["load-times"] = time.monotonic() - began

    def exploration(self) -> Exploration:
        """What the stage hands back: the trace, axe-core's report, the final coverage."""
        settings, chooser = self.settings, self.chooser
        explorer = self.explorer
        if explorer is None:  # the browser went before the first load chose an explorer
            explorer = stepping.Explorer(self._inputs(self.coverage_map), None)
        trace = evidence.Trace(
            explorer=chooser.name,
            seed=settings.seed,
            max_steps=settings.max_steps,
            start_url=self.url,
            steps=tuple(explorer.steps),
            stop_reason=self.stop_reason,
            summary=chooser.summary() if self.load_error is None and self.blank is None else None,
            load_error=self.load_error,
            duration_s=round(time.monotonic() - self.started, 3),
            mirrored_requests=tuple(dict.fromkeys(explorer.page.mirrored)),
            virtual_time=explorer.virtual_time,
            lightened=tuple(explorer.harness.lightened),
            parts=self.parts(explorer),
            settled=dict(sorted(explorer.page.settled.items())),
            settle_cap_ms=paging.SETTLE_MS,
        )
        recorder, tracker = explorer.recorder, explorer.coverage
        a11y = evidence.AccessibilityReport(
            version=recorder.axe_version, pages=recorder.axe, error=recorder.axe_error)
        counted = (coverage.with_counts(tracker.coverage_map, tracker.total())
                   if tracker.coverage_map is not None else {})
        return Exploration(trace=trace, a11y=a11y, coverage=counted, fallback=self.fallback, blank=self.blank,
                           load_time_s=self.load_time, original_load_time_s=self.original_load_time,
                           parts={part: round(seconds, 3) for part, seconds in sorted(explorer.timing.seconds.items())})

    def parts(self, explorer: stepping.Explorer) -> dict[str, float]:
        """Seconds per part of the whole exploration: the steps' parts and the ones
        outside them (launch, start, load-times)."""
        every = {**explorer.timing.seconds}
        for part, seconds in self.outer.items():
            every[part] = every.get(part, 0.0) + seconds
        return {part: round(max(0.0, seconds), 3) for part, seconds in sorted(every.items())}
