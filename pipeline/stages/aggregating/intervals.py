"""The leaderboard's noise: a 95 % interval of each model's overall, and rank bands.

An overall moves for two reasons: which tasks happened to be in the run (the apps'
bootstrap), and the run itself (the same app evaluated again scores a little
differently: ``hack/bench-repeat`` measures that spread per metric, shipped as
``spread.json`` beside this module). The interval holds both, as independent variances:

    interval(M) = overall(M) ± 1.96 · √(b(M)² + r(M)²)

* b(M): the standard deviation of M's overall over the bootstrap samples (tasks drawn with
  replacement, the same draw for every model, as the rank intervals; none without samples).
* r(M)² = Σ_m (w_m · s_m / σ_m)² / n(M, m): the run noise propagated through the weights,
  over the weighted metrics M has a z for. s_m is the metric's run-to-run spread (one app's
  standard deviation, in its unit); n(M, m) the apps of M scored on m, so a mean of n apps
  moves by s_m / √n; σ_m is the σ its z divides by, held fixed (first order, as a
  reference pool holds it): the σ of the model means, or with WebCoderBench's Table 4
  ranking the σ over all apps (its z is per app), or the reference's; w_m the weight
  as the overall uses it (renormalised over M's metrics, or Table 4's as it stands).
  A metric with σ_m = 0 gives every model z = 0 and adds nothing.

s_m comes, in this order, from the shipped file (``measured``), from this run's judge
repeats for a deliberated dimension the file does not hold (``judge_repeats``: per app
JUDGE_SCALE · sd(final-judge scores) / √k over its k usable runs, pooled as √(mean of
squares); the advocate and critic are not rerun, so this is a lower bound), else 0
(``unmeasured``): no noise is invented, and results.json's ``noise`` names such metrics.

Rank bands: models ordered by overall (best first, then by name); the best opens band 1,
and each next model joins the current band when its interval overlaps the interval of a
model already in it (closed intervals: touching counts), else opens the next band. So a
band is a chain of overlaps: every member overlaps some better member of its band.

Pure arithmetic, except ``shipped``, which reads the file this package ships.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results, spread as spread_mod

SPREAD_FILE = "spread.json"


@functools.cache
def shipped() -> spread_mod.RunSpread:
    """The run-to-run spread measured by hack/bench-repeat and shipped with the project."""
    text = importlib.resources.files(__package__).joinpath(SPREAD_FILE).read_text()
    return spread_mod.RunSpread.model_validate_json(text)


def _judge_repeats(apps: Sequence[results.AppResult], name: str) -> float | None:
    """The spread of a deliberated dimension from its final-judge runs over the apps that
    have two or more (None: none has): √(mean over apps of (scale · sd / √k)²)."""
    squares = []
    for app in apps:
        score = app.scores.get(name)
        runs = [r.get("score") for r in ((score.raw or {}).get("runs") or [])] if score and score.value is not None else []
        runs = [float(v) for v in runs if isinstance(v, (int, float))]
        if len(runs) >= 2:
            squares.append((metric_table.JUDGE_SCALE * statistics.stdev(runs)) ** 2 / len(runs))
    return math.sqrt(math.fsum(squares) / len(squares)) if squares else None


def noise(apps: Sequence[results.AppResult], weights: Mapping[str, float],
          measured: spread_mod.RunSpread) -> spread_mod.Noise:
    """Per weighted metric some app scored, the run-to-run spread the intervals use and
    where it came from (the module docstring's order)."""
    names = sorted({n for a in apps for n, s in a.scores.items()
                    if s.value is not None and weights.get(n, 0) > 0})
    found, sources = {}, {}
    for name in names:
        entry = measured.metrics.get(metric_table.base_name(name))
        repeats = _judge_repeats(apps, name) if entry is None else None
        if entry is not None:
            found[name], sources[name] = entry.sd, "measured"
        elif repeats is not None:
            found[name], sources[name] = round(repeats, 4), "judge_repeats"
        else:
            found[name], sources[name] = 0.0, "unmeasured"
    return spread_mod.Noise(spread=found, sources=sources, measured=measured.measured)


def run_sd(z: Mapping[str, float | None], weights: Mapping[str, float], sigma: Mapping[str, float],
           counts: Mapping[str, int], spread: Mapping[str, float], renormalise: bool = True) -> float:
    """r(M): how far run noise moves one model's overall (one standard deviation), from its
    metric z (which metrics it is ranked on), the weights, each metric's σ, its apps
    scored per metric and each metric's run-to-run spread."""
    used = [m for m, v in z.items() if v is not None and weights.get(m, 0) > 0]
    total = math.fsum(weights[m] for m in used) if renormalise else 1.0
    terms = [(weights[m] / total * spread.get(m, 0.0) / sigma[m]) ** 2 / counts[m]
             for m in used if sigma.get(m, 0) > 0 and counts.get(m, 0) > 0]
    return math.sqrt(math.fsum(terms))


def bootstrap_sd(samples: Sequence[float | None]) -> float:
    """b(M): the standard deviation of a model's overall over the bootstrap samples (0
    without two samples)."""
    values = [v for v in samples if v is not None]
    return statistics.pstdev(values) if len(values) > 1 else 0.0


def interval(overall: float, boot: float, run: float) -> tuple[float, float]:
    half = spread_mod.Z_LEVEL * math.sqrt(boot ** 2 + run ** 2)
    return overall - half, overall + half


def bands(overall: Mapping[str, float | None], intervals: Mapping[str, tuple[float, float]]) -> dict[str, int]:
    """Model → rank band (1 best): chains of overlapping intervals from the top; models
    without an overall or an interval get none."""
    order = sorted((m for m in overall if overall[m] is not None and m in intervals),
                   key=lambda m: (-overall[m], m))  # type: ignore[operator]
    out: dict[str, int] = {}
    members: list[tuple[float, float]] = []
    for model in order:
        lo, hi = intervals[model]
        if members and not any(lo <= other_hi and other_lo <= hi for other_lo, other_hi in members):
            members = []
        if not members:
            band = (max(out.values()) if out else 0) + 1
        members.append((lo, hi))
        out[model] = band
    return out


def sigmas(values: Mapping[str, Mapping[str, Sequence[float]]], per_app: bool,
           fixed: Mapping[str, tuple[float, float]] | None) -> dict[str, float]:
    """Metric → the σ its z divides by: a reference's, or the population σ over the
    models' means (over every app when the z is per app, ``per_app``)."""
    names = {m for row in values.values() for m in row}
    if fixed is not None:
        return {m: fixed[m][1] for m in names if m in fixed}
    pools = {m: [v for row in values.values() for v in row.get(m, ())] if per_app else
             [statistics.fmean(row[m]) for row in values.values() if row.get(m)] for m in names}
    return {m: statistics.pstdev(pool) for m, pool in pools.items() if pool}


def spans(apps: Sequence[results.AppResult], overall: Mapping[str, float | None],
          z: Mapping[str, Mapping[str, float | None]], weights: Mapping[str, float], table4: bool,
          samples: Mapping[str, Sequence[tuple[int, float | None]]], measured: spread_mod.RunSpread,
          fixed: Mapping[str, tuple[float, float]] | None) -> dict[str, tuple[float, float]]:
    """Model → the 95 % interval of its overall, from the ranked apps, each model's z per
    metric and its (rank, overall) per bootstrap sample. ``table4``: the overall is
    WebCoderBench's Table 4 sum (per-app z, weights as they stand); ``fixed``: a
    reference's (μ, σ) for the z used."""
    spread = noise(apps, weights, measured).spread
    values: dict[str, dict[str, list[float]]] = {}
    for app in apps:
        for m, score in app.scores.items():
            if weights.get(m, 0) > 0 and score.value is not None and math.isfinite(score.value):
                values.setdefault(app.model, {}).setdefault(m, []).append(float(score.value))
    sigma = sigmas(values, table4, fixed)
    out = {}
    for model, value in overall.items():
        if value is None:
            continue
        counts = {m: len(vs) for m, vs in values.get(model, {}).items()}
        run = run_sd(z.get(model, {}), weights, sigma, counts, spread, renormalise=not table4)
        boot = bootstrap_sd([v for _, v in samples.get(model, ())])
        out[model] = interval(value, boot, run)
    return out
