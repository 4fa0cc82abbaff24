"""Default and IWC weights, metric directions, and bootstrap rank intervals."""

from __future__ import annotations

import math

import pytest

from iwcbench.pipeline.contracts import metrics, results, webcoder_metrics
from iwcbench.pipeline.stages import aggregating, judging, scoring
from iwcbench.pipeline.stages.aggregating import standardising


def score(value: float | None, higher: bool = True) -> metrics.Score:
    return metrics.Score(value=value, reason="test", higher_is_better=higher)


def app(model: str, task: str, **values: float | None) -> results.AppResult:
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="",
                             scores={n: score(v, metrics.higher_is_better(n)) for n, v in values.items()})


def test_weights_sum_to_one_and_name_the_real_scores():
    default, iwc = metrics.weights("default"), metrics.weights("iwc")
    assert math.isclose(sum(default.values()), 1.0)
    assert math.isclose(sum(iwc.values()), 1.0)
    # offline: what measures the app — WebCoderBench's rule metrics and the explorer's
    # behaviour, errors and axe; never coverage or what our sandbox blocked (issue 19 item 8)
    rules = {m.name for m in metrics.WEBCODER if m.kind == "rule"}
    assert set(default) == rules | set(scoring.NAMES) - {"coverage_statements", "coverage_functions",
                                                         "coverage_branches", "blocked_requests"}
    assert math.fsum(default[n] for n in rules) == pytest.approx(metrics.OFFLINE_WCB)
    # in Table 6's proportions: Lighthouse performance is the one metric of its perspective
    assert default["wcb_performance"] / default["wcb_comments"] == pytest.approx(
        webcoder_metrics.perspective_weight("wcb", "performance") / (webcoder_metrics.perspective_weight("wcb", "maintainability") / 2))
    # the IWC judges' rows; WebCoderBench's LLM metrics are judged too but weigh in the wcb set
    assert set(iwc) == set(judging.SCORE_NAMES) - set(judging.FILLS["wcb"])
    assert iwc["aesthetics"] == pytest.approx(1 / 3)
    assert iwc["alignment_visual"] == pytest.approx(1 / 9)


def test_scores_carry_the_direction_and_unit_of_their_table_entry():
    offline = scoring.score_offline(None, None, None, None)
    assert all(metrics.BY_NAME[n].higher_is_better == s.higher_is_better for n, s in offline.items())
    assert all(metrics.BY_NAME[n].unit == s.unit for n, s in offline.items())
    assert offline["runtime_errors"].higher_is_better is False
    assert all(metrics.higher_is_better(n) for n in judging.SCORE_NAMES)


def test_judge_scores_switch_to_the_iwc_weights():
    # "polished" wins on the judge dimensions, "busy" on every offline metric
    apps = [app("polished", "t1", aesthetics=80, usability=75, alignment_functional=90, alignment_content=90,
                alignment_visual=85, states=2, runtime_errors=3),
            app("busy", "t1", aesthetics=40, usability=50, alignment_functional=60, alignment_content=70,
                alignment_visual=50, states=9, runtime_errors=0)]
    assert aggregating.weights_for(apps) == metrics.weights("iwc")
    _, rows = aggregating.aggregate(apps, bootstrap=0)
    assert rows[0].model == "polished" and rows[0].overall == pytest.approx(1.0)
    assert rows[1].z["states"] == pytest.approx(1.0)  # offline metrics are still reported
    offline_only = [app("a", "t1", states=2), app("b", "t1", states=9)]
    assert aggregating.weights_for(offline_only) == metrics.weights("default")
    unscored_judge = [app("a", "t1", states=2, aesthetics=None)]
    assert aggregating.weights_for(unscored_judge) == metrics.weights("default")


def test_zscores_helper():
    z = standardising.zscores({"a": 1.0, "b": 2.0, "c": 3.0})
    assert z["a"] == pytest.approx(-math.sqrt(1.5)) and z["b"] == 0.0
    assert standardising.zscores({"a": 1.0, "b": 3.0}, higher_is_better=False) == {"a": 1.0, "b": -1.0}
    assert standardising.zscores({"a": 5.0}) == {"a": 0.0}
    assert standardising.zscores({}) == {}


def spread_run() -> list[results.AppResult]:
    apps = []
    for t in range(12):
        apps.append(app("best", f"t{t}", coverage_statements=90 + t % 3, runtime_errors=0))
        apps.append(app("mid-a", f"t{t}", coverage_statements=50 + (t * 7) % 11, runtime_errors=t % 3))
        apps.append(app("mid-b", f"t{t}", coverage_statements=50 + (t * 5) % 11, runtime_errors=(t + 1) % 3))
        apps.append(app("worst", f"t{t}", coverage_statements=10 + t % 2, runtime_errors=9))
    return apps


def test_bootstrap_intervals_are_tight_for_clear_gaps_and_wide_for_close_models():
    intervals = aggregating.bootstrap_ranks(spread_run(), n=300, seed=0)
    assert intervals["best"] == (1, 1) and intervals["worst"] == (4, 4)
    assert intervals["mid-a"][0] == 2 and intervals["mid-a"][1] == 3
    assert intervals["mid-b"] == (2, 3)


def test_bootstrap_is_reproducible_for_a_seed():
    once = aggregating.bootstrap_ranks(spread_run(), n=200, seed=7)
    assert once == aggregating.bootstrap_ranks(spread_run(), n=200, seed=7)


def test_the_leaderboard_carries_the_intervals():
    _, rows = aggregating.aggregate(spread_run(), bootstrap=200)
    assert {r.model: r.rank_interval for r in rows}["best"] == (1, 1)
    assert all(r.rank_interval[0] <= r.rank <= r.rank_interval[1] for r in rows)
    _, without = aggregating.aggregate(spread_run(), bootstrap=0)
    assert all(r.rank_interval is None for r in without)
