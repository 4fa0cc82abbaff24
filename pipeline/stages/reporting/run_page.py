"""The run page (index.html): run header, leaderboard, every app, and a task × model
grid of first screenshots.

Model names, task ids and reasons come from results that were derived from apps:
escaped like everything else. This module must not read the store or write files.
"""

from __future__ import annotations

import json
import math
from typing import Sequence

from iwcbench.pipeline.contracts import metrics as metrics_table, results
from iwcbench.pipeline.stages.reporting import app_page, charting, layout, uitest_sections, validation, webcoder

GRID_MAX_TASKS = 400  # rows of the screenshot grid; more are left out, with a note


def _header(run: results.RunResults, summaries: Sequence[app_page.Summary]) -> str:
    info = run.run
    counts = {o: 0 for o in layout.OUTCOMES}
    for s in summaries:
        counts[s.result.outcome] = counts.get(s.result.outcome, 0) + 1
    models = sorted({s.result.model for s in summaries})
    tasks = sorted({s.result.task_id for s in summaries})
    kpis = [f'<div class="kpi"><b>{len(summaries)}</b><span>apps · {len(models)} models · {len(tasks)} tasks</span></div>']
    kpis += [f'<div class="kpi {o}"><b>{n}</b><span>{layout.OUTCOME_LABELS.get(o, o)}</span></div>'
             for o, n in counts.items()]
    versions = " · ".join(f"{k} {v}" for k, v in info.versions.items() if v)
    rows = [("started", layout.esc(info.started_at)), ("finished", layout.esc(info.finished_at or "not finished")),
            ("config hash", f'<span class="mono">{layout.esc(info.config_hash)}</span>'),
            ("git commit", f'<span class="mono">{layout.esc(info.git_commit or "unknown")}</span>'),
            ("versions", layout.esc(versions or "not recorded"))]
    if (sandbox := _sandbox(summaries)) is not None:
        rows.append(sandbox)
    if run.weights:
        rows.append(("weights", layout.esc(" · ".join(f"{k} {v:.3g}" for k, v in run.weights.items()))))
        rows.append(("ranked by", "WebCoderBench's Table 4: each model's mean per-sample z, weighted and summed"
                     if metrics_table.ranks_as_table4(run.weights) else "z of the model means, weighted mean"))
    config = json.dumps(info.recorded_settings().model_dump(mode="json"), indent=2, sort_keys=True, default=str)
    return (f'<section class="card"><div class="hero"><div style="flex:1;min-width:340px">'
            f'<h1>Evaluation report</h1><p class="sub">{len(models)} models × {len(tasks)} tasks, '
            f'explored in a real browser and scored</p>{layout.facts(rows)}'
            f'<details><summary>configuration</summary><pre class="json">{layout.esc(config)}</pre></details>'
            f'</div><div class="kpis">{"".join(kpis)}</div></div></section>')


PERCENT_UNITS = ("%", "0-100")


def overall_name(run: results.RunResults) -> str:
    """What the run's overall is called: offline or judged (a file before schema 5: "overall")."""
    return run.ranking.name if run.ranking is not None else "overall"


def _ranking_note(run: results.RunResults) -> str:
    """What the overall ranks, where requirement satisfaction is measured instead (offline),
    and the tasks the comparison left out, with why."""
    ranking = run.ranking
    if ranking is None:
        return ""
    out = (f'<div class="note ranking"><b>{layout.esc(ranking.name.capitalize())}</b> ranks '
           f'{layout.esc(ranking.measures)}.')
    if ranking.judged_protocols:
        items = "".join(f"<li>{layout.esc(p)}</li>" for p in ranking.judged_protocols)
        out += f' Requirement satisfaction is what the judged protocols measure:<ul>{items}</ul>'
    out += "</div>"
    if ranking.left_out:
        items = "".join(f'<li><span class="mono">{layout.esc(t)}</span> — {layout.esc(why)}</li>'
                        for t, why in ranking.left_out.items())
        out += (f'<div class="note ranking">Models are compared on the {ranking.tasks_compared} '
                f'task{"s" * (ranking.tasks_compared != 1)} where every model\'s app ran; '
                f'{len(ranking.left_out)} left out (scoring.not_runnable {layout.esc(ranking.not_runnable)}; '
                f'<span class="mono">--not-runnable floor</span> floors such apps instead):<ul>{items}</ul></div>')
    return out


def _metric_scale(rows: Sequence[results.LeaderboardRow], metric: str) -> float:
    entry = metrics_table.find(metric)
    if entry is not None and entry.unit in PERCENT_UNITS:
        return 100.0
    if entry is not None and entry.unit == "1-5":
        return 5.0
    values = [abs(v) for r in rows if (v := r.metrics.get(metric)) is not None and math.isfinite(v)]
    if not values:
        return 1.0
    return 100.0 if all(0 <= v <= 100 for v in values) else max(values) or 1.0


def _metric_head(name: str, weight: float | None) -> str:
    """A leaderboard column head: the name, its unit and direction and (on hover) its
    definition from the metric table, and its weight."""
    entry = metrics_table.find(name)
    title, unit = "", ""
    if entry is not None:
        arrow = "↑" if entry.higher_is_better else "↓"
        pooled = f" · per {metrics_table.AGGREGATIONS[entry.aggregation]}" if entry.aggregation != "mean" else ""
        title = (f' title="{layout.esc(entry.definition)} ({"higher" if entry.higher_is_better else "lower"} is '
                 f'better){layout.esc(pooled)}"')
        unit = f'<br><span class="faint" style="font-weight:400">{layout.esc(entry.unit)} {arrow}</span>'
    hint = f'<br><span class="faint" style="font-weight:400">weight {weight:.3g}</span>' if weight is not None else ""
    return f'<th data-sort class="num metric"{title}>{layout.esc(name.replace("_", " "))}{unit}{hint}</th>'


def _leaderboard(run: results.RunResults) -> str:
    rows = run.leaderboard
    if not rows:
        return layout.card("Leaderboard", '<p class="muted">No model could be ranked (no app was scored).</p>')
    metrics: list[str] = []
    for r in rows:
        metrics += [m for m in r.metrics if m not in metrics]
    # WebCoderBench's metrics have their own section; here only those the leaderboard weighs
    wcb = {n for names in metrics_table.webcoder_groups().values() for n in names}
    metrics = [m for m in metrics if m not in wcb or run.weights.get(m)]
    zs = [abs(z) for r in rows for z in [r.overall, *r.z.values()] if z is not None and math.isfinite(z)]
    limit = max(1.0, max(zs, default=1.0))
    name = overall_name(run)
    heads = ['<th data-sort class=num title="rank, and rank band: models whose 95 % intervals overlap share one">'
             'rank · band</th>', '<th data-sort>model</th>',
             f'<th data-sort title="weighted sum of z-scores across the model pool, with its 95 % interval (the apps\' '
             f'bootstrap and each metric\'s run-to-run spread)">{layout.esc(name)} z</th>']
    heads += [_metric_head(m, run.weights.get(m)) for m in metrics]
    heads += ['<th data-sort class=num>apps</th>', "<th>outcomes</th>"]
    body = [f'<tr class="{_band_class(r)}">{"".join(_leaderboard_cells(rows, r, metrics, limit))}</tr>' for r in rows]
    table = (f'<div class="scroll"><table class="sortable leaderboard"><thead><tr>{"".join(heads)}</tr></thead>'
             f'<tbody>{"".join(body)}</tbody></table></div>')
    flagged = [r for r in rows if r.missing_dimensions]
    if flagged:
        table += "".join(f'<p class="note unscored"><b>{layout.esc(r.model)}</b> is ranked on fewer dimensions than '
                         f'the others: no score for {layout.esc(", ".join(r.missing_dimensions))}, so its overall is '
                         f'not comparable with theirs on those.</p>' for r in flagged)
    table = _ranking_note(run) + table + _bands_note(run)
    return layout.card(f"Leaderboard: {name}", table, "model means of raw scores, with z across the model pool · "
                       f"bars: {name} z around 0, metric means on their scale · click a column to sort", "leaderboard")



def _band_class(r: results.LeaderboardRow) -> str:
    """Rows of one band share a shade; neighbouring bands alternate, so a tie reads as one block."""
    return "" if r.band is None else f"band band-{'odd' if r.band % 2 else 'even'}"


def _bands_note(run: results.RunResults) -> str:
    """Which models tie and why; the metrics whose run noise no figure holds."""
    bands: dict[int, list[str]] = {}
    for r in run.leaderboard:
        if r.band is not None:
            bands.setdefault(r.band, []).append(r.model)
    if not bands:
        return ""
    ties = [f"<li>band {b}: <b>{layout.esc(', '.join(models))}</b> tie</li>"
            for b, models in sorted(bands.items()) if len(models) > 1]
    out = ('<p class="note bands">Rank bands: models whose 95 % intervals overlap share a band, so the order '
           'inside a band is within the noise: the apps\' bootstrap (which tasks were drawn) and each metric\'s '
           'run-to-run spread (the same app evaluated again; <span class="mono">hack/bench-repeat</span>). '
           + (f'</p><ul class="bands">{"".join(ties)}</ul>' if ties else "No two models tie.</p>"))
    unmeasured = [m for m, source in (run.noise.sources if run.noise else {}).items() if source == "unmeasured"]
    if unmeasured:
        out += (f'<p class="faint">No run-to-run spread measured for {layout.esc(", ".join(unmeasured))}: the '
                f'intervals hold only their bootstrap.</p>')
    return out


def _leaderboard_cells(rows: Sequence[results.LeaderboardRow], r: results.LeaderboardRow, metrics: list[str], limit: float) -> list[str]:
    """One model's row of the leaderboard table."""
    interval = (f"<span class='chip band' title='rank band: models whose 95 % intervals overlap share one (95 % "
                f"rank interval {r.rank_interval[0] if r.rank_interval else '–'}–"
                f"{r.rank_interval[1] if r.rank_interval else '–'})'>band {r.band}</span>" if r.band is not None else "")
    spread = (f'<small class="interval" title="95 % interval: the apps\' bootstrap and each metric\'s run-to-run '
              f'spread">{layout.signed(r.interval[0])} … {layout.signed(r.interval[1])}</small>'
              if r.interval else "")
    fewer = (f'<br><span class="chip unscored" title="other models were ranked on these too; this overall '
             f'stands on fewer dimensions">ranked without {layout.esc(", ".join(r.missing_dimensions))}</span>'
             if r.missing_dimensions else "")
    cells = [f'<td class="num" data-v="{r.rank}"><span class="rank">{r.rank}{interval}</span></td>',
             f'<td class="nowrap"><b>{layout.esc(r.model)}</b>{fewer}</td>',
             f'<td data-v="{layout.sort_value(r.overall)}" style="white-space:nowrap">'
             f'{charting.diverging(r.overall, limit)}<span class="overall">{layout.signed(r.overall)}</span>{spread}</td>']
    for m in metrics:
        value, z = r.metrics.get(m), r.z.get(m)
        scale = _metric_scale(rows, m)
        shown = layout.number(value) if value is not None else '<span class="unscored">unscored</span>'
        missing, absent = r.unscored.get(m, 0), r.not_applicable.get(m, 0)
        note = (f'<br><span class="faint" title="apps of this model left unscored on it (our side could not '
                f'measure it): not in its mean">{missing} unscored</span>' if missing else "")
        note += (f'<br><span class="faint" title="apps of this model with nothing this metric is about (no media, '
                 f'fewer than two icons...): not in its mean">{absent} n/a</span>' if absent else "")
        cells.append(f'<td class="metric-cell num" data-v="{layout.sort_value(value)}">'
                     f'<span class="val">{shown}</span>{charting.bar(value, scale, "metric")}{layout.z_text(z)}'
                     f'{note}</td>')
    outcomes = "".join(f'<span class="chip {layout.esc(o)}">{n} {layout.esc(layout.OUTCOME_LABELS.get(o, o))}</span>'
                       for o, n in r.outcomes.items() if n)
    outcomes += (f'<span class="chip not_runnable" title="apps in tasks the ranking left out: in no mean">'
                 f'{r.left_out} left out</span>' if r.left_out else "")
    cells += [f'<td class="num">{r.apps}</td>', f'<td><div class="mini-outcomes">{outcomes}</div></td>']
    return cells


def _framework(inst: results.InstrumentationSummary) -> str:
    """The app's framework; for a built app, how the build went and how long it took."""
    name = layout.esc(inst.framework or "—")
    if not inst.build:
        return name
    took = f" · {inst.build_s:.0f} s" if inst.build_s is not None else ""
    how = {"instrumented": "built with Istanbul", "plain": "built without Istanbul", "failed": "not built"}[inst.build]
    shared = ('<br><span class="problem">network not isolated</span>' if inst.network_isolated is False else "")
    return f'{name}<br><span class="faint">{layout.esc(how + took)}</span>{shared}'


def _sandbox(summaries: Sequence[app_page.Summary]) -> tuple[str, str] | None:
    """How many built apps' builds and servers had loopback only; None when no app was built."""
    built = [s.result.instrumentation.network_isolated for s in summaries
             if s.result.instrumentation.network_isolated is not None]
    if not built:
        return None
    isolated = sum(built)
    text = f"{isolated} of {len(built)} built apps had loopback only"
    if isolated == len(built):
        return "build sandbox", layout.esc(text)
    return "build sandbox", (f'<span class="problem">{layout.esc(text)}</span>: the others\' builds and servers '
                             "shared the machine's or the pod's network (network_isolated: false)")


def _apps(summaries: Sequence[app_page.Summary], name: str = "overall") -> str:
    body = []
    for s in summaries:
        r, ex = s.result, s.result.exploration
        body.append(
            f'<tr><td class="nowrap">{layout.esc(r.model)}</td>'
            f'<td class="nowrap"><a href="{layout.esc(s.href)}">{layout.esc(r.task_id)}</a></td>'
            f'<td data-v="{layout.esc(r.outcome)}">{layout.outcome_chip(r.outcome)}</td>'
            f'<td class="nowrap">{_framework(r.instrumentation)}</td>'
            f'<td class="reason">{layout.clipped(r.reason, 110)}</td>'
            f'<td class="num" data-v="{layout.sort_value(r.overall)}">{layout.signed(r.overall)}</td>'
            f'<td data-v="{layout.sort_value(ex.coverage.statements)}">{charting.coverage_bars(ex.coverage)}</td>'
            f'<td class="num">{ex.states}</td><td class="num">{ex.steps}</td>'
            f'<td class="num" data-v="{s.errors}">{s.errors if s.errors else "<span class=faint>0</span>"}</td></tr>')
    table = (f'<div class="filter"><input type="search" placeholder="filter: model, task, outcome, reason…" '
             f'data-filter="apps-table" data-count="apps-count"><span id="apps-count" class="faint">'
             f'{len(summaries)} shown</span></div>'
             f'<div class="scroll"><table class="sortable" id="apps-table"><thead><tr><th data-sort>model</th>'
             f'<th data-sort>task</th><th data-sort>outcome</th><th data-sort>framework</th><th>reason</th>'
             f'<th data-sort class=num>{layout.esc(name)}</th><th data-sort>coverage</th><th data-sort class=num>states</th>'
             f'<th data-sort class=num>steps</th><th data-sort class=num>errors</th></tr></thead>'
             f'<tbody>{"".join(body)}</tbody></table></div>')
    return layout.card("Apps", table, "every app of the run · click a task for its page", "apps")


def _grid(summaries: Sequence[app_page.Summary], models: Sequence[str]) -> str:
    by_task: dict[str, dict[str, app_page.Summary]] = {}
    for summary in summaries:
        by_task.setdefault(summary.result.task_id, {})[summary.result.model] = summary
    tasks = sorted(by_task)
    note = ""
    if len(tasks) > GRID_MAX_TASKS:
        note = f'<p class="note">Showing the first {GRID_MAX_TASKS} of {len(tasks)} tasks.</p>'
        tasks = tasks[:GRID_MAX_TASKS]
    cells = ['<div></div>'] + [f'<div class="head">{layout.esc(m)}</div>' for m in models]
    for t in tasks:
        cells.append(f'<div class="task">{layout.esc(t)}</div>')
        for m in models:
            s = by_task[t].get(m)
            if s is None:
                cells.append('<div class="tile"><div class="noshot">no app</div></div>')
                continue
            r = s.result
            picture = (f'<img loading="lazy" src="{layout.esc(s.first_shot.thumb)}" alt="first screen">'
                       if s.first_shot else
                       f'<div class="noshot">{layout.esc(layout.short(r.reason, 90)) or "no screenshot"}</div>')
            cells.append(f'<a class="tile {layout.esc(r.outcome)}" href="{layout.esc(s.href)}" '
                         f'title="{layout.esc(r.model + " / " + r.task_id + ": " + r.reason)}">{picture}'
                         f'<span class="cap">{layout.outcome_chip(r.outcome)}<b>{layout.signed(r.overall)}</b></span></a>')
    style = f"grid-template-columns: minmax(90px, 160px) repeat({len(models)}, minmax(160px, 260px))"
    return layout.card("First screens, task by model",
                       f'{note}<div class="scroll"><div class="grid-compare" style="{style}">{"".join(cells)}</div></div>',
                       "the page each app opened on · border colour: outcome", "grid")


def _skipped(run: results.RunResults) -> str:
    if not run.skipped:
        return ""
    items = "".join(f'<li><span class="mono">{layout.esc(s.path)}</span> — <span class="muted">'
                    f'{layout.esc(s.reason)}</span></li>' for s in run.skipped)
    return layout.card("Skipped input", f'<ul class="plain">{items}</ul>',
                       "entries of the input that are not apps of a known task")


def build(run: results.RunResults, summaries: Sequence[app_page.Summary],
          found: validation.Found = validation.Found()) -> str:
    models = [r.model for r in run.leaderboard]
    models += sorted({s.result.model for s in summaries} - set(models))
    body = [_header(run, summaries), _leaderboard(run), uitest_sections.run_card(run), webcoder.run_section(run),
            validation.section(run, found),
            _apps(summaries, overall_name(run))]
    if summaries:
        body.append(_grid(summaries, models))
    body.append(_skipped(run))
    crumbs = (f'run {layout.esc(run.run.started_at)} · <a href="#leaderboard">leaderboard</a> · '
              + ('<a href="#webcoder">WebCoderBench</a> · ' if run.webcoder else "")
              + '<a href="#validation">validation</a> · <a href="#apps">apps</a> · <a href="#grid">screens</a>')
    return layout.page("iwc-bench report", "\n".join(b for b in body if b), 0, crumbs)
