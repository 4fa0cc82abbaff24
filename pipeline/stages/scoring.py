"""Offline scores: rule-based metrics computed from one app's evidence, no LLM.

Pure: it reads only the records it is given (instrumentation report, trace, state
graph, axe-core report) and must not touch the browser, the store or the network.
Every score says which way is better and why it has its value; a score that cannot
be measured is unscored (value None) with the reason, never 0.

The scores it fills, with their units, directions, floors and definitions, are the
rows of the metric table whose producer is "scoring" (contracts/metrics.py; listed in
docs/metrics.md).

Rules worth knowing:

* Coverage is unscored in black-box mode (the reason says why instrumenting failed).
* ``dead_end_ratio`` only looks at states the explorer acted in: the state a run ends
  in was never tried, which says nothing about the app.
* ``no_effect_ratio`` counts only actions a user expects a response to (click,
  select, check, key, drag, back) that were performed. Typing, hovering, scrolling
  and waiting are left out: their effect lives in input properties, CSS ``:hover``
  or the viewport, none of which a DOM state shows. Steps into or out of
  ``S_crash`` are left out too (a crash is not "no effect"). An effect is what the
  state graph's edges say (abstracting.effects): a change a user can see or the app
  keeps — the page, its address, stored data, a request, a dialog, a window, and
  canvas pixels where the action was aimed (a canvas, the page). Code that ran is not
  an effect: a handler that throws or only logs has none. Steps whose effect a canvas
  cannot tell are left out and counted; a control beside a canvas that draws by itself
  is read without it, so a decorative animation hides no dead control.
* ``accessibility``: each checked page scores ``100 − Σ weight(impact)`` over its
  violated axe rules (floor 0), with IMPACT_WEIGHTS critical 10, serious 6,
  moderate 3, minor 1 (no impact given: minor). A rule counts once per page however
  many elements break it, as Lighthouse does: one unlabeled-button pattern is one
  defect. Pages in the same state are averaged first, then states are averaged. It
  reads the same screens for every app, whatever the explorer found: the start state
  and the first ``SCREENS`` − 1 distinct states after it in visiting order (``screens``),
  so that a script which adds no state changes nothing, and an explorer that wandered
  further does not dilute or lift the value.

Apps that could not be evaluated (``failure_scores``):

* outcome ``start_failed`` (the app's own defect: no start page, never loaded,
  crashed at load): every metric takes its floor from the table, so a model is
  penalised for broken apps; the unbounded counts have no floor and are unscored.
  Reason: "the app did not start: <reason>".
* outcome ``error`` (our infrastructure failed): everything unscored, so the app is
  left out of every aggregate.
* outcome ``not_runnable`` (the app cannot run in this environment: its build needs a
  network service, or a dependency comes from git): everything here unscored, never a
  floor; the app is pooled on what its source was scored on.
"""

from __future__ import annotations

import statistics

from iwcbench.pipeline.contracts import evidence, metrics, results

COVERAGE = ("statements", "functions", "branches")
NAMES = metrics.names("scoring")  # the metric table's rows this stage fills, in order
IMPACT_WEIGHTS = {"critical": 10.0, "serious": 6.0, "moderate": 3.0, "minor": 1.0}
RESPONSIVE_KINDS = frozenset({"click", "select", "check", "key", "drag", "back", "route"})
CRASH = "S_crash"  # the abstraction's sentinel for steps without a DOM
MAX_CITATIONS = 8
SCREENS = metrics.SCREENS  # states a metric "over the states" reads: the start state and the next ones


def _score(name: str, value: float | None, reason: str, evidence_: tuple[str, ...] = (),
           raw: dict | None = None) -> metrics.Score:
    return metrics.score(name, value, reason, evidence_[:MAX_CITATIONS], raw)


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 2)


def _coverage(report: evidence.InstrumentationReport | None,
              trace: evidence.Trace | None) -> dict[str, metrics.Score]:
    scores = {}
    for metric in COVERAGE:
        name = f"coverage_{metric}"
        if report is None:
            scores[name] = _score(name, None, "not measured: the app was not instrumented")
            continue
        if report.mode == "black_box":
            scores[name] = _score(name, None, f"not measured in black-box mode: {report.reason}")
            continue
        # The app's own code: library code instrumenting recognised is left out.
        total = sum(f.own(metric) for f in report.files)
        libraries = sum(getattr(f, metric) for f in report.files) - total
        final = trace.final_coverage if trace is not None else None
        percent = None if final is None else getattr(final, f"own_{metric}")
        if percent is None and final is not None:
            percent = getattr(final, metric)
        if total == 0:
            scores[name] = _score(name, None, f"not measurable: the app has no {metric} of its own to execute")
        elif percent is None:
            scores[name] = _score(name, None, "not measured: no coverage was read during exploration")
        else:
            done = round(percent * total / 100)
            aside = f" (its own code; {libraries} {metric} of library code left out)" if libraries else ""
            scores[name] = _score(name, round(percent, 2), f"{done} of {total} {metric} executed{aside}",
                                  raw={"covered": done, "total": total, "library": libraries})
    return scores


def _listed(messages: tuple[str, ...]) -> int:
    return sum(1 for m in messages if not m.startswith("… and "))


def _errors(trace: evidence.Trace | None) -> dict[str, metrics.Score]:
    if trace is None or not trace.steps:
        why = "not measured: nothing was explored"
        return {"runtime_errors": _score("runtime_errors", None, why),
                "blocked_requests": _score("blocked_requests", None, why)}
    # listed ones ("… and N more" is not an error) and those counted past the lists
    page = sum(_listed(s.page_errors) + s.unlisted.page_errors for s in trace.steps)
    console = sum(_listed(s.console_errors) + s.unlisted.console_errors for s in trace.steps)
    lines = sum(s.unlisted.console_lines for s in trace.steps)
    steps = len(trace.steps)
    flood = f"; the page flooded its console: {lines:,} lines counted, not kept" if lines else ""
    errors = _score(
        "runtime_errors", float(page + console),
        f"{page} uncaught page error{'s' * (page != 1)} and {console} console "
        f"error{'s' * (console != 1)} in {steps} step{'s' * (steps != 1)}{flood}",
        tuple(f"step {s.index}" for s in trace.steps if s.page_errors or s.console_errors),
        {"page_errors": page, "console_errors": console, "steps": steps,
         "per_step": round((page + console) / steps, 4), "console_lines_unlisted": lines},
    )
    blocked = [u for s in trace.steps for u in s.blocked_requests]
    hosts = sorted({u.split("/")[2] if "//" in u else u for u in blocked})
    where = f" (to {', '.join(hosts[:3])}{' …' if len(hosts) > 3 else ''})" if hosts else ""
    return {
        "runtime_errors": errors,
        "blocked_requests": _score(
            "blocked_requests", float(len(blocked)),
            f"{len(blocked)} request{'s' * (len(blocked) != 1)} refused by the sandbox{where}",
            tuple(f"step {s.index}" for s in trace.steps if s.blocked_requests),
            {"requests": blocked[:50]},
        ),
    }


def _state_of(graph: evidence.StateGraph | None) -> dict[int, str]:
    return {step: node.id for node in graph.nodes for step in node.steps} if graph else {}


def screens(graph: evidence.StateGraph | None, limit: int = SCREENS) -> list[str]:
    """The states a metric over the states reads: the start state (step 0's) and the
    first distinct states after it in visiting order, ``limit`` in all; the crash
    state is none. Empty without a graph."""
    if graph is None:
        return []
    visited = sorted((n.first_step, n.id) for n in graph.nodes if n.id != CRASH)
    return [state for _, state in visited[:limit]]


def _graph_scores(graph: evidence.StateGraph | None) -> dict[str, metrics.Score]:
    if graph is None or not graph.nodes:
        why = "not measured: no state graph"
        return {n: _score(n, None, why) for n in ("states", "transitions", "dead_end_ratio")}
    real = [n.id for n in graph.nodes if n.id != CRASH]
    moves = {(e.source, e.target, e.action) for e in graph.edges
             if e.source != e.target and CRASH not in (e.source, e.target)}
    tried = {e.source for e in graph.edges}
    leaving = {e.source for e in graph.edges if e.target not in (e.source, CRASH)}
    acted = [s for s in real if s in tried]
    dead = [s for s in acted if s not in leaving]
    scores = {
        "states": _score("states", float(len(real)),
                         f"{len(real)} distinct state{'s' * (len(real) != 1)} reached",
                         raw={"crashed": any(n.id == CRASH for n in graph.nodes)}),
        "transitions": _score("transitions", float(len(moves)),
                              f"{len(moves)} distinct transition{'s' * (len(moves) != 1)} between states"),
    }
    if acted:
        scores["dead_end_ratio"] = _score(
            "dead_end_ratio", _pct(len(dead), len(acted)),
            f"{len(dead)} of {len(acted)} states acted in had no action leading elsewhere",
            tuple(dead), {"dead_ends": len(dead), "states_acted_in": len(acted)})
    else:
        scores["dead_end_ratio"] = _score("dead_end_ratio", None, "not measured: no action was taken in any state")
    return scores


def _no_effect(trace: evidence.Trace | None, graph: evidence.StateGraph | None) -> metrics.Score:
    if trace is None or graph is None:
        return _score("no_effect_ratio", None, "not measured: no trace or state graph")
    state_of = _state_of(graph)
    read, idle_steps, unsure_steps = graph.effects_read, graph.idle, graph.unsure
    counted, idle, unsure = 0, [], 0
    for before, step in zip(trace.steps, trace.steps[1:]):
        if not step.ok or step.action.kind not in RESPONSIVE_KINDS:
            continue
        source, target = state_of.get(before.index), state_of.get(step.index)
        if source in (None, CRASH) or target in (None, CRASH):
            continue
        if step.index in unsure_steps:
            unsure += 1
            continue
        counted += 1
        none = step.index in idle_steps if read else (source == target and step.url == before.url)
        if none:
            idle.append(step)
    if not counted:
        return _score("no_effect_ratio", None,
                      "not measured: no click, select, check, key, drag or back action was performed"
                      + (f" whose effect could be told ({unsure} aimed at a canvas or the page, where a canvas "
                         "draws by itself or cannot be read)" if unsure else ""))
    what = ("changed nothing a user can see or the app keeps (the page, its address, "
            "stored data, a request, a dialog or a window; canvas pixels where the action was aimed)" if read else
            "changed neither the page nor its address (a trace from before the other effects were read)")
    apart = (f"; {unsure} left out: aimed at a canvas or the page, nothing else changed and a canvas that "
             "draws by itself or cannot be read cannot tell" if unsure else "")
    return _score("no_effect_ratio", _pct(len(idle), counted),
                  f"{len(idle)} of {counted} performed actions {what}{apart}",
                  tuple(f"step {s.index}: {s.action.label()}" for s in idle),
                  {"no_effect": len(idle), "actions": counted, "unsure": unsure})


def _page_score(violations: tuple[evidence.AxeViolation, ...]) -> float:
    penalty = sum(IMPACT_WEIGHTS.get(v.impact or "minor", 1.0) for v in violations)
    return max(0.0, 100.0 - penalty)


def _accessibility(a11y: evidence.AccessibilityReport | None,
                   graph: evidence.StateGraph | None) -> metrics.Score:
    if a11y is None or not a11y.pages:
        why = f"axe-core failed: {a11y.error}" if a11y is not None and a11y.error else \
            "axe-core did not run (accessibility checks were off, or no state was checked)"
        return _score("accessibility", None, why)
    state_of = _state_of(graph)
    # the same screens for every app (``screens``); without a graph, the pages as checked
    read = set(screens(graph)) if graph is not None and graph.nodes else None
    pages = {step: v for step, v in a11y.pages.items() if read is None or state_of.get(step) in read}
    if not pages:
        return _score("accessibility", None, "not measured: axe-core checked none of the start state and the "
                      f"first {SCREENS - 1} states after it")
    by_state: dict[str, list[float]] = {}
    rules: dict[str, int] = {}
    for step, violations in sorted(pages.items()):
        by_state.setdefault(state_of.get(step, f"step {step}"), []).append(_page_score(violations))
        for v in violations:
            rules[v.id] = rules.get(v.id, 0) + 1
    value = round(statistics.fmean(statistics.fmean(v) for v in by_state.values()), 2)
    worst = sorted(pages, key=lambda s: (_page_score(pages[s]), s))
    top = ", ".join(f"{r} on {n} page{'s' * (n != 1)}"
                    for r, n in sorted(rules.items(), key=lambda x: (-x[1], x[0]))[:3])
    reason = (f"{len(rules)} distinct axe rule{'s' * (len(rules) != 1)} violated over "
              f"{len(by_state)} state{'s' * (len(by_state) != 1)}" + (f": {top}" if top else ""))
    if a11y.error:
        reason += f"; some checks failed: {a11y.error}"
    return _score("accessibility", value, reason,
                  tuple(f"step {s}" for s in worst if pages[s]),
                  {"pages": len(pages), "states": len(by_state), "rules": rules, "screens": sorted(by_state),
                   "weights": IMPACT_WEIGHTS, "engine": a11y.engine, "version": a11y.version})


def score_offline(
    report: evidence.InstrumentationReport | None,
    trace: evidence.Trace | None,
    graph: evidence.StateGraph | None,
    a11y: evidence.AccessibilityReport | None,
) -> dict[str, metrics.Score]:
    """Every offline score of one explored app, keyed by the names in ``NAMES``."""
    scores = {**_coverage(report, trace), **_errors(trace), **_graph_scores(graph),
              "no_effect_ratio": _no_effect(trace, graph), "accessibility": _accessibility(a11y, graph)}
    return {name: scores[name] for name in NAMES}


def failure_scores(outcome: str, reason: str) -> dict[str, metrics.Score]:
    """Scores of an app that was not explored: floors for ``start_failed``, all
    unscored for ``error`` and ``not_runnable`` (see the module docstring)."""
    if outcome in results.OUR_FAULT | results.NOT_RUNNABLE_HERE:
        return metrics.unscored(NAMES, f"not scored: {reason}")
    if outcome != "start_failed":
        raise ValueError(f"failure_scores is for start_failed, not_runnable or error, not {outcome!r}")
    return metrics.floors(NAMES, f"the app did not start: {reason}")
