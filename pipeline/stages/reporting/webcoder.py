"""WebCoderBench in the report: its Table 4 (weighted z per perspective, overall, rank),
a perspective chart per model, the per-metric means and z, its Table 5 (overall by
requirement label), and on each app page the 24 metrics by perspective, each with its
value or the reason it is unscored.

Numbers are ours; metric names, definitions and reasons come from the metric table
and the scores, and are escaped. This module must not read the store or write files.
"""

from __future__ import annotations

import math
from typing import Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results
from iwcbench.pipeline.stages.reporting import layout

SHORT = {"code_quality": "Code", "visual_quality": "Visual", "content_quality": "Content",
         "performance": "Performance", "accessibility": "Accessibility", "maintainability": "Maintainability",
         "functional_alignment": "Functional align.", "visual_alignment": "Visual align.",
         "content_alignment": "Content align."}
LABEL_NAMES = {"complexity": "Artifact complexity", "clarity": "Clarity of requirement",
               "style": "Style of expression", "category": "Application category", "modality": "Input modality"}
LABEL_VALUES = {"L1": "L1 highly simple", "L2": "L2 simple", "L3": "L3 medium", "L4": "L4 complex",
                "L5": "L5 highly complex", "C1": "C1 clear", "C2": "C2 intermediate", "C3": "C3 vague",
                "S1": "S1 technical", "S2": "S2 colloquial", "S3": "S3 role-playing", "S4": "S4 analogy",
                "text": "text only", "text_image": "text with images", "text_url": "text with URLs"}


def percent(value: float | None) -> str:
    """A weighted z as the paper prints it: standard deviations × 100, signed."""
    if value is None or not math.isfinite(value):
        return layout.DASH
    return layout.signed(100 * value) + " %"


def _cell(value: float | None, bold: bool = False) -> str:
    cls = "zero" if value is None else ("pos" if value > 0 else "neg" if value < 0 else "zero")
    shown = f"<b>{percent(value)}</b>" if bold else percent(value)
    return f'<td class="num wcb-cell" data-v="{layout.sort_value(value)}"><span class="z {cls}">{shown}</span></td>'


def chart(row: results.PerspectiveRow, limit: float) -> str:
    """Nine diverging bars (one per perspective) for one model, as SVG."""
    names = list(row.perspectives)
    label_w, bar_w, line = 118, 200, 18
    width = label_w + bar_w + 74  # room for the value right of the longest bar
    height = line * len(names) + 24
    mid = label_w + bar_w / 2
    parts = [f'<svg class="wcb-chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
             f'aria-label="weighted z per perspective of {layout.esc(row.model)}" font-size="11" '
             f'font-family="system-ui, sans-serif">',
             f'<line x1="{mid}" x2="{mid}" y1="2" y2="{height - 20}" stroke="#8c959f"/>']
    for i, name in enumerate(names):
        value = row.perspectives[name]
        y = 4 + i * line
        parts.append(f'<text x="{label_w - 6}" y="{y + 11}" text-anchor="end" fill="#57606a">'
                     f'{layout.esc(SHORT.get(name, name))}</text>')
        if value is not None and limit > 0:
            length = min(1.0, abs(value) / limit) * bar_w / 2
            x = mid if value >= 0 else mid - length
            colour = "#1a7f37" if value >= 0 else "#cf222e"
            parts.append(f'<rect x="{x:.1f}" y="{y + 2}" width="{length:.1f}" height="{line - 6}" rx="2" '
                         f'fill="{colour}"><title>{layout.esc(name)}: {percent(value)}</title></rect>')
        parts.append(f'<text x="{width - 2}" y="{y + 11}" text-anchor="end" fill="#24292f">{percent(value)}</text>')
    parts.append(f'<text x="{mid}" y="{height - 6}" text-anchor="middle" fill="#818b98">0 (pool average) · '
                 f'±{100 * limit:.1f} % at the ends</text></svg>')
    return "".join(parts)


def _limit(rows: Sequence[results.PerspectiveRow]) -> float:
    values = [abs(v) for r in rows for v in r.perspectives.values() if v is not None and math.isfinite(v)]
    return max(values, default=0.0) or 1.0


def _table4(summary: results.WebCoderSummary) -> str:
    rows = summary.table
    perspectives = list(rows[0].perspectives) if rows else []
    heads = ['<th data-sort class=num>rank</th>', '<th data-sort>model</th>']
    heads += [f'<th data-sort class="num" title="{layout.esc(p)}: weight {100 * summary.perspective_weights.get(p, 0):.1f} %">'
              f'{layout.esc(SHORT.get(p, p))}<br><span class="faint" style="font-weight:400">'
              f'{100 * summary.perspective_weights.get(p, 0):.1f} %</span></th>' for p in perspectives]
    heads += ['<th data-sort class=num title="Table 4: Σ of the perspectives\' weighted z">Σ</th>',
              '<th data-sort class=num>apps</th>']
    body = []
    for r in rows:
        cells = [f'<td class="num"><span class="rank">{r.rank}</span></td>', f'<td class="nowrap"><b>{layout.esc(r.model)}</b></td>']
        cells += [_cell(r.perspectives.get(p)) for p in perspectives]
        cells += [_cell(r.overall, bold=True), f'<td class="num">{r.samples}</td>']
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="sortable wcb-table"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _charts(summary: results.WebCoderSummary) -> str:
    limit = _limit(summary.table)
    figures = "".join(f'<figure class="wcb-figure"><figcaption><b>{layout.esc(r.model)}</b> '
                      f'<span class="muted">rank {r.rank} · Σ {percent(r.overall)}</span></figcaption>'
                      f'{chart(r, limit)}</figure>' for r in summary.table)
    return f'<div class="wcb-charts">{figures}</div>'


def _metrics(summary: results.WebCoderSummary) -> str:
    models = [r.model for r in summary.table]
    heads = "".join(f"<th class=num>{layout.esc(m)}</th>" for m in models)
    body = []
    for name, weight in summary.weights.items():
        entry = metric_table.find(name)
        title = layout.esc(entry.definition) if entry else ""
        cells = []
        for r in summary.table:
            mean, z = r.metric_mean.get(name), r.metric_z.get(name)
            cells.append(f'<td class="num">{layout.number(mean)} {layout.z_text(z)}</td>')
        body.append(f'<tr><td title="{title}"><b>{layout.esc(name)}</b><br><span class="faint">'
                    f'{layout.esc(entry.perspective if entry else "")} · weight {100 * weight:.2f} %</span></td>'
                    f'{"".join(cells)}</tr>')
    return (f'<details><summary>every metric: model mean and mean z</summary><div class="scroll">'
            f'<table class="wcb-metrics"><thead><tr><th>metric</th>{heads}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div></details>')


def _table5(summary: results.WebCoderSummary) -> str:
    if not summary.labels:
        unlabelled = sum(summary.unlabelled.values())
        return ('<p class="muted">No task carries WebCoderBench labels (complexity, clarity, style, category, '
                f'input modality) — {unlabelled} label slots empty.</p>' if unlabelled else "")
    models = sorted({r.model for r in summary.labels if r.model is not None})
    heads = "<th>label</th><th class=num>all models</th>" + "".join(f"<th class=num>{layout.esc(m)}</th>" for m in models)
    cells: dict[tuple[str, str], dict[str | None, results.LabelRow]] = {}
    for label_row in summary.labels:
        cells.setdefault((label_row.label, label_row.value), {})[label_row.model] = label_row
    body, current = [], None
    for (label, value), by_model in cells.items():
        if label != current:
            current = label
            body.append(f'<tr class="group"><td colspan="{2 + len(models)}"><b>{layout.esc(LABEL_NAMES.get(label, label))}'
                        f'</b></td></tr>')
        row = [f'<td>{layout.esc(LABEL_VALUES.get(value, value))}</td>']
        for model in (None, *models):
            r = by_model.get(model)
            row.append(f'<td class="num">{percent(r.overall) if r else layout.DASH}'
                       f'{f" <span class=faint>({r.samples})</span>" if r else ""}</td>')
        body.append(f"<tr>{''.join(row)}</tr>")
    note = ""
    if summary.unlabelled:
        note = ('<p class="note">Apps whose task lacks a label are left out of that label: '
                + ", ".join(f"{layout.esc(k)} {v}" for k, v in summary.unlabelled.items()) + ".</p>")
    return (f'<div class="scroll"><table class="wcb-labels"><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}'
            f'</tbody></table></div>{note}')


def run_section(run: results.RunResults) -> str:
    summary = run.webcoder
    if summary is None or not summary.table:
        return ""
    body = (_table4(summary) + _charts(summary) + _metrics(summary)
            + "<h3>Overall by requirement label (Table 5)</h3>" + _table5(summary))
    return layout.card("WebCoderBench", body, "weighted z of each perspective, summed (Table 4) · z per app over "
                       "every app, averaged per model · in standard deviations × 100", "webcoder")


def app_section(app: results.AppResult) -> str:
    """The 24 metrics of one app by perspective: value, or unscored with the reason."""
    rows = []
    groups = metric_table.webcoder_groups()
    if not any(n in app.scores for names in groups.values() for n in names):
        return ""
    for perspective, names in groups.items():
        rows.append(f'<tr class="group"><td colspan="3"><b>{layout.esc(SHORT.get(perspective, perspective))}</b>'
                    f' <span class="faint">{layout.esc(perspective)}</span></td></tr>')
        for name in names:
            entry = metric_table.BY_NAME[name]
            score = app.scores.get(name)
            title = f' title="{layout.esc(entry.definition)}"'
            kind = "LLM" if entry.kind == "llm" else "rule"
            if score is None:
                value = '<span class="faint">not run</span>'
                why = ('<span class="faint">no judge model in this run (--judge MODEL)</span>' if entry.kind == "llm"
                       else '<span class="faint">not selected in this run (--metrics, --no-quality)</span>')
            elif score.status == "not_applicable":  # nothing to measure: not a failure, not highlighted as one
                value = '<span class="faint">n/a</span>'
                why = f'<span class="faint">{layout.esc(score.reason)}</span>'
            elif score.value is None or not math.isfinite(score.value):
                value = '<span class="unscored">unscored</span>'
                why = f'<span class="unscored">{layout.esc(score.reason)}</span>'
            else:
                value = f'<b>{score.value:.1f}</b>'
                why = layout.esc(score.reason)
            rows.append(f'<tr><td{title}>{layout.esc(name)} <span class="chip kind">{kind}</span></td>'
                        f'<td class="value num">{value}</td><td class="reason">{why}</td></tr>')
    table = (f'<div class="scroll"><table class="scores wcb-app"><thead><tr><th>metric</th><th>value 0-100</th>'
             f'<th>reason</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return layout.card("WebCoderBench metrics", table, "24 metrics in 9 perspectives · higher is better · hover a "
                       "name for its definition", "webcoder")
