"""The explore stage: drive a served app in real Chromium and record what happens.

``explore(url, settings, sink, ...)`` returns an ``Exploration`` (trace, axe-core
report, final Istanbul coverage). Evidence files go through ``sink`` as they are
made. Decisions come from a ``policy.Policy`` (the offline ``heuristic`` by default;
the LLM tester plugs in through the same protocol). It must not import other stages,
and an app's defect never escapes as an exception: it is in the trace.

Modules: stepping (the loop), observing + observe.js (what the page offers),
acting (doing an action), policy (the protocol), heuristic + values (the default).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import heuristic, policy as policies, stepping


@dataclasses.dataclass(frozen=True)
class Exploration:
    trace: evidence.Trace
    a11y: evidence.AccessibilityReport
    coverage: dict  # final merged Istanbul coverage; {} in black box


def explore(
    url: str,
    settings: settings_mod.Exploration,
    sink: Callable[[str, bytes], None],
    coverage_map: dict | None = None,
    policy: policies.Policy | None = None,
    hermetic: browser.Router | None = None,
    accessibility: bool = True,
    sites: dict | None = None,
) -> Exploration:
    """Explore the app at ``url``. ``coverage_map`` None means black box (no coverage
    is read). ``hermetic`` decides every request (kits/mirror/routing.Hermetic: the app's
    server and the CDN mirror); None: a browser.OriginGuard refuses everything off the
    app's origin. Below both, the browser reaches only the app's origin (kits/egress.py).
    ``sites`` (instrumenting's sites.json) says where each counter sits: only counters
    V8 saw run are credited (crediting.py)."""
    chooser = policy if policy is not None else heuristic.HeuristicPolicy()
    explorer = stepping.Explorer(url, settings, sink, coverage_map, chooser, hermetic, accessibility, sites)
    started = time.monotonic()
    load_error: str | None = None
    options = browser.ContextOptions(
        viewport_width=settings.viewport_width, viewport_height=settings.viewport_height, seed=settings.seed)
    try:
        hashes = frozenset(v["sha256"] for v in (sites or {}).values() if isinstance(v, dict) and v.get("sha256"))
        with browser.Session(options, allow=(explorer.origin,),
                             coverage_hashes=hashes if coverage_map is not None else frozenset()) as session:
            explorer.session = session
            explorer.router.install(session.context)
            load_error, first = explorer.load()
            if load_error is not None:
                stop_reason = f"the app did not load: {load_error}"
            else:
                chooser.begin(policies.Context(
                    start_url=url, app_origin=explorer.origin, seed=settings.seed,
                    max_steps=settings.max_steps, instrumented=coverage_map is not None,
                    step_timeout_s=settings.step_timeout_s, plateau_steps=settings.plateau_steps,
                    coverage=explorer.coverage_total if coverage_map is not None else None))
                try:
                    stop_reason = explorer.loop(first, started + settings.app_timeout_s, started)
                except stepping.Stop as stop:
                    stop_reason = str(stop)
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
        summary=chooser.summary() if load_error is None else None,
        load_error=load_error,
        duration_s=round(time.monotonic() - started, 3),
        mirrored_requests=tuple(dict.fromkeys(explorer.mirrored)),
    )
    a11y = evidence.AccessibilityReport(
        version=explorer.axe_version, pages=explorer.axe, error=explorer.axe_error)
    coverage = explorer.coverage_total() if coverage_map is not None else {}
    return Exploration(trace=trace, a11y=a11y, coverage=coverage)
