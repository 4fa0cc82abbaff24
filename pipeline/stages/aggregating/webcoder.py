"""WebCoderBench's aggregation (seed 002, §4.3, Tables 4 and 5).

* z per sample: for every weighted metric, each app's raw score is turned into
  ``z = (x − μ) / σ`` over all apps of the run that scored it (population σ; σ = 0
  gives 0; a lower-is-better metric has its sign flipped, so positive is good).
* Table 4: per model, the mean z of each metric over its apps, times the metric's
  weight, summed within each perspective; the perspectives summed are the overall,
  ranked (1 best, ties share the lowest rank). A metric none of the model's apps
  scored adds nothing (the pool's average).
* Table 5: an app's own overall is Σ weight · z over the metrics it scored; the
  mean of that over the apps whose task carries a label value (complexity L1–L5,
  clarity C1–C3, style S1–S4, category, input modality), per model and over all
  models.

Apps with outcome ``error`` (our failure) are left out; ``start_failed`` apps take part
with their floor scores, ``not_runnable`` apps (not runnable in this environment) on the
metrics their source was scored on. Pure arithmetic: it must not read the store or score anything.
"""

from __future__ import annotations

import math
import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results, task

LABELS = ("complexity", "clarity", "style", "category", "modality")
_TIE = 9


def _value(score: metric_table.Score | None) -> float | None:
    if score is None or score.value is None or not math.isfinite(score.value):
        return None
    return float(score.value)


def perspective_of(name: str) -> str | None:
    entry = metric_table.find(name)
    return entry.perspective if entry is not None else None


def sample_z(apps: Sequence[results.AppResult], names: Sequence[str],
             fixed: Mapping[str, tuple[float, float]] | None = None) -> list[dict[str, float]]:
    """Per app (in order), metric → z over every app that scored the metric, or against
    ``fixed`` μ and σ of a reference run's apps (a metric it lacks gets no z)."""
    out: list[dict[str, float]] = [{} for _ in apps]
    for name in names:
        values = [(i, v) for i, a in enumerate(apps) if (v := _value(a.scores.get(name))) is not None]
        if not values or (fixed is not None and name not in fixed):
            continue
        if fixed is not None:
            mu, sigma = fixed[name]
        else:
            mu = math.fsum(v for _, v in values) / len(values)
            sigma = math.sqrt(math.fsum((v - mu) ** 2 for _, v in values) / len(values))
        sign = 1.0 if metric_table.higher_is_better(name) else -1.0
        for i, v in values:
            out[i][name] = sign * (v - mu) / sigma if sigma > 0 else 0.0
    return out


def _ranks(overall: Mapping[str, float | None]) -> dict[str, int]:
    scored = sorted((round(v, _TIE) for v in overall.values() if v is not None), reverse=True)
    return {m: (scored.index(round(v, _TIE)) + 1 if v is not None else len(scored) + 1) for m, v in overall.items()}


def summarise(apps: Sequence[results.AppResult], weights: Mapping[str, float],
              tasks: Mapping[str, task.Task] | None = None,
              fixed: Mapping[str, tuple[float, float]] | None = None) -> results.WebCoderSummary | None:
    """Table 4 and Table 5 of ``apps`` under ``weights`` (metrics without a perspective
    are left out), z against ``fixed`` μ and σ when given (a reference run's apps); None
    when no weighted metric was scored."""
    pooled = [a for a in apps if a.outcome != "error"]
    names = [n for n in metric_table.names() if weights.get(n, 0) > 0 and perspective_of(n) is not None]
    names += sorted(n for n in weights if n not in names and weights[n] > 0 and perspective_of(n) is not None)
    if not any(_value(a.scores.get(n)) is not None for a in pooled for n in names):
        return None
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(perspective_of(n) or "", []).append(n)
    per_sample = sample_z(pooled, names, fixed)

    rows: dict[str, dict] = {}
    for model in sorted({a.model for a in pooled}):
        mine = [i for i, a in enumerate(pooled) if a.model == model]
        metric_z, metric_mean = {}, {}
        for n in names:
            zs = [per_sample[i][n] for i in mine if n in per_sample[i]]
            raw = [v for i in mine if (v := _value(pooled[i].scores.get(n))) is not None]
            metric_z[n] = statistics.fmean(zs) if zs else None
            metric_mean[n] = statistics.fmean(raw) if raw else None
        perspectives = {}
        for p, members in groups.items():
            present = [weights[n] * z for n in members if (z := metric_z[n]) is not None]
            perspectives[p] = math.fsum(present) if present else None
        present = [v for v in perspectives.values() if v is not None]
        rows[model] = {"overall": math.fsum(present) if present else None, "perspectives": perspectives,
                       "metric_z": metric_z, "metric_mean": metric_mean, "samples": len(mine)}
    ranks = _ranks({m: r["overall"] for m, r in rows.items()})
    table = tuple(results.PerspectiveRow(rank=ranks[m], model=m, **rows[m])
                  for m in sorted(rows, key=lambda m: (ranks[m], m)))

    overall_of = [math.fsum(weights[n] * z for n, z in zs.items()) if zs else None for zs in per_sample]
    labels, unlabelled = _labels(pooled, overall_of, tasks or {})
    total = sum(weights[n] for n in names)
    perspective_weights = {p: sum(weights[n] for n in members) / total for p, members in groups.items()}
    return results.WebCoderSummary(weights={n: weights[n] for n in names}, perspective_weights=perspective_weights,
                                   table=table, labels=labels, unlabelled=unlabelled)


def _label_value(item: task.Task | None, label: str) -> str | None:
    return getattr(item.labels, label, None) if item is not None else None


def _labels(apps: Sequence[results.AppResult], overall_of: Sequence[float | None],
            tasks: Mapping[str, task.Task]) -> tuple[tuple[results.LabelRow, ...], dict[str, int]]:
    cells: dict[tuple[str, str, str | None], list[float]] = {}
    counts: dict[tuple[str, str, str | None], int] = {}
    unlabelled = {label: 0 for label in LABELS}
    for app, overall in zip(apps, overall_of):
        item = tasks.get(app.task_id)
        for label in LABELS:
            value = _label_value(item, label)
            if value is None:
                unlabelled[label] += 1
                continue
            for model in (app.model, None):
                key = (label, str(value), model)
                counts[key] = counts.get(key, 0) + 1
                if overall is not None:
                    cells.setdefault(key, []).append(overall)
    order = {label: i for i, label in enumerate(LABELS)}
    rows = tuple(results.LabelRow(label=label, value=value, model=model, samples=counts[(label, value, model)],
                                  overall=statistics.fmean(cells[(label, value, model)])
                                  if (label, value, model) in cells else None)
                 for label, value, model in sorted(counts, key=lambda k: (order[k[0]], k[1], k[2] or "")))
    return rows, {k: v for k, v in unlabelled.items() if v}
