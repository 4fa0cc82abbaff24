"""The leaderboard's noise: a 95 % interval of each model's overall, and rank bands.

An overall moves for two reasons: which tasks happened to be in the run (the apps'
bootstrap), and the run itself (the same app evaluated again scores a little
differently: ``hack/bench-repeat`` measures that spread per metric, shipped as
``spread.json`` beside this module). The interval holds both, by simulation, so the
z-scores are taken again in every sample exactly as the leaderboard takes them:

* each of the 1,000 bootstrap samples draws the tasks with replacement (the same draw for
  every model) and takes each model's mean of each weighted metric over its apps in them;
* to each such mean it adds run noise e ~ Normal(0, s_m² / n): s_m is the metric's
  run-to-run spread (one app's standard deviation, in its unit), n the model's apps in
  the sample scored on it (a mean of n reruns moves by s_m / √n); under WebCoderBench's
  Table 4 ranking, whose z is per app, the noise is s_m / σ_m in z units (σ_m over all apps);
* z, overall and rank are then taken over the models as in the leaderboard;
* the interval is the 2.5th–97.5th percentile of the model's sample overalls (and
  ``rank_interval`` of its sample ranks).

A linear propagation (Σ (w·s/σ)² / n) was tried first and dropped: where two models nearly
tie on a metric, σ is close to 0 and it made one metric's noise worth several z, while the
z it stands for can only flip sign. Sampling keeps each z within what it can be.

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
import operator
import random
import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results, spread as spread_mod
from iwcbench.pipeline.stages.aggregating import standardising

BOOTSTRAP_SAMPLES = 1000
SPREAD_FILE = "spread.json"
LOW, HIGH = (1 - spread_mod.LEVEL) / 2, (1 + spread_mod.LEVEL) / 2  # percentiles of a 95 % interval


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


def per_app(apps: Sequence[results.AppResult], metrics: Sequence[str], spread: Mapping[str, float],
            fixed: Mapping[str, tuple[float, float]] | None, table4: bool) -> list[float]:
    """Per metric, one app's run noise in the unit a bootstrap sample averages: the metric's
    own, or under Table 4 its z's (the spread over the σ of all apps, or of ``fixed``'s;
    σ 0: none)."""
    if not table4:
        return [spread.get(m, 0.0) for m in metrics]
    sigma = {m: s for m, (_, s) in fixed.items()} if fixed is not None else {
        m: statistics.pstdev(vs) for m in metrics
        if (vs := [float(v) for a in apps if m in a.scores and (v := a.scores[m].value) is not None and math.isfinite(v)])}
    return [spread.get(m, 0.0) / sigma[m] if sigma.get(m, 0) > 0 else 0.0 for m in metrics]


def spans(overall: Mapping[str, float | None],
          samples: Mapping[str, Sequence[tuple[int, float | None]]]) -> dict[str, tuple[float, float]]:
    """Model → the 2.5th–97.5th percentile of its overall over the (noisy) bootstrap samples;
    none for a model without an overall or samples."""
    out = {}
    for model, value in overall.items():
        seen = sorted(v for _, v in samples.get(model, ()) if v is not None)
        if value is None or not seen:
            continue
        n = len(seen)
        out[model] = (seen[int(math.floor(LOW * (n - 1)))], seen[int(math.ceil(HIGH * (n - 1)))])
    return out


def bands(overall: Mapping[str, float | None], intervals: Mapping[str, tuple[float, float]]) -> dict[str, int]:
    """Model → rank band (1 best): chains of overlapping intervals from the top; models
    without an overall or an interval get none."""
    order = sorted((m for m in overall if overall[m] is not None and m in intervals),
                   key=lambda m: (-overall[m], m))  # type: ignore[operator]  # only models with an overall
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


def _total(picked: tuple | float) -> float:
    """Sum of what ``itemgetter`` picked (a bare item when it picked one)."""
    return sum(picked) if isinstance(picked, tuple) else picked


def rank_intervals(samples: Mapping[str, Sequence[tuple[int, float | None]]]) -> dict[str, tuple[int, int]]:
    """Model → (best, worst) rank over the middle 95 % of its bootstrap samples."""
    out = {}
    for model, seen in samples.items():
        ranks, n = sorted(rank for rank, _ in seen), len(seen)
        out[model] = (ranks[int(math.floor(0.025 * (n - 1)))], ranks[int(math.ceil(0.975 * (n - 1)))])
    return out


def _per_task(pooled: Sequence[results.AppResult], metrics: Sequence[str], models: Sequence[str],
              tasks: Sequence[str]) -> tuple[dict[str, list[list[float]]], dict[str, list[list[int]]]]:
    """Per model and metric, the sum and the count of the scored values of each task (in
    task order), so that a sample is a C-speed gather and sum instead of a pass over the apps."""
    index = {t: i for i, t in enumerate(tasks)}
    sums = {model: [[0.0] * len(tasks) for _ in metrics] for model in models}
    counts = {model: [[0] * len(tasks) for _ in metrics] for model in models}
    for a in pooled:
        for j, m in enumerate(metrics):
            v = standardising.value(a.scores.get(m))
            if v is not None:
                sums[a.model][j][index[a.task_id]] += v
                counts[a.model][j][index[a.task_id]] += 1
    return sums, counts


def bootstrap_samples(
    pooled: Sequence[results.AppResult],
    weights: Mapping[str, float],
    n: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    reference: results.Reference | None = None,
    spread: Mapping[str, float] | None = None,
) -> dict[str, list[tuple[int, float | None]]]:
    """Model → its (rank, overall) in each of ``n`` bootstrap samples of the tasks; with
    ``spread`` (metric → one app's run-to-run standard deviation) each model's mean of a
    metric in a sample also moves as a rerun would move it (the module docstring).
    ``pooled``: the apps that count, their floors filled in (aggregating.with_floors)."""
    fixed = reference.model_stats if reference is not None else None
    weights = dict(weights)
    metrics = [m for m in standardising.scored_metrics(pooled) if weights.get(m, 0) > 0]
    directions = standardising.directions(pooled)
    models = sorted({a.model for a in pooled})
    tasks = sorted({a.task_id for a in pooled})
    if not models or not tasks or n < 1:
        return {}
    table4 = metric_table.ranks_as_table4(weights)
    noise = per_app(pooled, metrics, spread or {}, reference.app_stats if reference else None, table4)
    if table4:  # the apps' z over the whole pool, resampled as Table 4 averages them
        app_z = standardising.per_app_z(pooled, metrics, directions,
                                        reference.app_stats if reference is not None else None)
        pooled = [a.model_copy(update={"scores": {m: metric_table.Score(value=z, reason="")
                                                  for m, z in zs.items() if z is not None}})
                  for a, zs in zip(pooled, app_z)]
    sums, counts = _per_task(pooled, metrics, models, tasks)
    rng = random.Random(seed)
    seen: dict[str, list[tuple[int, float | None]]] = {model: [] for model in models}
    for _ in range(n):
        pick = operator.itemgetter(*(rng.randrange(len(tasks)) for _ in tasks))
        means: dict[str, dict[str, float | None]] = {}
        for model in models:
            row: dict[str, float | None] = {}
            for j, m in enumerate(metrics):
                count = _total(pick(counts[model][j]))
                mean = _total(pick(sums[model][j])) / count if count else None
                if mean is not None and noise[j]:  # a mean of ``count`` apps moves by s / √count
                    mean += rng.gauss(0.0, noise[j] / math.sqrt(count))
                row[m] = mean
            means[model] = row
        if table4:
            overall = {model: standardising.table4_sum(means[model], weights) for model in models}
        else:
            z = standardising.leaderboard_z(means, metrics, directions, fixed)
            overall = {model: standardising.weighted(z[model], weights) for model in models}
        ranks = standardising.competition_ranks(overall)
        for model in models:
            seen[model].append((ranks[model], overall[model]))
    return seen
