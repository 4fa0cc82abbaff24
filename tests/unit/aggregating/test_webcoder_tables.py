"""WebCoderBench's aggregation on synthetic results: z per sample over every sample,
the per-perspective weighted z table (Table 4) and the label breakdowns (Table 5)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import results, task
from iwcbench.pipeline.stages.aggregating import webcoder

# two metrics of one perspective and one of another, weights summing to 1
WEIGHTS = {"wcb_linting": 0.25, "wcb_console_errors": 0.25, "wcb_mobile": 0.5}


def _app(model: str, task_id: str, outcome: str = "evaluated", **values: float | None) -> results.AppResult:
    return results.AppResult(model=model, task_id=task_id, outcome=outcome, reason="",
                             scores={n: results.Score(value=v, reason="") for n, v in values.items()})


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
