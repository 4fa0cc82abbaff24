"""WebGen-Bench's UI tests in the report: per app, each test case with its verdict,
justification, steps and screenshots; per run, the Accuracy table per model with its
breakdowns by category.

Test texts come from the task file, justifications from an LLM that read the app's
pages, step targets from the app: all escaped. An unscored case or figure says why
("unscored: needs an LLM") and is never shown as 0. This module must not read the
store or write files: it is handed the records and the asset copier.
"""

from __future__ import annotations

from typing import Sequence

from iwcbench.pipeline.contracts import evidence, results, uitests
from iwcbench.pipeline.stages.reporting import assets as assets_mod, layout

VERDICT_CLASS = {"YES": "okay", "PARTIAL": "black_box", "NO": "fail"}


def verdict_chip(verdict: str | None) -> str:
    if verdict is None:
        return '<span class="chip unscored-chip">unscored</span>'
    return f'<span class="chip {VERDICT_CLASS.get(verdict, "error")}">{layout.esc(verdict)}</span>'


def _steps(trace: evidence.Trace | None, cited: Sequence[int], shots: dict[int, str]) -> str:
    if trace is None or not trace.steps:
        return '<p class="muted">No steps were recorded for this case.</p>'
    rows = []
    for step in trace.steps:
        mark = ' class="cited"' if step.index in cited else (' class="failed"' if not step.ok else "")
        status = ("" if step.ok else
                  f'<div class="ev-err">{layout.clipped(step.error or "failed", 160)}</div>')
        what = layout.esc(step.action.kind) + (f' <span class="target">{layout.clipped(step.action.target, 70)}</span>'
                                              if step.action.target and step.action.kind != "load" else "")
        if step.action.value is not None:
            what += f' <code>{layout.clipped(repr(step.action.value), 40)}</code>'
        intent = f'<span class="intent">{layout.clipped(step.action.intent, 120)}</span>' if step.action.intent else ""
        link = (f'<a class="shot" href="{layout.esc(shots[step.index])}" data-caption="step {step.index}">shot</a>'
                if step.index in shots else "")
        rows.append(f'<tr{mark}><td class="num">{step.index}</td><td>{what}{intent}{status}</td>'
                    f'<td>{"ok" if step.ok else "failed"}</td><td>{link}</td></tr>')
    return ('<div class="scroll"><table class="trace"><thead><tr><th class=num>step</th><th>action</th>'
            f'<th>result</th><th>evidence</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _case(app: results.AppResult, prefix: str, case: uitests.CaseResult, trace: evidence.Trace | None,
          copier: assets_mod.Assets, up: str) -> str:
    folder = case.trace.rsplit("/", 1)[0] if case.trace else None
    shots: dict[int, str] = {}
    for step in trace.steps if trace and folder else ():
        shot = copier.shot(app.model, app.task_id, prefix, f"{folder}/{step.screenshot}") if step.screenshot else None
        if shot:
            shots[step.index] = up + shot.full
    pictures = []
    for key in case.screenshots:
        shot = copier.shot(app.model, app.task_id, prefix, key)
        if shot:
            pictures.append(f'<a class="shot" href="{up}{shot.full}" data-caption="{layout.esc(key)}">'
                            f'<img loading="lazy" src="{up}{shot.thumb}" alt="{layout.esc(key)}"></a>')
    facts = [("expected", layout.esc(case.expected_result)),
             ("category", layout.esc(case.category or layout.DASH)),
             ("how decided", layout.esc(case.reason)),
             ("steps", layout.esc(f"{case.steps} · {case.stop_reason}" if case.stop_reason else str(case.steps)))]
    if case.evidence_steps:
        facts.append(("cited steps", layout.esc(", ".join(map(str, case.evidence_steps)))))
    if case.llm_calls or case.reasks:
        facts.append(("agent", layout.esc(f"{case.llm_calls} LLM calls, {case.reasks} re-asks")))
    if case.problems:
        facts.append(("problems", "<br>".join(layout.esc(p) for p in case.problems)))
    if case.replay:
        facts.append(("replay", f'<span class="mono">{layout.esc(case.replay)}</span>'))
    said = (f'<p class="justification">{layout.esc(case.justification)}</p>' if case.justification else
            f'<p class="unscored">{layout.esc(case.reason)}</p>')
    gallery = f'<div class="case-shots">{"".join(pictures)}</div>' if pictures else ""
    return (f'<div class="uicase" id="case-{case.index + 1}"><h3 class="case-head">{verdict_chip(case.verdict)} '
            f'<span>#{case.index + 1} {layout.esc(case.task)}</span></h3>{said}{gallery}{layout.facts(facts)}'
            f'<details><summary>the agent\'s steps</summary>{_steps(trace, case.evidence_steps, shots)}</details></div>')


def app_card(app: results.AppResult, prefix: str, report: uitests.UITestReport | None,
             traces: dict[int, evidence.Trace], copier: assets_mod.Assets, up: str) -> str:
    """The "UI tests" card of an app page ('' when the app has none)."""
    if report is None:
        if not app.ui_tests:
            return ""
        rows = "".join(f"<li>#{o.index + 1} {verdict_chip(o.verdict)} {layout.esc(o.reason)}</li>"
                       for o in app.ui_tests)
        return layout.card("UI tests", f'<ul class="plain">{rows}</ul>', "uitests.json was not found")
    counts = {v: sum(1 for c in report.cases if c.verdict == v) for v in uitests.VERDICTS}
    unscored = sum(1 for c in report.cases if c.verdict is None)
    head = (f'<p class="muted">{len(report.cases)} test cases · {counts["YES"]} YES · {counts["PARTIAL"]} PARTIAL · '
            f'{counts["NO"]} NO' + (f' · <span class="unscored">{unscored} unscored</span>' if unscored else "")
            + f' · agent {layout.esc(report.agent_model or "none (no LLM)")} · at most {report.max_steps} steps '
              f'per case · {report.duration_s:.1f} s</p>')
    body = head + "".join(_case(app, prefix, c, traces.get(c.index), copier, up) for c in report.cases)
    return layout.card("UI tests", body, "WebGen-Bench test cases, each on a fresh page · YES 1, PARTIAL ½, NO 0",
                       "uitests")


def _figure(value: float | None) -> str:
    return layout.number(value) if value is not None else '<span class="unscored">unscored</span>'


def _slices(rows: Sequence[results.UITestRow], field: str, title: str) -> str:
    names = sorted({k for r in rows for k in getattr(r, field)})
    if not names:
        return ""
    heads = "".join(f"<th class=num>{layout.esc(r.model)}</th>" for r in rows)
    body = []
    for name in names:
        cells = []
        for r in rows:
            s = getattr(r, field).get(name)
            cells.append("<td class=num>—</td>" if s is None else
                         f'<td class=num>{_figure(s.accuracy)} <span class="faint">({s.yes}/{s.partial}/{s.no})</span></td>')
        body.append(f"<tr><td>{layout.esc(name)}</td>{''.join(cells)}</tr>")
    return (f"<h3>{layout.esc(title)}</h3><div class=scroll><table><thead><tr><th></th>{heads}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def run_card(run: results.RunResults) -> str:
    """The run page's WebGen-Bench Accuracy card ('' when no task had UI test cases)."""
    rows = run.ui_tests
    if not rows:
        return ""
    body = []
    for r in rows:
        c = r.cases
        body.append(
            f'<tr><td class="nowrap"><b>{layout.esc(r.model)}</b></td>'
            f'<td class=num><b>{_figure(r.instruction_accuracy)}</b></td><td class=num>{_figure(r.accuracy)}</td>'
            f'<td class=num>{r.start_failures} of {r.instructions}</td>'
            f'<td class=num>{_figure(r.started_instruction_accuracy)}</td><td class=num>{_figure(r.started_accuracy)}</td>'
            f'<td class=num>{c.yes} / {c.partial} / {c.no}</td><td class=num>{r.page_failures}</td>'
            f'<td class=num>{r.unscored_cases}</td>'
            f'<td class=num>{layout.number(r.appearance, 2) if r.appearance is not None else _figure(None)}</td></tr>')
    unscored = [r for r in rows if r.instruction_accuracy is None]
    note = "".join(f'<p class="note unscored">{layout.esc(r.model)}: {layout.esc(r.reason)}</p>' for r in unscored)
    counted = "".join(f"<li><b>{layout.esc(r.model)}</b>: {layout.esc(r.reason)}</li>"
                      for r in rows if r.instruction_accuracy is not None)
    counted = f'<ul class="plain muted">{counted}</ul>' if counted else ""
    table = ('<div class="scroll"><table class="sortable"><thead><tr><th data-sort>model</th>'
             '<th data-sort class=num title="the card\'s primary metric: an instruction is YES when all its cases '
             'are, PARTIAL when some pass; (YES + 0.5·PARTIAL) / instructions × 100; start failures count as NO">'
             'Accuracy % (instructions)</th><th data-sort class=num title="(YES + 0.5·PARTIAL) / test cases × 100, '
             'pooled over the model\'s cases; start failures count as NO">case-level Accuracy %</th>'
             '<th class=num>start failures</th>'
             '<th data-sort class=num title="apps that started only">Accuracy, started %</th>'
             '<th data-sort class=num>case-level, started %</th><th class=num>YES / PARTIAL / NO (cases)</th>'
             '<th class=num title="cases NO because their page did not load for the agent">page did not load</th>'
             '<th class=num>unscored cases</th><th data-sort class=num>appearance 1–5</th></tr></thead>'
             f'<tbody>{"".join(body)}</tbody></table></div>')
    parts = [note, table, counted, _slices(rows, "by_primary_category", "Accuracy by the task's primary category"),
             _slices(rows, "by_task_category", "Accuracy by the test case's category")]
    return layout.card("WebGen-Bench Accuracy", "".join(parts),
                       "UI test cases run by a GUI agent · start failures and cases whose page did not load count as NO, "
                       "and are shown apart",
                       "accuracy")
