"""The evidence sections of an app page: trace table, errors and dialogs, network,
instrumentation, accessibility.

Every string from the app (targets, values, URLs, console text, dialog text, file
names) is escaped with ``layout.esc``; URLs are shown as text, never as links. This
module must not read the store or write files: it is handed what to show.
"""

from __future__ import annotations

import urllib.parse
from typing import Mapping

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.reporting import charting, layout

EVENT_KINDS = (("page_errors", "page error", "ev-err"), ("console_errors", "console", "ev-err"),
               ("dialogs", "dialog", "ev-dlg"), ("blocked_requests", "blocked", "ev-blk"),
               ("notes", "note", "ev-note"))


def _path(url: str) -> str:
    """The part of a URL worth a column: the app is always on one loopback origin."""
    parts = urllib.parse.urlsplit(url)
    if not parts.netloc:
        return url
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def _coverage_cell(cov: evidence.CoverageSummary) -> str:
    if cov.statements is None and cov.functions is None and cov.branches is None:
        return f'<span class="faint">{layout.DASH}</span>'
    return (f'<span class="mono" title="statements / functions / branches">'
            f'{layout.number(cov.statements, 0)} / {layout.number(cov.functions, 0)} / '
            f'{layout.number(cov.branches, 0)}</span>')


def _action_cell(action: evidence.Action) -> str:
    parts = [f'<span class="chip kind">{layout.esc(action.kind)}</span>']
    if action.target:
        parts.append(f' <span class="target">{layout.clipped(action.target, 90)}</span>')
    if action.value is not None:
        parts.append(f' <code>{layout.clipped(repr(action.value), 60)}</code>')
    if action.intent:
        parts.append(f'<span class="intent">{layout.clipped(action.intent, 140)}</span>')
    return "".join(parts)


def _terms(terms: dict[str, float], shown: int) -> str:
    ranked = sorted(terms.items(), key=lambda kv: -abs(kv[1]))
    text = ", ".join(f"{name.replace('_', ' ')} {round(points, 1):+g}" for name, points in ranked[:shown])
    return text + (f", {len(ranked) - shown} more" if len(ranked) > shown else "")


def _why(choice: evidence.Choice | None) -> str:
    """Why the explorer chose the step's action: the terms that weighed most (all of
    them, and the runner-up's, on hover); docs/heuristic.md names each term."""
    if choice is None:
        return ""
    if choice.how in ("random", "stalled", "follow-up", "llm"):
        said = {"random": "a seeded random pick", "stalled": "the clicker's pick: coverage stalled",
                "follow-up": "completes the step before",
                "llm": "the LLM tester's step: coverage stalled"}[choice.how]
        return f'<div class="why faint">{said}</div>'
    if choice.score is None:  # (a form filled first, before the button the seeded random pick took)
        lead = "form filled first; " if choice.how == "form fill" else ""
        return f'<div class="why faint">{lead}a seeded random pick</div>'
    full = f"score {choice.score:g}: {_terms(choice.terms, 99)}"
    if choice.runner_up is not None:
        full += (f"\nrunner-up, {choice.runner_up.label()}: score {choice.runner_up_score:g}: "
                 f"{_terms(choice.runner_up_terms, 99)}")
    lead = "form filled first; " if choice.how == "form fill" else ""
    return (f'<div class="why faint" title="{layout.esc(full)}">{lead}why: {layout.esc(_terms(choice.terms, 3))}'
            f' (of {choice.options} options)</div>')


def _events_cell(step: evidence.Step) -> str:
    lines = []
    for field, label, cls in EVENT_KINDS:
        for text in getattr(step, field):
            lines.append(f'<div class="{cls}"><b>{label}:</b> {layout.clipped(text, 160)}</div>')
    return "".join(lines)


NO_EFFECT = ('<span class="chip idle" title="it changed nothing a user can see or the app keeps: not the '
             'page, its address, stored data, the pixels of a canvas it was aimed at; no request, dialog or window">'
             'no effect</span>')
UNTOLD = ('<span class="chip untold" title="aimed at a canvas or the page: nothing else changed, and a canvas '
          'that draws by itself or cannot be read cannot tell; left out of the no-effect ratio">effect untold</span>')


def trace_table(trace: evidence.Trace, state_of: Mapping[int, str],
                shot_links: Mapping[int, str], dom_links: Mapping[int, str],
                graph: evidence.StateGraph | None = None) -> str:
    """One row per step; links are report-relative paths we made ourselves. The state
    graph's edges say which steps had no effect, and which cannot tell."""
    rows = []
    idle = graph.idle if graph else frozenset()
    untold = graph.unsure if graph else frozenset()
    for step in trace.steps:
        status = ('<span class="chip okay">ok</span>' if step.ok else
                  f'<span class="chip fail">failed</span><div class="ev-err">{layout.clipped(step.error or "", 160)}</div>')
        if step.index in idle and step.ok:
            status += " " + NO_EFFECT
        elif step.index in untold and step.ok:
            status += " " + UNTOLD
        gain = (f'<span class="gain">+{step.coverage_gain:.1f}</span>' if step.coverage_gain > 0
                else f'<span class="faint">{layout.number(step.coverage_gain)}</span>')
        links = []
        if step.index in shot_links:
            links.append(f'<a class="shot" href="{layout.esc(shot_links[step.index])}" '
                         f'data-caption="step {step.index}">shot</a>')
        if step.index in dom_links:
            links.append(f'<a href="{layout.esc(dom_links[step.index])}">DOM</a>')
        state = state_of.get(step.index)
        rows.append(
            f'<tr id="step-{step.index}"{" class=failed" if not step.ok else ""}>'
            f'<td class="num">{step.index}</td><td>{_action_cell(step.action)}{_why(step.choice)}</td><td>{status}</td>'
            f'<td>{layout.esc(state) if state else layout.DASH}</td>'
            f'<td class="url" title="{layout.esc(step.url)}">{layout.esc(_path(step.url))}</td>'
            f'<td>{_coverage_cell(step.coverage)}</td><td class="num">{gain}</td>'
            f'<td class="events">{_events_cell(step)}</td><td class="links">{" · ".join(links)}</td></tr>')
    head = ("<tr><th class=num>step</th><th>action</th><th>result</th><th>state</th><th>url</th>"
            "<th title='statements / functions / branches, % after the step'>coverage S/F/B %</th>"
            "<th class=num title='statement percentage points gained'>gain</th><th>errors · dialogs · blocked · notes</th>"
            "<th>evidence</th></tr>")
    return f'<div class="scroll"><table class="trace"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'


def trace_facts(trace: evidence.Trace) -> str:
    rows = [("explorer", layout.esc(f"{trace.explorer} (seed {trace.seed})")),
            ("steps", layout.esc(f"{len(trace.steps)} of at most {trace.max_steps}")),
            ("stopped because", layout.esc(trace.stop_reason or layout.DASH)),
            ("start URL", f'<span class="mono">{layout.esc(trace.start_url)}</span>'),
            ("duration", layout.esc(f"{trace.duration_s:.1f} s"))]
    if trace.load_error:
        rows.append(("load error", f'<span class="ev-err">{layout.esc(trace.load_error)}</span>'))
    if trace.virtual_time:
        rows.append(("page clock", "Playwright's, paused: the page's time moved only with the steps"))
    if trace.lightened:
        rows.append(("harness lightened", "<br>".join(layout.esc(note) for note in trace.lightened)
                     + '<br><span class="muted">the page stopped responding under these parts while its '
                       'original build answered the same action: not counted as the app\'s failure</span>'))
    if trace.summary:
        rows.append(("tester's summary", layout.esc(trace.summary)))
    return f'<div style="margin-bottom:14px">{layout.facts(rows)}</div>'


def errors_list(trace: evidence.Trace) -> str:
    """Console errors, page errors and dialogs, in step order."""
    items = []
    for step in trace.steps:
        for field, label, cls in EVENT_KINDS[:3]:
            for text in getattr(step, field):
                items.append(f'<li><a class="stepref" href="#step-{step.index}">step {step.index}</a>'
                             f'<span class="{cls}"><b>{label}</b></span> '
                             f'<span class="mono">{layout.esc(text)}</span></li>')
    if not items:
        return '<p class="muted">No console errors, page errors or dialogs were seen.</p>'
    return f'<ul class="plain">{"".join(items)}</ul>'


def network_lists(trace: evidence.Trace) -> str:
    blocked: dict[str, list[int]] = {}
    for step in trace.steps:
        for url in step.blocked_requests:
            blocked.setdefault(url, []).append(step.index)
    parts = ["<h3>Blocked requests</h3>"]
    if blocked:
        parts.append('<ul class="plain">' + "".join(
            f'<li><span class="stepref">step{"s" if len(s) > 1 else ""} {", ".join(map(str, s))}</span>'
            f'<span class="mono">{layout.esc(url)}</span></li>' for url, s in blocked.items()) + "</ul>")
    else:
        parts.append('<p class="muted">None: the app asked for nothing outside its own origin.</p>')
    parts.append("<h3>Answered from the local CDN mirror</h3>")
    if trace.mirrored_requests:
        parts.append('<ul class="plain">' + "".join(f'<li class="mono">{layout.esc(url)}</li>'
                                                    for url in trace.mirrored_requests) + "</ul>")
    else:
        parts.append('<p class="muted">None.</p>')
    return "".join(parts)


def instrumentation(report: evidence.InstrumentationReport) -> str:
    chip = "evaluated" if report.mode == "instrumented" else "black_box"
    facts = layout.facts([
        ("framework", layout.esc(report.framework)),
        ("mode", f'<span class="chip {chip}">{layout.esc(report.mode.replace("_", " "))}</span>'),
        ("why", layout.esc(report.reason)),
        ("start page", layout.esc(report.entry) if report.entry else '<span class="ev-err">none found</span>'),
        ("took", layout.esc(f"{report.duration_s:.1f} s")),
    ])
    parts = [facts]
    if report.build is not None:
        parts.append(_build(report.build))
    if report.files:
        rows = "".join(f'<tr><td class="mono">{layout.esc(f.path)}</td><td>{layout.esc(f.kind)}</td>'
                       f'<td class="num">{f.statements}</td><td class="num">{f.functions}</td>'
                       f'<td class="num">{f.branches}</td></tr>' for f in report.files)
        total = (sum(f.statements for f in report.files), sum(f.functions for f in report.files),
                 sum(f.branches for f in report.files))
        rows += (f'<tr><td><b>{len(report.files)} file{"s" if len(report.files) != 1 else ""}</b></td><td></td><td class="num"><b>{total[0]}</b></td>'
                 f'<td class="num"><b>{total[1]}</b></td><td class="num"><b>{total[2]}</b></td></tr>')
        parts.append("<h3>Instrumented files</h3><div class=scroll><table><thead><tr><th>file</th><th>kind</th>"
                     "<th class=num>statements</th><th class=num>functions</th><th class=num>branches</th>"
                     f"</tr></thead><tbody>{rows}</tbody></table></div>")
    if report.skipped:
        rows = "".join(f'<li><span class="mono">{layout.esc(s.path)}</span> — '
                       f'<span class="muted">{layout.esc(s.reason)}</span></li>' for s in report.skipped)
        parts.append(f'<h3>Skipped files</h3><ul class="plain">{rows}</ul>')
    return "".join(parts)


def _build(build: evidence.BuildReport) -> str:
    """How the app was installed and built; the failing step's log tail when one failed."""
    facts = layout.facts([
        ("build", layout.esc({"instrumented": "with Istanbul", "plain": "without Istanbul (black box)",
                              "failed": "failed"}[build.result])),
        ("what happened", layout.esc(build.reason)),
        ("took", layout.esc(f"install {build.install_s:.1f} s · build {build.build_s:.1f} s")),
        ("network", layout.esc("loopback only" if build.network_isolated
                               else "not isolated: the build shared the machine's or the pod's network")),
    ])
    tail = (f'<h3>End of the failing step\'s log</h3><pre class="mono scroll">{layout.esc(build.log_tail)}</pre>'
            if build.log_tail else "")
    return f"<h3>Build</h3>{facts}{tail}"


def accessibility(report: evidence.AccessibilityReport) -> str:
    if report.error:
        return f'<p class="problem">axe-core did not finish: {layout.esc(report.error)}</p>'
    if not report.pages:
        return '<p class="muted">axe-core ran on no state.</p>'
    counts: dict[str, tuple[evidence.AxeViolation, int, list[int]]] = {}
    for step, violations in sorted(report.pages.items()):
        for v in violations:
            known = counts.get(v.id)
            counts[v.id] = (v, (known[1] if known else 0) + v.nodes, (known[2] if known else []) + [step])
    if not counts:
        return f'<p class="muted">No violations on the {len(report.pages)} state(s) checked.</p>'
    order = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3, None: 4}
    rows = "".join(
        f'<tr><td class="mono">{layout.esc(v.id)}</td><td>{layout.esc(v.impact or layout.DASH)}</td>'
        f'<td>{layout.esc(v.help)}</td><td class="num">{nodes}</td>'
        f'<td>{layout.esc(", ".join(map(str, steps)))}</td></tr>'
        for v, nodes, steps in sorted(counts.values(), key=lambda c: (order.get(c[0].impact, 4), c[0].id)))
    engine = layout.esc(f"{report.engine} {report.version or ''}".strip())
    return (f'<p class="muted">{engine}, {len(report.pages)} state(s) checked.</p>'
            f'<div class=scroll><table><thead><tr><th>rule</th><th>impact</th><th>help</th>'
            f'<th class=num>elements</th><th>at steps</th></tr></thead><tbody>{rows}</tbody></table></div>')


def coverage_block(trace: evidence.Trace, report: evidence.InstrumentationReport | None = None) -> str:
    chart = charting.coverage_chart(trace.steps)
    if not chart:
        return '<p class="muted">No coverage was measured (black box: the app ran uninstrumented).</p>'
    return (f'<div class="twocol"><div>{chart}</div><div><h3 style="margin-top:0">Final coverage</h3>'
            f'{charting.coverage_final(trace.final_coverage)}</div></div>'
            + (file_coverage(report) if report is not None else ""))


def _ran(percent: float | None, count: int, cls: str) -> str:
    """A file's count of one metric with the percent of it that ran, as a bar."""
    if not count:
        return f'<span class="faint">{layout.DASH}</span>'
    if percent is None:
        return f"{count}"
    return (f'<span class="bar {cls}"><i style="width:{percent:.1f}%"></i></span> '
            f'<span class="mono">{percent:.0f} %</span> <span class="faint">of {count}</span>')


def _function_runs(f: evidence.InstrumentedFile) -> str:
    rows = "".join(
        f'<tr class="{"ran" if run.calls else "never"}"><td class="num mono">'
        f'{run.line}{"–" + str(run.end_line) if run.end_line != run.line else ""}</td>'
        f'<td class="mono">{layout.clipped(run.name, 40)}</td><td class="mono src">{layout.esc(run.text)}</td>'
        f'<td class="num">{run.calls if run.calls else "never"}</td></tr>' for run in f.function_runs)
    ran = sum(1 for run in f.function_runs if run.calls)
    return (f'<details><summary><span class="mono">{layout.esc(f.path)}</span>: {ran} of '
            f'{len(f.function_runs)} functions ran</summary><table class="fnruns"><thead><tr>'
            f'<th class=num title="lines of the file as its author wrote it">lines</th><th>function</th>'
            f'<th>source (its first line)</th><th class=num>calls</th></tr></thead><tbody>{rows}</tbody></table>'
            f'</details>')


_SERVER_TAG = (' <span class="chip kind" title="only the app\'s own server runs this file: its counters were read '
               'from the server">server</span>')


def _server_line(files: list[tuple[evidence.InstrumentedFile, evidence.CoverageSummary]]) -> str:
    """How much of the app's server-side code ran, apart from the browser's ("" when
    the build counted none)."""
    server = [f for f, _ in files if f.side == "server"]
    if not server:
        return ""
    total = sum(f.functions for f in server)
    ran = sum(sum(1 for run in f.function_runs if run.calls) for f in server)
    return (f'<p>Server-side code (files only the app\'s own server runs): <b>{ran} of {total}</b> functions ran, '
            f'in {len(server)} file{"s" if len(server) != 1 else ""}.</p>')


def file_coverage(report: evidence.InstrumentationReport) -> str:
    """Coverage per source file (component files included) after exploring, and each
    file's functions on the lines they were written on: a component's template
    handlers on their template lines, where the framework's source map leads there.
    Empty when no file has coverage (black box, or not explored)."""
    files = [(f, f.covered) for f in report.files if f.covered is not None]
    if not files:
        return ""
    files.sort(key=lambda pair: pair[0].side == "server")  # the browser's files, then the server's
    rows = "".join(
        f'<tr><td class="mono">{layout.esc(f.path)}{_SERVER_TAG if f.side == "server" else ""}</td>'
        f'<td>{_ran(covered.statements, f.statements, "stm")}</td>'
        f'<td>{_ran(covered.functions, f.functions, "fn")}</td>'
        f'<td>{_ran(covered.branches, f.branches, "br")}</td></tr>' for f, covered in files)
    details = "".join(_function_runs(f) for f, _ in files if f.function_runs)
    return (f'<h3>Per source file</h3>{_server_line(files)}<div class=scroll><table class="perfile"><thead><tr><th>file</th>'
            '<th title="percent of the file\'s statements that ran">statements</th>'
            '<th title="percent of the file\'s functions that ran">functions</th>'
            '<th title="percent of the file\'s branch arms that ran">branches</th></tr></thead>'
            f'<tbody>{rows}</tbody></table></div>'
            f'<h3>Functions, where they were written</h3>{details}')
