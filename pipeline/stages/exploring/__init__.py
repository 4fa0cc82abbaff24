"""The explore stage: drive a served app in real Chromium and record what happens.

``explore(url, settings, sink, ...)`` returns an ``Exploration`` (trace, axe-core
report, final Istanbul coverage). Evidence files go through ``sink`` as they are
made. Decisions come from a ``policy.Policy`` (the offline ``heuristic`` by default;
the LLM tester plugs in through the same protocol). It must not import other stages,
and an app's defect never escapes as an exception: it is in the trace.

Modules: starting (the first load: fallback to the original build, blank pages,
load times), stepping (the loop), observing + observe.js (what the page offers),
acting (doing an action), policy (the protocol), heuristic (the default) with
values, rules, playing (keys, waits, positions), reaching (what of the code never
ran and what could run it) and steering (which actions lead there), clicker (the
seeded random baseline, ``--explorer random``), coverage (Istanbul math), crediting
(only what V8 saw run counts), guidance (plateau help for the LLM tester).
uitest_policy (WebGen-Bench's GUI agent: the only policy that sees a test case) and
replay_policy (playing a stored passing case back) are driven by the same loop, one
test case per ``explore`` call (runs/uitests.py).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import clicker, coverage, crediting, heuristic, policy as policies
from iwcbench.pipeline.stages.exploring import starting, stepping


@dataclasses.dataclass(frozen=True)
class Exploration:
    trace: evidence.Trace
    a11y: evidence.AccessibilityReport
    coverage: dict  # final merged Istanbul coverage; {} in black box
    fallback: str | None = None  # "instrumented build failed to load: …": the original was explored
    blank: str | None = None  # why the page shows nothing (the exploration stopped at the load)
    load_time_s: float | None = None  # to the load event, warm: the instrumented build
    original_load_time_s: float | None = None  # and the original build


def offline_policy(name: str) -> policies.Policy:
    """The offline policy a settings name stands for ("llm" is brought by the caller,
    which owns the model client; without it the heuristic explores)."""
    return clicker.RandomClicker() if name == "random" else heuristic.HeuristicPolicy()


def explore(
    url: str,
    settings: settings_mod.Exploration,
    sink: Callable[[str, bytes], None],
    coverage_map: dict | None = None,
    policy: policies.Policy | None = None,
    hermetic: browser.Router | None = None,
    accessibility: bool = True,
    sites: dict | None = None,
    facts: dict | None = None,
    originals: dict[str, bytes] | None = None,
    vendored: dict | None = None,
) -> Exploration:
    """Explore the app at ``url``. ``coverage_map`` None means black box (no coverage
    is read). ``hermetic`` decides every request (kits/mirror/routing.Hermetic: the app's
    server and the CDN mirror); None: a browser.OriginGuard refuses everything off the
    app's origin. Below both, the browser reaches only the app's origin (kits/egress.py).
    ``sites`` (instrumenting's sites.json) says where each counter sits: only counters
    V8 saw run are credited (crediting.py). ``facts`` are instrumenting's code facts
    (code-facts.json): the heuristic steers by them. ``originals`` are the files
    instrumenting rewrote, as they were, by path from the app's root: with them a
    build that fails to load instrumented is explored as it came (starting.py).
    ``vendored`` (instrumenting's vendored.json) names library code: own-code
    coverage leaves it out, and the heuristic does not steer towards it."""
    chooser = policy if policy is not None else offline_policy(settings.policy)
    own_map = coverage.own_code(coverage_map, vendored) if coverage_map is not None and vendored else coverage_map
    router = hermetic if hermetic is not None else browser.OriginGuard(browser.origin_of(url))
    started = time.monotonic()
    load_error: str | None = None
    fallback = blank = None
    load_time = original_load_time = None
    options = browser.ContextOptions(
        viewport_width=settings.viewport_width, viewport_height=settings.viewport_height, seed=settings.seed)
    explorer = stepping.Explorer(url, settings, sink, coverage_map, chooser, router, accessibility, sites, facts)
    try:
        hashes = crediting.hashes(sites or {})
        with browser.Session(options, allow=(explorer.origin,),
                             coverage_hashes=hashes if coverage_map is not None else frozenset()) as session:
            explorer.session = session
            router.install(session.context)

            def make(cmap: dict | None) -> stepping.Explorer:
                instrumented = cmap is not None
                made = stepping.Explorer(url, settings, sink, cmap, chooser, router, accessibility,
                                         sites if instrumented else None, facts if instrumented else None,
                                         own_map if instrumented else None)
                made.session = session
                return made

            begun = starting.start(url, make, coverage_map, originals, session, settings.load_timeout_s)
            explorer, load_error, fallback, blank = begun.explorer, begun.load_error, begun.fallback, begun.blank
            if load_error is not None:
                stop_reason = f"the app did not load: {load_error}"
            elif blank is not None:
                stop_reason = f"the page shows nothing: {blank}"
            else:
                measured = explorer.coverage_map
                chooser.begin(policies.Context(
                    start_url=url, app_origin=explorer.origin, seed=settings.seed,
                    max_steps=settings.max_steps, instrumented=measured is not None,
                    step_timeout_s=settings.step_timeout_s, plateau_steps=settings.plateau_steps,
                    coverage=explorer.coverage_total if measured is not None else None,
                    coverage_map=explorer.own_map, facts=explorer.facts, idle_steps=settings.stop_after_idle_steps))
                try:
                    stop_reason = explorer.loop(begun.first, started + settings.app_timeout_s, started)
                except stepping.Stop as stop:
                    stop_reason = str(stop)
                if explorer.instrumented and originals:
                    load_time, original_load_time = starting.load_times(
                        explorer, url, originals, settings.load_timeout_s)
    except browser.BrowserGone as gone:
        stop_reason = f"the browser stopped: {gone}"
        if not explorer.steps:
            load_error = str(gone)
    trace = evidence.Trace(
        explorer=chooser.name,
        seed=settings.seed,
        max_steps=settings.max_steps,
        start_url=url,
        steps=tuple(explorer.steps),
        stop_reason=stop_reason,
        summary=chooser.summary() if load_error is None and blank is None else None,
        load_error=load_error,
        duration_s=round(time.monotonic() - started, 3),
        mirrored_requests=tuple(dict.fromkeys(explorer.mirrored)),
    )
    a11y = evidence.AccessibilityReport(
        version=explorer.axe_version, pages=explorer.axe, error=explorer.axe_error)
    counted = (coverage.with_counts(explorer.coverage_map, explorer.coverage_total())
                if explorer.coverage_map is not None else {})
    return Exploration(trace=trace, a11y=a11y, coverage=counted, fallback=fallback, blank=blank,
                       load_time_s=load_time, original_load_time_s=original_load_time)
