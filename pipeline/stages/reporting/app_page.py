"""One app's page: outcome, scores, screenshots, state graph, coverage, trace, errors,
network, instrumentation, accessibility.

It is handed the app's result, its parsed evidence and the asset copier; it returns
the page's HTML and a summary the run page uses (first screenshot, error counts).
Unscored dimensions are shown as "unscored — reason", never as a number. This module
must not read the store directly (only through ``assets.Assets``) or write pages.
"""

from __future__ import annotations

import dataclasses
import math

from iwcbench.pipeline.contracts import evidence, metrics as metric_table, results
from iwcbench.pipeline.stages.reporting import assets as assets_mod
from iwcbench.pipeline.stages.reporting import graphing, layout, reading, sections, uitest_sections, webcoder

UP = "../../"  # app pages live at apps/<model>/<task>.html
GALLERY_OPEN = 15  # screenshots shown without an inner scroll box


@dataclasses.dataclass(frozen=True)
class Summary:
    """What the run page shows of one app."""

    result: results.AppResult
    href: str  # relative to the report root
    first_shot: assets_mod.Shot | None
    errors: int  # page + console errors seen


def href_of(app: results.AppResult) -> str:
    return f"apps/{assets_mod.safe_name(app.model)}/{assets_mod.safe_name(app.task_id)}.html"


def _scores(scores: dict[str, metric_table.Score]) -> str:
    if not scores:
        return '<p class="muted">No scores were recorded for this app.</p>'
    rows = []
    for name, s in scores.items():
        direction = "↑ higher is better" if s.higher_is_better else "↓ lower is better"
        cites = "".join(f"<span>{layout.esc(c)}</span>" for c in s.evidence)
        cites = f'<div class="cites">{cites}</div>' if cites else ""
        if s.value is None or not math.isfinite(s.value):
            label, tone = ("n/a", "faint") if s.status == "not_applicable" else ("unscored", "unscored")
            value = f'<span class="{tone}">{label}</span>'
            said = s.reason if s.reason.lower().startswith(label) else f"{label} — {s.reason}"
            why = f'<span class="{tone}">{layout.esc(said)}</span>'
            rows.append(f'<tr class="is-unscored"><td><b>{layout.esc(name)}</b></td><td class="value">{value}</td>'
                        f'<td class="muted">{direction}</td><td>{why}{cites}</td></tr>')
            continue
        unit = f' <span class="muted" style="font-size:12px;font-weight:400">{layout.esc(s.unit)}</span>' if s.unit else ""
        rationale = (f'<details><summary>rationale</summary><div class="rationale">{layout.esc(s.rationale)}</div>'
                     f'</details>' if s.rationale and len(s.rationale) > 220 else
                     f'<div class="rationale">{layout.esc(s.rationale)}</div>' if s.rationale else "")
        rows.append(f'<tr><td><b>{layout.esc(name)}</b></td><td class="value">{s.value:.1f}{unit}</td>'
                    f'<td class="muted">{direction}</td><td>{layout.esc(s.reason)}{rationale}{cites}</td></tr>')
    return ('<div class=scroll><table class="scores"><thead><tr><th>dimension</th><th>value</th><th>direction</th>'
            f'<th>reason and rationale</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _flagged(trace: evidence.Trace | None, state_of: dict[int, str]) -> dict[str, str]:
    """States where the app raised errors, and why they are marked."""
    seen: dict[str, list[str]] = {}
    for step in trace.steps if trace else ():
        state = state_of.get(step.index)
        count = len(step.page_errors) + len(step.console_errors)
        if state and count:
            seen.setdefault(state, []).append(f"step {step.index}: {count} error(s)")
    return {state: "errors — " + "; ".join(notes) for state, notes in seen.items()}


def _gallery(app: results.AppResult, found: reading.Evidence, copier: assets_mod.Assets,
             flagged: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Thumbnails of every state (or every step with a screenshot when there is no
    graph); also each state's anchor for the graph's links."""
    figures, anchors = [], {}
    items: list[tuple[str, str | None, str, str]] = []  # (label, shot key, title, anchor)
    if found.graph and found.graph.nodes:
        for n in found.graph.nodes:
            steps = ", ".join(map(str, n.steps[:8])) + (" …" if len(n.steps) > 8 else "")
            items.append((f"{n.id}|step{'s' if len(n.steps) != 1 else ''} {steps}", n.screenshot,
                          n.title or n.url, f"state-{assets_mod.safe_name(n.id)}"))
            anchors[n.id] = f"#state-{assets_mod.safe_name(n.id)}"
    elif found.trace:
        for step in found.trace.steps:
            if step.screenshot:
                items.append((f"step {step.index}|{step.action.kind}", step.screenshot, step.url,
                              f"shot-{step.index}"))
    for label, key, title, anchor in items:
        head, tail = label.split("|", 1)
        shot = copier.shot(app.model, app.task_id, found.prefix, key)
        picture = (f'<a class="shot" href="{UP}{shot.full}" data-caption="{layout.esc(head + " · " + tail)}">'
                   f'<img loading="lazy" src="{UP}{shot.thumb}" alt="{layout.esc(head)}"></a>' if shot else
                   '<div class="noshot">no screenshot</div>')
        state = head if head in flagged else None
        mark = ' <span class="chip fail" title="{0}">errors</span>'.format(layout.esc(flagged[state])) if state else ""
        figures.append(f'<figure id="{anchor}"{" class=flagged" if state else ""}>{picture}<figcaption><b>'
                       f'{layout.esc(head)}</b><span class="muted">{layout.esc(tail)}</span>{mark}'
                       f'<span class="t" title="{layout.esc(title)}">{layout.esc(title) or "&nbsp;"}</span>'
                       f'</figcaption></figure>')
    if not figures:
        return '<p class="muted">No screenshots were taken.</p>', anchors
    many = " many" if len(figures) > GALLERY_OPEN else ""  # a long gallery scrolls in its box
    return f'<div class="gallery{many}">{"".join(figures)}</div>', anchors


def _graph(found: reading.Evidence, flagged: dict[str, str], anchors: dict[str, str]) -> str:
    graph = found.graph
    if graph is None or not graph.nodes:
        return '<p class="muted">No state graph was recorded.</p>'
    picture = graphing.draw(graph, flagged, anchors)
    note = ""
    if picture.omitted_nodes:
        note = (f'<p class="note">Showing the {picture.shown_nodes} most visited of {len(graph.nodes)} states; '
                f'{picture.omitted_nodes} states and {picture.omitted_edges} transitions are left out of the '
                f'picture (the trace below has every step).</p>')
    legend = ('<div class="legend"><span><span class="sw" style="background:#eef4fb"></span>visited once</span>'
              '<span><span class="sw" style="background:#1f5fa8"></span>visited most</span>'
              '<span><span class="sw" style="background:#fff;border:2px solid #24292f"></span>start state</span>'
              '<span><span class="sw" style="background:#fff;border:2px solid #cf222e"></span>errors seen there</span>'
              '<span><span class="ln"></span>transition</span>'
              '<span><span class="ln" style="border-color:#8c959f"></span>back to an earlier state</span>'
              '<span><span class="ln" style="border-top:2px dashed #cf222e"></span>action failed</span>'
              '<span class="faint">hover for full labels · click a state for its screenshot</span></div>')
    return f'{note}<div class="graphbox">{picture.svg}</div>{legend}'


BUILD_RESULTS = {"instrumented": "built with Istanbul", "plain": "built without Istanbul (black box)",
                 "failed": "not built"}


def _header(app: results.AppResult, found: reading.Evidence, overall_name: str) -> str:
    ex = app.exploration
    rows = [("evidence", f'<span class="mono">{layout.esc(found.prefix)}</span>'),
            ("explored", layout.esc(f"{ex.steps} steps · {ex.states} states · {ex.transitions} transitions · "
                                    f"{ex.duration_s:.1f} s")),
            ("errors", layout.esc(f"{ex.page_errors} page · {ex.console_errors} console · "
                                  f"{ex.blocked_requests} blocked requests"))]
    inst = app.instrumentation
    if inst.mode:
        rows.append(("instrumentation", layout.esc(f"{inst.framework} · {inst.mode.replace('_', ' ')} · "
                                                   f"{inst.files_instrumented} file{'s' if inst.files_instrumented != 1 else ''}")))
    if inst.build:
        took = f" in {inst.build_s:.1f} s" if inst.build_s is not None else ""
        rows.append(("build", layout.esc(f"{BUILD_RESULTS[inst.build]}{took}")))
    if app.timings:
        rows.append(("stage times", layout.esc(" · ".join(f"{k} {v:.1f} s" for k, v in app.timings.items()))))
    overall = (f'<div class="kpi"><b>{layout.signed(app.overall)}</b><span>{layout.esc(overall_name)} z</span></div>'
               if app.overall is not None else
               f'<div class="kpi"><b class="faint">—</b><span>{layout.esc(overall_name)} (not ranked)</span></div>')
    return (f'<section class="card"><div class="hero"><div style="flex:1;min-width:320px">'
            f'<h1>{layout.esc(app.model)} <span class="faint">/</span> {layout.esc(app.task_id)}</h1>'
            f'<p style="margin:6px 0">{layout.outcome_chip(app.outcome)} '
            f'<span class="muted">{layout.esc(app.reason)}</span></p>{layout.facts(rows)}</div>'
            f'<div class="kpis">{overall}</div></div></section>')


def build(app: results.AppResult, found: reading.Evidence, copier: assets_mod.Assets,
          overall_name: str = "overall") -> tuple[str, Summary]:
    """The page's HTML and its summary for the run page; ``overall_name``: what the run's
    ranking calls the overall (results.Ranking.name)."""
    trace, graph = found.trace, found.graph
    state_of = {s: n.id for n in graph.nodes for s in n.steps} if graph else {}
    flagged = _flagged(trace, state_of)
    gallery, anchors = _gallery(app, found, copier, flagged)
    parts = [_header(app, found, overall_name)]
    parts += [f'<p class="problem">{layout.esc(p)}</p>' for p in found.problems]
    wcb = {n for names in metric_table.webcoder_groups().values() for n in names}
    parts.append(layout.card("Scores", _scores({n: s for n, s in app.scores.items() if metric_table.base_name(n) not in wcb}),
                             "unscored dimensions are left out of every aggregate"))
    parts.append(uitest_sections.app_card(app, found.prefix, found.ui_tests, found.case_traces, copier, UP))
    parts.append(webcoder.app_section(app))
    first_shot = None
    if trace is not None and trace.steps:
        parts.append(layout.card("Screenshots", gallery, "one per state · click to enlarge", "screens"))
        parts.append(layout.card("State graph", _graph(found, flagged, anchors),
                                 layout.esc(f"{len(graph.nodes)} states · {len(graph.edges)} transitions")
                                 if graph else ""))
        shot_links, dom_links = {}, {}
        for step in trace.steps:
            shot = copier.shot(app.model, app.task_id, found.prefix, step.screenshot)
            if shot:
                shot_links[step.index] = UP + shot.full
                first_shot = first_shot or shot
            dom = copier.dom(app.model, app.task_id, found.prefix, step.dom)
            if dom:
                dom_links[step.index] = UP + dom
        parts.append(layout.card("Coverage", sections.coverage_block(trace, found.instrumentation), "cumulative, after each step"))
        parts.append(layout.card("Trace", sections.trace_facts(trace) + sections.trace_table(
            trace, state_of, shot_links, dom_links, graph), layout.esc(f"{len(trace.steps)} steps"), "trace"))
        parts.append(layout.card("Console errors, page errors and dialogs", sections.errors_list(trace)))
        parts.append(layout.card("Network", sections.network_lists(trace)))
    elif trace is not None:
        parts.append(layout.card("Exploration", '<p class="muted">The app was not explored: no step was '
                                 'taken.</p>' + sections.trace_facts(trace), anchor="trace"))
    else:
        parts.append(layout.card("Exploration", '<p class="muted">No trace was recorded (the app was not '
                                 'explored).</p>', anchor="trace"))
    if found.instrumentation is not None:
        parts.append(layout.card("Instrumentation", sections.instrumentation(found.instrumentation)))
    if found.a11y is not None:
        parts.append(layout.card("Accessibility", sections.accessibility(found.a11y)))
    if first_shot is None and graph and graph.nodes:
        first_shot = copier.shot(app.model, app.task_id, found.prefix, graph.nodes[0].screenshot)
    errors = sum(len(s.page_errors) + len(s.console_errors) for s in trace.steps) if trace else 0
    crumbs = f'<a href="{UP}index.html#apps">apps</a> / {layout.esc(app.model)} / {layout.esc(app.task_id)}'
    html = layout.page(f"{app.model} / {app.task_id} — iwc-bench", "\n".join(p for p in parts if p), 2, crumbs)
    return html, Summary(result=app, href=href_of(app), first_shot=first_shot,
                         errors=errors or app.exploration.page_errors + app.exploration.console_errors)
