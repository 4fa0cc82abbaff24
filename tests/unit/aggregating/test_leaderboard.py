"""Model-level aggregation: means, z across the model pool, weights, ranks.

Expected numbers are worked out by hand in the comments (population σ)."""

from __future__ import annotations

import math

import pytest

from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.stages import aggregating, scoring

W = {"coverage_statements": 0.75, "runtime_errors": 0.25}
R15 = math.sqrt(1.5)  # 1.2247…: the |z| of the ends of three evenly spaced values


def score(value: float | None, higher: bool = True) -> metrics.Score:
    return metrics.Score(value=value, reason="test", higher_is_better=higher)


def app(model: str, task: str, outcome: str = "evaluated", **values: float | None) -> results.AppResult:
    scores = {n: score(v, metrics.higher_is_better(n)) for n, v in values.items()}
    return results.AppResult(model=model, task_id=task, outcome=outcome, reason="test", scores=scores)


def three_models() -> list[results.AppResult]:
    # coverage means A 10, B 20, C 30; error means A 6, B 0, C 3
    return [
        app("A", "t1", coverage_statements=0, runtime_errors=6), app("A", "t2", coverage_statements=20, runtime_errors=6),
        app("B", "t1", coverage_statements=15, runtime_errors=0), app("B", "t2", coverage_statements=25, runtime_errors=0),
        app("C", "t1", coverage_statements=30, runtime_errors=3), app("C", "t2", coverage_statements=30, runtime_errors=3),
    ]


def rows_by_model(rows) -> dict[str, results.LeaderboardRow]:
    return {r.model: r for r in rows}


def test_z_scores_of_three_models_match_hand_arithmetic():
    _, rows = aggregating.aggregate(three_models(), W, bootstrap=0)
    by = rows_by_model(rows)
    assert {m: r.metrics["coverage_statements"] for m, r in by.items()} == {"A": 10, "B": 20, "C": 30}
    # coverage: μ 20, σ √(200/3) → z −1.2247, 0, +1.2247
    assert by["A"].z["coverage_statements"] == pytest.approx(-R15)
    assert by["B"].z["coverage_statements"] == pytest.approx(0.0)
    assert by["C"].z["coverage_statements"] == pytest.approx(R15)
    # errors (lower is better): μ 3, σ √6 → raw z +1.2247, −1.2247, 0, negated
    assert by["A"].z["runtime_errors"] == pytest.approx(-R15)
    assert by["B"].z["runtime_errors"] == pytest.approx(R15)
    assert by["C"].z["runtime_errors"] == pytest.approx(0.0)
    # overall = 0.75·z_cov + 0.25·z_err
    assert by["A"].overall == pytest.approx(-1.224745, abs=1e-6)
    assert by["B"].overall == pytest.approx(0.306186, abs=1e-6)
    assert by["C"].overall == pytest.approx(0.918559, abs=1e-6)
    assert [(r.rank, r.model) for r in rows] == [(1, "C"), (2, "B"), (3, "A")]
    assert by["C"].apps == 2 and by["C"].outcomes == {"evaluated": 2}


def test_app_overall_is_against_every_app_of_the_run():
    scored, _ = aggregating.aggregate(three_models(), W, bootstrap=0)
    first = scored[0]  # A/t1: coverage 0, errors 6
    # coverage over the six apps: μ 20, σ √(650/6) → z −1.92154; errors: μ 3, σ √6 → −1.22474 after negation
    assert first.overall == pytest.approx(0.75 * -1.921538 + 0.25 * -1.224745, abs=1e-6)
    assert [a.task_id for a in scored] == ["t1", "t2", "t1", "t2", "t1", "t2"]  # order kept


def test_unscored_is_left_out_never_counted_as_zero():
    apps = [app("D", "t1", coverage_statements=30), app("D", "t2", coverage_statements=None),
            app("E", "t1", coverage_statements=10), app("E", "t2", coverage_statements=10),
            app("F", "t1", coverage_statements=20), app("F", "t2", coverage_statements=20)]
    _, rows = aggregating.aggregate(apps, W, bootstrap=0)
    by = rows_by_model(rows)
    assert by["D"].metrics["coverage_statements"] == 30  # not (30 + 0) / 2
    assert by["D"].z["coverage_statements"] == pytest.approx(R15)
    assert rows[0].model == "D"


def test_weights_are_renormalised_over_the_metrics_a_model_has():
    apps = [app("X", "t1", coverage_statements=None, runtime_errors=0),
            app("Y", "t1", coverage_statements=50, runtime_errors=2)]
    scored, rows = aggregating.aggregate(apps, W, bootstrap=0)
    by = rows_by_model(rows)
    assert by["X"].metrics["coverage_statements"] is None and by["X"].z["coverage_statements"] is None
    assert by["X"].overall == pytest.approx(1.0)  # errors only: z +1 with its weight renormalised to 1
    assert by["Y"].z["coverage_statements"] == 0.0  # alone in the pool: σ = 0 → z = 0
    assert by["Y"].overall == pytest.approx(0.75 * 0.0 + 0.25 * -1.0)
    assert scored[0].overall == pytest.approx(1.0)


def test_nothing_scored_gives_no_overall():
    apps = [app("X", "t1", coverage_statements=None), app("Y", "t1", coverage_statements=5)]
    scored, rows = aggregating.aggregate(apps, W, bootstrap=0)
    assert scored[0].overall is None
    assert rows_by_model(rows)["X"].overall is None and rows[-1].model == "X" and rows[-1].rank == 2


def test_no_spread_gives_zero_and_everyone_shares_rank_one():
    apps = [app(m, "t1", coverage_statements=40, runtime_errors=1) for m in ("b", "a", "c")]
    _, rows = aggregating.aggregate(apps, W, bootstrap=0)
    assert [(r.rank, r.model, r.overall) for r in rows] == [(1, "a", 0.0), (1, "b", 0.0), (1, "c", 0.0)]


def test_ties_share_the_lowest_rank_and_are_ordered_by_name():
    apps = [app("b", "t1", coverage_statements=50), app("a", "t1", coverage_statements=50),
            app("c", "t1", coverage_statements=10), app("d", "t1", coverage_statements=5)]
    _, rows = aggregating.aggregate(apps, W, bootstrap=0)
    assert [(r.rank, r.model) for r in rows] == [(1, "a"), (1, "b"), (3, "c"), (4, "d")]


def test_our_failures_are_counted_but_left_out_of_every_pool():
    errored = results.AppResult(model="A", task_id="t3", outcome="error", reason="disk full",
                                scores=scoring.failure_scores("error", "disk full"))
    only_errors = results.AppResult(model="Z", task_id="t1", outcome="error", reason="disk full",
                                    scores=scoring.failure_scores("error", "disk full"))
    scored, rows = aggregating.aggregate([*three_models(), errored, only_errors], W, bootstrap=0)
    by = rows_by_model(rows)
    assert by["A"].metrics == rows_by_model(aggregating.aggregate(three_models(), W, bootstrap=0)[1])["A"].metrics
    assert by["A"].apps == 3 and by["A"].outcomes == {"evaluated": 2, "error": 1}
    assert by["Z"].overall is None and rows[-1].model == "Z"
    assert scored[-2].overall is None and scored[-1].overall is None


def test_a_score_that_says_lower_is_better_is_negated_even_for_an_unknown_metric():
    apps = [results.AppResult(model=m, task_id="t1", outcome="evaluated", reason="",
                              scores={"load_time": score(v, higher=False)}) for m, v in (("fast", 1.0), ("slow", 3.0))]
    _, rows = aggregating.aggregate(apps, {"load_time": 1.0}, bootstrap=0)
    assert rows[0].model == "fast" and rows[0].z["load_time"] == pytest.approx(1.0)


def test_the_defective_model_ranks_lower():
    good, bad = [], []
    for t in ("todo", "chart", "snake"):
        good.append(app("solid", t, coverage_statements=85, coverage_functions=90, coverage_branches=70,
                        runtime_errors=0, blocked_requests=0, states=9, transitions=14, dead_end_ratio=0,
                        no_effect_ratio=10, accessibility=92))
    bad.append(app("sloppy", "todo", coverage_statements=40, coverage_functions=45, coverage_branches=20,
                   runtime_errors=12, blocked_requests=0, states=3, transitions=2, dead_end_ratio=50,
                   no_effect_ratio=60, accessibility=70))
    bad.append(app("sloppy", "chart", coverage_statements=80, coverage_functions=85, coverage_branches=65,
                   runtime_errors=1, blocked_requests=2, states=7, transitions=9, dead_end_ratio=0,
                   no_effect_ratio=15, accessibility=90))
    bad.append(results.AppResult(model="sloppy", task_id="snake", outcome="start_failed", reason="no index.html",
                                 scores=scoring.failure_scores("start_failed", "no index.html")))
    scored, rows = aggregating.aggregate([*good, *bad])
    by = rows_by_model(rows)
    assert by["solid"].rank == 1 and by["sloppy"].rank == 2
    assert by["solid"].overall > 0 > by["sloppy"].overall
    assert by["sloppy"].metrics["runtime_errors"] == pytest.approx(6.5)  # the broken app has no count
    assert by["sloppy"].metrics["states"] == pytest.approx((3 + 7 + 0) / 3)  # …but its floor of 0 states counts
    assert by["sloppy"].outcomes == {"evaluated": 2, "start_failed": 1}
    broken = next(a for a in scored if a.outcome == "start_failed")
    assert broken.overall == min(a.overall for a in scored)
