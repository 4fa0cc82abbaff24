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
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics as metric_table, results, settings, spread as spread_mod
from iwcbench.pipeline.stages.aggregating import intervals as noise_intervals, standardising

BOOTSTRAP_SAMPLES = noise_intervals.BOOTSTRAP_SAMPLES
def weights_for(apps: Sequence[results.AppResult]) -> dict[str, float]:
    """The weights ``aggregate`` uses by default for these apps: the IWC set when any
    app has a scored judged dimension, else the offline default set."""
    iwc = metric_table.weights("iwc")
    judged = any(s.value is not None for a in standardising.pooled(apps) for n, s in a.scores.items() if n in iwc)
    return iwc if judged else metric_table.weights("default")


def overall_kind(apps: Sequence[results.AppResult], weights: Mapping[str, float]) -> results.OverallKind:
    """``judged`` when a weighted judged metric (kind llm) was scored for some app, else
    ``offline``: the overall then stands on rule metrics and runtime figures alone."""
    judged = {n for n, w in weights.items() if w > 0 and (m := metric_table.find(n)) is not None and m.kind == "llm"}
    found = any(standardising.value(a.scores.get(n)) is not None for a in standardising.pooled(apps) for n in judged)
    return "judged" if found else "offline"


# settings.Scoring.not_runnable
COMMON_TASKS: settings.NotRunnablePolicy = "common_tasks"
FLOOR: settings.NotRunnablePolicy = "floor"


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
    present = set(standardising.scored_metrics(standardising.pooled(apps)))
    faults = results.MODEL_FAULT | (results.NOT_RUNNABLE_HERE if not_runnable == FLOOR else frozenset())
    out = []
    for app in apps:
        if app.outcome not in faults:
            out.append(_code_never_ran(app))
            continue
        # UI-test rows apply only to tasks with UI test cases: the run floors those itself
        # (runs/uitests.with_start_failures), knowing the tasks
        missing = [m for m in metric_table.names() if m in present and standardising.value(app.scores.get(m)) is None
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
    for app in standardising.pooled(apps):
        undone[app.task_id].update(n for n, score in app.scores.items() if score.status == "over_budget")
    out = []
    for app in apps:
        names = [n for n in undone.get(app.task_id, {}) if standardising.value(app.scores.get(n)) is not None]
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


def bootstrap_ranks(
    apps: Sequence[results.AppResult],
    weights: Mapping[str, float] | None = None,
    n: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    reference: results.Reference | None = None,
) -> dict[str, tuple[int, int]]:
    """Model → (best, worst) rank over the middle 95 % of ``n`` bootstrap samples of
    the tasks (drawn with replacement; a task drawn twice counts twice)."""
    pooled = standardising.pooled(with_floors(apps))
    weights = dict(weights) if weights is not None else weights_for(pooled)
    return noise_intervals.rank_intervals(noise_intervals.bootstrap_samples(pooled, weights, n, seed, reference))


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
    means = standardising.model_means(pooled, [m for m in metrics if m not in pooled_names])
    values = {model: {m: (given.get(model, {}).get(m) if m in pooled_names else means.get(model, {}).get(m))
                      for m in metrics} for model in models}
    by_values = [m for m in metrics if sample_z is None or m in pooled_names]
    z = standardising.leaderboard_z(values, by_values, directions, fixed)
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
    pooled = [a for a in standardising.pooled(apps) if a.task_id not in aside]
    weights = dict(weights) if weights is not None else weights_for(pooled)
    given = pooled_values or {}
    pooled_names = metric_table.names_aggregated(*metric_table.POOLED)
    metrics = standardising.scored_metrics(pooled)
    metrics += [m for m in pooled_names if m not in metrics and any(row.get(m) is not None for row in given.values())]
    directions = standardising.directions(pooled)  # the pooled UI-test rows: higher is better, the default
    models = sorted({a.model for a in pooled})
    app_fixed = reference.app_stats if reference is not None else None
    model_fixed = reference.model_stats if reference is not None else None

    table4 = metric_table.ranks_as_table4(weights)
    app_z = standardising.per_app_z(pooled, metrics, directions, app_fixed)
    summed = standardising.table4_sum if table4 else standardising.weighted  # an overall from z and weights
    scored_apps = _with_overalls(apps, [summed(row, weights) for row in app_z], aside)

    sample_z = standardising.mean_sample_z(pooled, app_z, metrics) if table4 else None
    values, z = _columns(pooled, models, metrics, directions, sample_z, given, model_fixed)
    overall = {model: summed(z[model], weights) for model in models}
    for a in apps:  # a model whose every app failed on our side still gets a row
        overall.setdefault(a.model, None)
    ranks = standardising.competition_ranks(overall)
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


def _with_overalls(apps: Sequence[results.AppResult], overalls: Sequence[float | None],
                   aside: Mapping[str, str]) -> tuple[results.AppResult, ...]:
    """The apps with their ``overall`` set: the pooled ones (``overalls`` in their order), none
    for an app our side failed on or in a task left out (``aside``)."""
    overall_of = iter(overalls)  # pooled keeps the order of apps, so the pooled apps take them in turn
    return tuple(a.model_copy(update={
        "overall": next(overall_of) if a.outcome not in results.OUR_FAULT and a.task_id not in aside else None})
        for a in apps)


def _noise(pooled: Sequence[results.AppResult], overall: Mapping[str, float | None], weights: Mapping[str, float],
           bootstrap: int, reference: results.Reference | None, spread: spread_mod.RunSpread | None) -> dict[str, dict]:
    """Model → its row's ``rank_interval``, ``interval`` and ``band`` (intervals.py) from ``bootstrap``
    samples moved by the run noise (none without samples)."""
    noise = noise_intervals.noise(pooled, weights, spread or noise_intervals.shipped())
    samples = noise_intervals.bootstrap_samples(standardising.pooled(with_floors(pooled)), weights, bootstrap,
                                                reference=reference, spread=noise.spread) if bootstrap else {}
    ranks, spans = noise_intervals.rank_intervals(samples), noise_intervals.spans(overall, samples)
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
        return standardising.value(score) is None and absent != applicable
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
            model_stats[m] = standardising.mean_sigma(values)
    app_stats: dict[str, tuple[float, float]] = {}
    pooled = standardising.pooled(run.apps)
    for m in standardising.scored_metrics(pooled):
        values = [v for a in pooled if (v := standardising.value(a.scores.get(m))) is not None]
        app_stats[m] = standardising.mean_sigma(values)
    return results.Reference(uri=uri, digest=digest, models=tuple(r.model for r in run.leaderboard),
                             model_stats=model_stats, app_stats=app_stats)
