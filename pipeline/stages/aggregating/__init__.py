"""Aggregation: per-app scores → per-app overall z and the model leaderboard.

Pure arithmetic on AppResults (IWC-Bench §4.4, WebCoderBench's z-score weighting);
it must not read the store or compute any score itself.

Rules:

* Only scored values count. An unscored metric (value None) is skipped, never read
  as 0, and the weights of the metrics that are present are renormalised to sum to
  1. Apps with outcome ``error`` (our infrastructure failed) are left out of every
  pool. An app that is the model's fault (``start_failed``: never started, never
  submitted) takes part at the floor (metric table) of every metric it could not be
  measured on that other apps of the run were scored on — judged dimensions included,
  under every weight set — so a broken or missing app always costs its model.
* An app that cannot run in this environment (``not_runnable``: its build needs a network
  service, a dependency comes from git) is neither ours nor plainly the model's, and must
  not change a ranking in its model's favour. By default (``common_tasks``) the
  leaderboard compares models on the tasks where every model's app ran: a task with a
  not-runnable app is left out for every model (``left_out``, naming it and why), and its
  apps get no overall. With ``floor`` such an app takes the floor of every metric it lacks,
  as a start failure does.
* z-scores use the population standard deviation; σ = 0 gives z = 0 (nobody differs).
  A lower-is-better metric has its z negated, so a positive z is always good. With a
  fixed reference (``results.Reference``), μ and σ come from the reference pool
  instead (model means for the leaderboard, apps for app overalls); a metric the
  reference does not know gets no z.
* App overall: the app's z per metric against all apps of the run, weighted mean.
* Model row: the mean raw score per metric over the model's apps, z across the
  model pool, overall = Σ weight·z over the metrics present (renormalised). Rank 1
  is best; equal overalls share the lowest rank (1, 1, 3); rows are ordered by
  (rank, model name); models with no overall come last, sharing one rank.
* An app whose own code never ran (statement coverage 0 of its own statements) takes the
  floor of the behaviour metrics (``BEHAVIOUR``): coverage weighs nothing in any set, and
  this is the one way it enters a score.
* Weights: the metric table's ``iwc`` set when any app has a scored judged dimension
  (aesthetics, usability, alignment_*), otherwise its ``default`` set. Metrics outside the weights
  are still reported (mean and z) but do not enter the overall.
* WebCoderBench weights (``wcb``, a Table 6 persona set, or a file weighing only its
  metrics: ``metrics.ranks_as_table4``) rank as its Table 4 does, the one way a run ranks
  by them (webcoder.py): a row's z per metric is the mean of its apps' z over all apps
  (per-sample z), its overall Σ weight · z over the metrics it has a z for (no
  renormalising: a metric none of its apps scored adds the pool's average, 0), and an
  app's overall Σ weight · z over the metrics it scored (Table 5's).
* Each row counts, per metric, the model's apps left unscored on it (``unscored``: our
  side could not measure it), apart from those it does not apply to (``not_applicable``:
  the app has nothing it is about; left out of the mean like any other valueless score), and
  names the weighted metrics other models were ranked on that it has no z for
  (``missing_dimensions``): its overall then stands on fewer dimensions.
* Every metric of a row is pooled by its aggregation (the metric table's column):
  WebGen-Bench's UI-test rows (``pooled_cases``, ``pooled_instructions``) are no model
  mean but its Accuracy pooled over test cases or over instructions (webgen.py, given by
  the run), with a z over the models and no weight; every other metric is the mean of
  the model's apps, its z as the ranking takes it (over the model means, or Table 4's
  per-sample z below).
* Whole tasks under a budget (``whole_tasks``): once the run's LLM budget (``--max-cost``)
  left a judged dimension of some app undone (``over_budget``), that dimension of every
  app of the same task is set aside (unscored, its value kept in ``raw``), so each model
  is judged on the same tasks and none on fewer apps than another.
* Noise: the leaderboard carries, per model, a 95 % interval of its overall and of its rank
  over bootstrap samples of the tasks (resampled with replacement) in which each model's
  means also move by each metric's run-to-run spread (hack/bench-repeat's, shipped);
  seeded, so the same results give the same intervals. Models whose intervals overlap
  share a rank band (intervals.py has the procedure and the band rule).
"""

from __future__ import annotations

import collections
import math
import operator
import random
import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results, settings, spread as spread_mod
from iwcbench.pipeline.stages.aggregating import intervals as noise_intervals

BOOTSTRAP_SAMPLES = 1000
_TIE = 9  # overalls equal to this many decimals share a rank


def weights_for(apps: Sequence[results.AppResult]) -> dict[str, float]:
    """The weights ``aggregate`` uses by default for these apps: the IWC set when any
    app has a scored judged dimension, else the offline default set."""
    iwc = metric_table.weights("iwc")
    judged = any(s.value is not None for a in _pooled(apps) for n, s in a.scores.items() if n in iwc)
    return iwc if judged else metric_table.weights("default")


def overall_kind(apps: Sequence[results.AppResult], weights: Mapping[str, float]) -> results.OverallKind:
    """``judged`` when a weighted judged metric (kind llm) was scored for some app, else
    ``offline``: the overall then stands on rule metrics and runtime figures alone."""
    judged = {n for n, w in weights.items() if w > 0 and (m := metric_table.find(n)) is not None and m.kind == "llm"}
    found = any(_value(a.scores.get(n)) is not None for a in _pooled(apps) for n in judged)
    return "judged" if found else "offline"


def _pooled(apps: Sequence[results.AppResult]) -> list[results.AppResult]:
    return [a for a in apps if a.outcome not in results.OUR_FAULT]


COMMON_TASKS, FLOOR = "common_tasks", "floor"  # settings.Scoring.not_runnable


def left_out(apps: Sequence[results.AppResult], not_runnable: settings.NotRunnablePolicy = COMMON_TASKS) -> dict[str, str]:
    """Task → why the leaderboard leaves it out: with ``common_tasks``, every task where
    some model's app cannot run here (outcome not_runnable), so that models are compared on
    the tasks where every model's app ran; with ``floor``, none."""
    if not_runnable == FLOOR:
        return {}
    found: dict[str, list[results.AppResult]] = {}
    for app in apps:
        if app.outcome in results.NOT_RUNNABLE_HERE:
            found.setdefault(app.task_id, []).append(app)
    return {t: "not every model's app ran: " + "; ".join(f"{a.model}'s app is {a.reason}" for a in found[t])
            for t in sorted(found)}


def with_floors(apps: Sequence[results.AppResult], not_runnable: settings.NotRunnablePolicy = COMMON_TASKS
                ) -> list[results.AppResult]:
    """Apps that are the model's fault, given the floor of each metric they lack a
    value for while another app of the run has one (the metric table's floor; a metric
    without a floor stays unscored); with ``not_runnable`` ``floor``, apps that cannot
    run here too. Other apps unchanged."""
    present = set(_metrics(_pooled(apps)))
    faults = results.MODEL_FAULT | (results.NOT_RUNNABLE_HERE if not_runnable == FLOOR else frozenset())
    out = []
    for app in apps:
        if app.outcome not in faults:
            out.append(_code_never_ran(app))
            continue
        # UI-test rows apply only to tasks with UI test cases: the run floors those itself
        # (runs/uitests.with_start_failures), knowing the tasks
        missing = [m for m in metric_table.names() if m in present and _value(app.scores.get(m)) is None
                   and metric_table.BY_NAME[m].floor is not None
                   and metric_table.BY_NAME[m].producer != "uitesting"]
        if not missing:
            out.append(app)
            continue
        why = f"floor: the app could not be measured ({app.outcome.replace('_', ' ')}: {app.reason})"
        out.append(app.model_copy(update={"scores": {**app.scores, **metric_table.floors(missing, why)}}))
    return out


def whole_tasks(apps: Sequence[results.AppResult]) -> list[results.AppResult]:
    """Apps whose judged dimensions the budget left undone in some app of their task
    (status ``over_budget``) with those dimensions set aside in every app of that task
    (unscored; the value kept in ``raw["set_aside"]``); other apps unchanged."""
    undone: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)  # task → dimension → apps
    for app in _pooled(apps):
        undone[app.task_id].update(n for n, score in app.scores.items() if score.status == "over_budget")
    out = []
    for app in apps:
        names = [n for n in undone.get(app.task_id, {}) if _value(app.scores.get(n)) is not None]
        if not names:
            out.append(app)
            continue
        aside = {}
        for n in names:
            left = undone[app.task_id][n]
            why = (f"set aside: the run's LLM budget left {left} app{'s' * (left != 1)} of task {app.task_id} "
                   f"unjudged on {n}, so no app of the task ranks on it (each model is judged on the same tasks)")
            aside[n] = metric_table.score(n, None, why, raw={**(app.scores[n].raw or {}), "set_aside": app.scores[n].value})
        out.append(app.model_copy(update={"scores": {**app.scores, **aside}}))
    return out


# What the explorer measured of an app's behaviour: an app whose own code never ran did
# none of it with its code, so it takes their floors (the one way coverage enters a score).
BEHAVIOUR = ("states", "transitions", "dead_end_ratio", "no_effect_ratio")


def _code_never_ran(app: results.AppResult) -> results.AppResult:
    """The app with the floor of each ``BEHAVIOUR`` metric when it has code of its own
    and none of it ran (statement coverage 0: not even its top level); else unchanged."""
    coverage = app.scores.get("coverage_statements")
    if coverage is None or coverage.value != 0 or not (coverage.raw or {}).get("total"):
        return app
    why = f"floor: the app's own code never ran ({coverage.reason})"
    return app.model_copy(update={"scores": {**app.scores, **metric_table.floors(BEHAVIOUR, why)}})


def _value(score: metric_table.Score | None) -> float | None:
    if score is None or score.value is None or not math.isfinite(score.value):
        return None
    return float(score.value)


def _directions(apps: Sequence[results.AppResult]) -> dict[str, bool]:
    """Metric → higher is better: the table's, or a score's own for names outside it."""
    found: dict[str, bool] = {}
    for app in apps:
        for name, score in app.scores.items():
            if name not in found:
                metric = metric_table.find(name)
                found[name] = metric.higher_is_better if metric is not None else score.higher_is_better
    return found


def _metrics(apps: Sequence[results.AppResult]) -> list[str]:
    """Metrics with at least one scored value, known ones in a fixed order first."""
    names = {n for a in apps for n, s in a.scores.items() if _value(s) is not None}
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


def _model_table(apps: Sequence[results.AppResult], metrics: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Model → metric → mean raw score over its scored apps (None: none scored)."""
    sums: dict[str, dict[str, list[float]]] = {}
    for app in _pooled(apps):
        row = sums.setdefault(app.model, {m: [] for m in metrics})
        for m in metrics:
            v = _value(app.scores.get(m))
            if v is not None:
                row[m].append(v)
    return {model: {m: (statistics.fmean(vs) if vs else None) for m, vs in row.items()}
            for model, row in sums.items()}


def _leaderboard_z(means: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str],
                   directions: Mapping[str, bool],
                   fixed: Mapping[str, tuple[float, float]] | None = None) -> dict[str, dict[str, float | None]]:
    z: dict[str, dict[str, float | None]] = {model: {} for model in means}
    for m in metrics:
        present = {model: row[m] for model, row in means.items() if row.get(m) is not None}
        if fixed is not None and m not in fixed:
            present = {}  # the reference pool never scored this metric: no z
        scored = zscores(present, directions.get(m, True), fixed.get(m) if fixed is not None else None)
        for model in means:
            z[model][m] = scored.get(model)
    return z


def _app_z(pooled: Sequence[results.AppResult], metrics: Sequence[str], directions: Mapping[str, bool],
           fixed: Mapping[str, tuple[float, float]] | None) -> list[dict[str, float | None]]:
    """Per app (in order), metric → its z against every pooled app that scored it (or
    against ``fixed`` μ and σ; a metric the reference lacks gets none)."""
    app_z: list[dict[str, float | None]] = [{} for _ in pooled]
    for m in metrics:
        values = {str(i): v for i, a in enumerate(pooled) if (v := _value(a.scores.get(m))) is not None}
        if fixed is not None and m not in fixed:
            values = {}
        scored = zscores(values, directions.get(m, True), fixed.get(m) if fixed is not None else None)
        for i, row in enumerate(app_z):
            row[m] = scored.get(str(i))
    return app_z


def _mean_sample_z(pooled: Sequence[results.AppResult], app_z: Sequence[Mapping[str, float | None]],
                   metrics: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Model → metric → the mean z of its apps that have one (Table 4's); None: none has."""
    found: dict[str, dict[str, list[float]]] = {}
    for a, zs in zip(pooled, app_z):
        row = found.setdefault(a.model, {m: [] for m in metrics})
        for m in metrics:
            if zs.get(m) is not None:
                row[m].append(zs[m])
    return {model: {m: (statistics.fmean(v) if v else None) for m, v in row.items()} for model, row in found.items()}


def _table4_sum(z: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Σ weight · z over the weighted metrics with a z (WebCoderBench's sum, not
    renormalised); None if none has one."""
    present = [weights[m] * v for m, v in z.items() if v is not None and weights.get(m, 0) > 0]
    return math.fsum(present) if present else None


def _ranks(overall: Mapping[str, float | None]) -> dict[str, int]:
    """Competition ranks: 1 is best, ties share the lowest rank, None last."""
    scored = sorted((round(v, _TIE) for v in overall.values() if v is not None), reverse=True)
    ranks = {}
    for model, v in overall.items():
        ranks[model] = scored.index(round(v, _TIE)) + 1 if v is not None else len(scored) + 1
    return ranks


def _total(picked: tuple | float) -> float:
    """Sum of what ``itemgetter`` picked (a bare item when it picked one)."""
    return sum(picked) if isinstance(picked, tuple) else picked


def bootstrap_ranks(
    apps: Sequence[results.AppResult],
    weights: Mapping[str, float] | None = None,
    n: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    reference: results.Reference | None = None,
) -> dict[str, tuple[int, int]]:
    """Model → (best, worst) rank over the middle 95 % of ``n`` bootstrap samples of
    the tasks (drawn with replacement; a task drawn twice counts twice)."""
    return rank_intervals(bootstrap_samples(apps, weights, n, seed, reference))


def rank_intervals(samples: Mapping[str, Sequence[tuple[int, float | None]]]) -> dict[str, tuple[int, int]]:
    """Model → (best, worst) rank over the middle 95 % of its bootstrap samples."""
    out = {}
    for model, seen in samples.items():
        ranks, n = sorted(rank for rank, _ in seen), len(seen)
        out[model] = (ranks[int(math.floor(0.025 * (n - 1)))], ranks[int(math.ceil(0.975 * (n - 1)))])
    return out


def bootstrap_samples(
    apps: Sequence[results.AppResult],
    weights: Mapping[str, float] | None = None,
    n: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    reference: results.Reference | None = None,
    spread: Mapping[str, float] | None = None,
) -> dict[str, list[tuple[int, float | None]]]:
    """Model → its (rank, overall) in each of ``n`` bootstrap samples of the tasks; with
    ``spread`` (metric → one app's run-to-run standard deviation) each model's mean of a
    metric in a sample also moves as a rerun would move it (intervals.py)."""
    pooled = _pooled(with_floors(apps))
    fixed = reference.model_stats if reference is not None else None
    weights = dict(weights) if weights is not None else weights_for(pooled)
    metrics = [m for m in _metrics(pooled) if weights.get(m, 0) > 0]
    directions = _directions(pooled)
    models = sorted({a.model for a in pooled})
    tasks = sorted({a.task_id for a in pooled})
    if not models or not tasks or n < 1:
        return {}
    # per model and metric, the sum and count of scored values of each task (in task
    # order), so a sample is a C-speed gather and sum instead of a pass over the apps
    index = {t: i for i, t in enumerate(tasks)}
    sums = {model: [[0.0] * len(tasks) for _ in metrics] for model in models}
    counts = {model: [[0] * len(tasks) for _ in metrics] for model in models}
    table4 = metric_table.ranks_as_table4(weights)
    noise = noise_intervals.per_app(pooled, metrics, spread or {}, reference.app_stats if reference else None, table4)
    if table4:  # the apps' z over the whole pool, resampled as Table 4 averages them
        app_z = _app_z(pooled, metrics, directions, reference.app_stats if reference is not None else None)
        pooled = [a.model_copy(update={"scores": {m: metric_table.Score(value=z, reason="")
                                                  for m, z in zs.items() if z is not None}})
                  for a, zs in zip(pooled, app_z)]
    for a in pooled:
        for j, m in enumerate(metrics):
            v = _value(a.scores.get(m))
            if v is not None:
                sums[a.model][j][index[a.task_id]] += v
                counts[a.model][j][index[a.task_id]] += 1
    rng = random.Random(seed)
    seen: dict[str, list[tuple[int, float | None]]] = {model: [] for model in models}
    for _ in range(n):
        pick = operator.itemgetter(*(rng.randrange(len(tasks)) for _ in tasks))
        means: dict[str, dict[str, float | None]] = {}
        for model in models:
            row: dict[str, float | None] = {}
            for j, m in enumerate(metrics):
                count = _total(pick(counts[model][j]))
                row[m] = _total(pick(sums[model][j])) / count if count else None
                if count and noise[j]:  # a mean of ``count`` apps moves by s / √count
                    row[m] += rng.gauss(0.0, noise[j] / math.sqrt(count))  # type: ignore[operator]
            means[model] = row
        if table4:
            overall = {model: _table4_sum(means[model], weights) for model in models}
        else:
            z = _leaderboard_z(means, metrics, directions, fixed)
            overall = {model: weighted(z[model], weights) for model in models}
        ranks = _ranks(overall)
        for model in models:
            seen[model].append((ranks[model], overall[model]))
    return seen


def _columns(pooled: Sequence[results.AppResult], models: Sequence[str], metrics: Sequence[str],
             directions: Mapping[str, bool], sample_z: Mapping[str, Mapping[str, float | None]] | None,
             given: Mapping[str, Mapping[str, float | None]],
             fixed: Mapping[str, tuple[float, float]] | None) -> tuple[dict, dict]:
    """Model → metric → value, and model → metric → z, each metric by its aggregation
    (the metric table's column): WebGen-Bench's pooled figures (``pooled_cases``,
    ``pooled_instructions``) are the value ``given``, every other metric the mean of the
    model's app values; the z is over the models' values, or, when the leaderboard ranks
    as WebCoderBench's Table 4, ``sample_z`` (the mean of the model's apps' z over all apps)."""
    pooled_names = set(metric_table.names_aggregated(*metric_table.POOLED))
    means = _model_table(pooled, [m for m in metrics if m not in pooled_names])
    values = {model: {m: (given.get(model, {}).get(m) if m in pooled_names else means.get(model, {}).get(m))
                      for m in metrics} for model in models}
    by_values = [m for m in metrics if sample_z is None or m in pooled_names]
    z = _leaderboard_z(values, by_values, directions, fixed)
    for model in models:
        z[model].update({m: (sample_z or {}).get(model, {}).get(m) for m in metrics if m not in by_values})
    return values, z


def aggregate(
    apps: Sequence[results.AppResult],
    weights: Mapping[str, float] | None = None,
    bootstrap: int = BOOTSTRAP_SAMPLES,
    reference: results.Reference | None = None,
    pooled_values: Mapping[str, Mapping[str, float | None]] | None = None,
    not_runnable: settings.NotRunnablePolicy = COMMON_TASKS,
    spread: spread_mod.RunSpread | None = None,
) -> tuple[tuple[results.AppResult, ...], tuple[results.LeaderboardRow, ...]]:
    """Apps with their ``overall`` set (and floors filled in where the app is the model's fault), and the
    leaderboard (best first). ``bootstrap``: samples for the intervals (0: none); ``reference`` fixes μ and σ;
    ``pooled_values`` (model → metric): the pooled UI-test figures (webgen.model_values); ``not_runnable``: how
    apps that cannot run here are ranked (``left_out``: the apps of a task left out get no overall and are in
    no model's means); ``spread``: each metric's run-to-run spread (None: the shipped file)."""
    apps = whole_tasks(with_floors(apps, not_runnable))
    aside = left_out(apps, not_runnable)
    pooled = [a for a in _pooled(apps) if a.task_id not in aside]
    weights = dict(weights) if weights is not None else weights_for(pooled)
    given = pooled_values or {}
    pooled_names = metric_table.names_aggregated(*metric_table.POOLED)
    metrics = _metrics(pooled)
    metrics += [m for m in pooled_names if m not in metrics and any(row.get(m) is not None for row in given.values())]
    directions = _directions(pooled)  # the pooled UI-test rows: higher is better, the default
    models = sorted({a.model for a in pooled})
    app_fixed = reference.app_stats if reference is not None else None
    model_fixed = reference.model_stats if reference is not None else None

    table4 = metric_table.ranks_as_table4(weights)
    app_z = _app_z(pooled, metrics, directions, app_fixed)
    overall_of = iter((_table4_sum(row, weights) if table4 else weighted(row, weights)) for row in app_z)
    # pooled keeps the order of apps, so the pooled apps take the overalls in turn
    scored_apps = tuple(a.model_copy(update={
        "overall": next(overall_of) if a.outcome not in results.OUR_FAULT and a.task_id not in aside else None})
        for a in apps)

    sample_z = _mean_sample_z(pooled, app_z, metrics) if table4 else None
    values, z = _columns(pooled, models, metrics, directions, sample_z, given, model_fixed)
    overall = {model: (_table4_sum if table4 else weighted)(z[model], weights) for model in models}
    for a in apps:  # a model whose every app failed on our side still gets a row
        overall.setdefault(a.model, None)
    ranks = _ranks(overall)
    ranked_on = {model: {m for m in metrics if weights.get(m, 0) > 0 and z.get(model, {}).get(m) is not None}
                 for model in overall}
    every = set().union(*ranked_on.values()) if ranked_on else set()
    many = len(models) > 1
    noisy = _noise(pooled, overall, weights, bootstrap if many else 0, reference, spread)
    rows = []
    for model in sorted(overall, key=lambda m: (ranks[m], m)):
        every_app = [a for a in apps if a.model == model]
        mine = [a for a in every_app if a.task_id not in aside]
        unscored = _without_value(mine, metrics, pooled_names, applicable=True)
        rows.append(results.LeaderboardRow(
            rank=ranks[model], model=model, overall=overall[model],
            metrics={m: values.get(model, {}).get(m) for m in metrics},
            z={m: z.get(model, {}).get(m) for m in metrics}, **noisy.get(model, {}),
            **_counted(every_app, mine),
            unscored=unscored, not_applicable=_without_value(mine, metrics, pooled_names, applicable=False),
            missing_dimensions=tuple(m for m in metrics if m in every - ranked_on[model]),
        ))
    return scored_apps, tuple(rows)


def _noise(pooled: Sequence[results.AppResult], overall: Mapping[str, float | None], weights: Mapping[str, float],
           bootstrap: int, reference: results.Reference | None, spread: spread_mod.RunSpread | None) -> dict[str, dict]:
    """Model → its row's ``rank_interval``, ``interval`` and ``band`` (intervals.py) from ``bootstrap``
    samples moved by the run noise (none without samples)."""
    noise = noise_intervals.noise(pooled, weights, spread or noise_intervals.shipped())
    samples = bootstrap_samples(pooled, weights, bootstrap, reference=reference, spread=noise.spread) if bootstrap else {}
    ranks, spans = rank_intervals(samples), noise_intervals.spans(overall, samples)
    bands = noise_intervals.bands(overall, spans)
    return {m: {"rank_interval": ranks.get(m), "interval": spans.get(m), "band": bands.get(m)} for m in overall}


def _counted(every_app: Sequence[results.AppResult], mine: Sequence[results.AppResult]) -> dict:
    """A row's counts of one model's apps: all of them, by outcome, those not runnable here
    and those in tasks the ranking left out (``mine``: the rest)."""
    return {"apps": len(every_app), "outcomes": dict(collections.Counter(a.outcome for a in every_app)),
            "not_runnable": sum(1 for a in every_app if a.outcome in results.NOT_RUNNABLE_HERE),
            "left_out": len(every_app) - len(mine)}


def _without_value(mine: Sequence[results.AppResult], metrics: Sequence[str], pooled_names: Sequence[str],
                   applicable: bool) -> dict[str, int]:
    """Metric → the apps (our errors left out) without a value for it: those it applies
    to (``applicable``: unscored, pending, over budget) or those it does not apply to."""
    def counts(score: metric_table.Score | None) -> bool:
        absent = score is not None and score.status == "not_applicable"
        return _value(score) is None and absent != applicable
    return {m: n for m in metrics if m not in pooled_names
            and (n := sum(1 for a in mine if a.outcome not in results.OUR_FAULT and counts(a.scores.get(m))))}


def reference_stats(run: results.RunResults, uri: str, digest: str) -> results.Reference:
    """The fixed μ and σ a reference run gives: per metric, over its models' means
    (for the leaderboard) and over its apps (for app overalls)."""
    model_stats: dict[str, tuple[float, float]] = {}
    names = {m for row in run.leaderboard for m, v in row.metrics.items() if v is not None}
    for m in sorted(names):
        values = [v for row in run.leaderboard if (v := row.metrics.get(m)) is not None and math.isfinite(v)]
        if values:
            model_stats[m] = mean_sigma(values)
    app_stats: dict[str, tuple[float, float]] = {}
    pooled = _pooled(run.apps)
    for m in _metrics(pooled):
        values = [v for a in pooled if (v := _value(a.scores.get(m))) is not None]
        app_stats[m] = mean_sigma(values)
    return results.Reference(uri=uri, digest=digest, models=tuple(r.model for r in run.leaderboard),
                             model_stats=model_stats, app_stats=app_stats)
