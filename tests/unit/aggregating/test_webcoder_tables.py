"""WebCoderBench's aggregation on synthetic results: z per sample over every sample,
the per-perspective weighted z table (Table 4) and the label breakdowns (Table 5)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results, task
from iwcbench.pipeline.stages import aggregating
from iwcbench.pipeline.stages.aggregating import webcoder

# two metrics of one perspective and one of another, weights summing to 1
WEIGHTS = {"wcb_linting": 0.25, "wcb_console_errors": 0.25, "wcb_mobile": 0.5}


def _app(model: str, task_id: str, outcome: str = "evaluated", **values: float | None) -> results.AppResult:
    return results.AppResult(model=model, task_id=task_id, outcome=outcome, reason="",
                             scores={n: metrics.Score(value=v, reason="") for n, v in values.items()})


APPS = [
    _app("a", "t1", wcb_linting=90, wcb_console_errors=100, wcb_mobile=100),
    _app("a", "t2", wcb_linting=70, wcb_console_errors=100, wcb_mobile=50),
    _app("b", "t1", wcb_linting=50, wcb_console_errors=60, wcb_mobile=50),
    _app("b", "t2", wcb_linting=30, wcb_console_errors=60, wcb_mobile=None),  # unscored: left out
    _app("b", "t3", "error", wcb_linting=0, wcb_console_errors=0, wcb_mobile=0),  # our failure: left out
]
TASKS = {"t1": task.Task(id="t1", prompt="x", labels=task.Labels(complexity="L1", modality="text")),
         "t2": task.Task(id="t2", prompt="y", labels=task.Labels(complexity="L3"))}


def test_z_per_sample_over_all_samples():
    z = webcoder.sample_z(APPS[:4], list(WEIGHTS))
    # linting 90, 70, 50, 30: μ 60, σ √500
    assert z[0]["wcb_linting"] == pytest.approx(30 / 500 ** 0.5)
    # mobile over the three scored samples only: 100, 50, 50 → μ 66.67
    assert "wcb_mobile" not in z[3]
    assert z[0]["wcb_mobile"] == pytest.approx((100 - 200 / 3) / (5000 / 9) ** 0.5)


def test_table4_weighted_z_by_perspective_sums_to_the_overall():
    summary = webcoder.summarise(APPS, WEIGHTS, TASKS)
    rows = {r.model: r for r in summary.table}
    a, b = rows["a"], rows["b"]
    assert [r.model for r in summary.table] == ["a", "b"] and a.rank == 1 and b.rank == 2
    assert a.samples == 2 and b.samples == 2  # the error app is not a sample
    # model a's mean z per metric: linting (z 30/√500 and 10/√500) → 20/√500; console errors 1
    assert a.metric_z["wcb_linting"] == pytest.approx(20 / 500 ** 0.5)
    assert a.metric_z["wcb_console_errors"] == pytest.approx(1.0)
    code = 0.25 * a.metric_z["wcb_linting"] + 0.25 * a.metric_z["wcb_console_errors"]
    assert a.perspectives["code_quality"] == pytest.approx(code)
    assert a.perspectives["accessibility"] == pytest.approx(0.5 * a.metric_z["wcb_mobile"])
    assert a.overall == pytest.approx(sum(a.perspectives.values()))
    assert a.overall == pytest.approx(-b.overall, abs=0.2)
    assert a.metric_mean["wcb_linting"] == 80.0
    assert summary.perspective_weights == {"code_quality": 0.5, "accessibility": 0.5}


def test_table5_mean_sample_overall_by_label_per_model_and_overall():
    summary = webcoder.summarise(APPS, WEIGHTS, TASKS)
    cells = {(r.label, r.value, r.model): r for r in summary.labels}
    z = webcoder.sample_z([a for a in APPS if a.outcome != "error"], list(WEIGHTS))
    own = [sum(WEIGHTS[n] * v for n, v in zs.items()) for zs in z]  # a/t1, a/t2, b/t1, b/t2
    assert cells[("complexity", "L1", None)].overall == pytest.approx((own[0] + own[2]) / 2)
    assert cells[("complexity", "L1", None)].samples == 2
    assert cells[("complexity", "L3", "b")].overall == pytest.approx(own[3])
    assert cells[("modality", "text", "a")].overall == pytest.approx(own[0])
    assert summary.unlabelled == {"clarity": 4, "style": 4, "category": 4, "modality": 2}


def test_nothing_weighted_and_scored_gives_no_table():
    assert webcoder.summarise(APPS, {"wcb_performance": 1.0}, TASKS) is None


def _pool_where_the_two_methods_disagree() -> list[results.AppResult]:
    # z over model means and mean per-sample z rank these two apart: model a has one
    # outstanding and one poor linting app, b two middling ones; b lacks a mobile score
    return [
        _app("a", "t1", wcb_linting=100, wcb_console_errors=40, wcb_mobile=60),
        _app("a", "t2", wcb_linting=0, wcb_console_errors=40, wcb_mobile=60),
        _app("b", "t1", wcb_linting=45, wcb_console_errors=50, wcb_mobile=None),
        _app("b", "t2", wcb_linting=45, wcb_console_errors=52, wcb_mobile=None),
        _app("c", "t1", wcb_linting=60, wcb_console_errors=45, wcb_mobile=70),
        _app("c", "t2", wcb_linting=61, wcb_console_errors=45, wcb_mobile=40),
    ]


@pytest.mark.parametrize("weight_set", ["wcb", "wcb_designer"])
def test_webcoder_weights_rank_the_leaderboard_as_table4(weight_set):
    """One WebCoderBench ranking per run: under its weights the leaderboard is Table 4."""
    apps = _pool_where_the_two_methods_disagree()
    weights = metrics.weights(weight_set)
    scored, board = aggregating.aggregate(apps, weights, bootstrap=50)
    table = webcoder.summarise(scored, weights)
    assert [(r.model, r.rank) for r in board] == [(r.model, r.rank) for r in table.table]
    for row, t4 in zip(board, table.table):
        assert row.overall == pytest.approx(t4.overall, abs=1e-12)
        assert row.z["wcb_linting"] == pytest.approx(t4.metric_z["wcb_linting"])
    # b has no mobile score: it adds nothing (Table 4), it is not renormalised away
    b = next(r for r in board if r.model == "b")
    assert b.overall == pytest.approx(sum(weights[m] * z for m, z in b.z.items() if z is not None and m in weights))
    # an app's own overall is Table 5's Σ weight · z
    own = webcoder.sample_z(apps, list(weights))
    assert scored[0].overall == pytest.approx(sum(weights[n] * z for n, z in own[0].items()))


def test_other_weights_keep_z_over_model_means():
    apps = _pool_where_the_two_methods_disagree()
    weights = metrics.weights("wcb")
    mixed = weights | {"coverage_statements": 0.01}  # not WebCoderBench's: IWC's way
    assert metrics.ranks_as_table4(weights) and not metrics.ranks_as_table4(mixed)
    _, table4 = aggregating.aggregate(apps, weights, bootstrap=0)
    _, by_means = aggregating.aggregate(apps, mixed, bootstrap=0)
    assert [r.model for r in table4] == ["b", "c", "a"]
    assert [r.model for r in by_means] == ["b", "a", "c"]  # the pool tells the two apart
    means = {"a": 50.0, "b": 45.0, "c": 60.5}  # linting means
    mu = sum(means.values()) / 3
    sigma = (sum((v - mu) ** 2 for v in means.values()) / 3) ** 0.5
    assert next(r for r in by_means if r.model == "a").z["wcb_linting"] == pytest.approx((50 - mu) / sigma)
