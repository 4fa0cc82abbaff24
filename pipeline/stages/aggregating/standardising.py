"""The leaderboard's z-score arithmetic: which apps a pool holds, a score's value, each
metric's direction, μ and σ, z per metric (over the models' means, over the apps, and
WebCoderBench's Table 4 mean of the apps' z), weighted overalls and competition ranks.

Pure arithmetic on AppResults. It must not decide which apps take floors or which tasks
are left out (the package's rules, __init__.py), nor sample (intervals.py).
"""

from __future__ import annotations

import math
import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results

TIE = 9  # overalls equal to this many decimals share a rank



def pooled(apps: Sequence[results.AppResult]) -> list[results.AppResult]:
    """The apps that count: all but those our side failed on (results.OUR_FAULT)."""
    return [a for a in apps if a.outcome not in results.OUR_FAULT]



def value(score: metric_table.Score | None) -> float | None:
    """A score's finite value, or None (unscored, or not a number)."""
    if score is None or score.value is None or not math.isfinite(score.value):
        return None
    return float(score.value)


def directions(apps: Sequence[results.AppResult]) -> dict[str, bool]:
    """Metric → higher is better: the table's, or a score's own for names outside it."""
    found: dict[str, bool] = {}
    for app in apps:
        for name, score in app.scores.items():
            if name not in found:
                metric = metric_table.find(name)
                found[name] = metric.higher_is_better if metric is not None else score.higher_is_better
    return found


def scored_metrics(apps: Sequence[results.AppResult]) -> list[str]:
    """Metrics with at least one scored value, known ones in a fixed order first."""
    names = {n for a in apps for n, s in a.scores.items() if value(s) is not None}
    known = [n for n in metric_table.names() if n in names]
    return known + sorted(names - set(known))


def mean_sigma(values: Sequence[float]) -> tuple[float, float]:
    """μ and the population σ (plain float arithmetic: statistics.pstdev is exact but
    far too slow for the thousands of bootstrap samples)."""
    mu = math.fsum(values) / len(values)
    return mu, math.sqrt(math.fsum((v - mu) ** 2 for v in values) / len(values))


def zscores(values: Mapping[str, float], higher_is_better: bool = True,
            fixed: tuple[float, float] | None = None) -> dict[str, float]:
    """z of each value against all of them, or against ``fixed`` (μ, σ) of a reference
    pool (population σ; σ = 0 → 0), signed so that positive is better."""
    if not values:
        return {}
    mu, sigma = fixed if fixed is not None else mean_sigma(list(values.values()))
    sign = 1.0 if higher_is_better else -1.0
    return {k: (sign * (v - mu) / sigma if sigma > 0 else 0.0) for k, v in values.items()}


def weighted(z: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Σ w·z / Σ w over the metrics with a z and a positive weight; None if none."""
    pairs = [(weights[m], v) for m, v in z.items() if v is not None and weights.get(m, 0) > 0]
    total = sum(w for w, _ in pairs)
    return sum(w * v for w, v in pairs) / total if total > 0 else None


def model_means(apps: Sequence[results.AppResult], metrics: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Model → metric → mean raw score over its scored apps (None: none scored)."""
    sums: dict[str, dict[str, list[float]]] = {}
    for app in pooled(apps):
        row = sums.setdefault(app.model, {m: [] for m in metrics})
        for m in metrics:
            v = value(app.scores.get(m))
            if v is not None:
                row[m].append(v)
    return {model: {m: (statistics.fmean(vs) if vs else None) for m, vs in row.items()}
            for model, row in sums.items()}


def leaderboard_z(means: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str],
                  directions: Mapping[str, bool],
                  fixed: Mapping[str, tuple[float, float]] | None = None) -> dict[str, dict[str, float | None]]:
    """Model → metric → its z over the models' values (or against ``fixed`` μ and σ; a
    metric the reference lacks gets none)."""
    z: dict[str, dict[str, float | None]] = {model: {} for model in means}
    for m in metrics:
        present = {model: v for model, row in means.items() if (v := row.get(m)) is not None}
        if fixed is not None and m not in fixed:
            present = {}  # the reference pool never scored this metric: no z
        scored = zscores(present, directions.get(m, True), fixed.get(m) if fixed is not None else None)
        for model in means:
            z[model][m] = scored.get(model)
    return z


def per_app_z(pooled: Sequence[results.AppResult], metrics: Sequence[str], directions: Mapping[str, bool],
              fixed: Mapping[str, tuple[float, float]] | None) -> list[dict[str, float | None]]:
    """Per app (in order), metric → its z against every pooled app that scored it (or
    against ``fixed`` μ and σ; a metric the reference lacks gets none)."""
    app_z: list[dict[str, float | None]] = [{} for _ in pooled]
    for m in metrics:
        values = {str(i): v for i, a in enumerate(pooled) if (v := value(a.scores.get(m))) is not None}
        if fixed is not None and m not in fixed:
            values = {}
        scored = zscores(values, directions.get(m, True), fixed.get(m) if fixed is not None else None)
        for i, row in enumerate(app_z):
            row[m] = scored.get(str(i))
    return app_z


def mean_sample_z(pooled: Sequence[results.AppResult], app_z: Sequence[Mapping[str, float | None]],
                  metrics: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Model → metric → the mean z of its apps that have one (Table 4's); None: none has."""
    found: dict[str, dict[str, list[float]]] = {}
    for a, zs in zip(pooled, app_z):
        row = found.setdefault(a.model, {m: [] for m in metrics})
        for m in metrics:
            if (z := zs.get(m)) is not None:
                row[m].append(z)
    return {model: {m: (statistics.fmean(v) if v else None) for m, v in row.items()} for model, row in found.items()}


def table4_sum(z: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Σ weight · z over the weighted metrics with a z (WebCoderBench's sum, not
    renormalised); None if none has one."""
    present = [weights[m] * v for m, v in z.items() if v is not None and weights.get(m, 0) > 0]
    return math.fsum(present) if present else None


def competition_ranks(overall: Mapping[str, float | None]) -> dict[str, int]:
    """Competition ranks: 1 is best, ties share the lowest rank, None last."""
    scored = sorted((round(v, TIE) for v in overall.values() if v is not None), reverse=True)
    ranks = {}
    for model, v in overall.items():
        ranks[model] = scored.index(round(v, TIE)) + 1 if v is not None else len(scored) + 1
    return ranks
