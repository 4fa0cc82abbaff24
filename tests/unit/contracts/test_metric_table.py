"""The metric table is the one place a metric's facts live: the stages fill exactly its
rows, scores carry its units and directions, aggregation and weights read it."""

from __future__ import annotations

import math

import pytest

from iwcbench.pipeline.contracts import metrics, results, webcoder_metrics
from iwcbench.pipeline.stages import aggregating, judging, scoring


def test_names_are_unique_and_every_weight_set_sums_to_one_within_rounding():
    names = [m.name for m in metrics.TABLE]
    assert len(names) == len(set(names))
    for weight_set in metrics.WEIGHT_SETS:
        # WebCoderBench's are Table 6 as printed, rounded to 0.1 % (tests/unit/aggregating/test_table6.py)
        tolerance = 0.0015 if weight_set in webcoder_metrics.WEBCODER_SETS else 1e-9
        assert math.isclose(sum(metrics.weights(weight_set).values()), 1.0, abs_tol=tolerance), weight_set
    with pytest.raises(KeyError, match="unknown weight set"):
        metrics.weights("nope")


def test_each_stage_fills_exactly_its_rows_of_the_table():
    offline = scoring.score_offline(None, None, None, None)
    assert tuple(offline) == metrics.names("scoring")
    assert set(judging.SCORE_NAMES) == set(metrics.names("judging"))
    assert {n for names in judging.FILLS.values() for n in names} == set(metrics.names("judging"))
    assert all(m.perspective is None or m.perspective in metrics.PERSPECTIVES for m in metrics.TABLE)


def test_a_score_takes_unit_and_direction_from_its_entry():
    s = metrics.score("runtime_errors", 3.0, "three errors", ["step 1"])
    assert (s.unit, s.higher_is_better, s.evidence) == ("errors", False, ("step 1",))
    assert metrics.find("aesthetics@second-judge").name == "aesthetics"  # a kept re-score
    assert metrics.find("not-a-metric") is None and metrics.higher_is_better("not-a-metric")
    floors = metrics.floors(["dead_end_ratio", "runtime_errors"], "never started")
    assert floors["dead_end_ratio"].value == 100.0
    assert floors["runtime_errors"].value is None and "no floor" in floors["runtime_errors"].reason


def test_aggregation_reads_the_direction_from_the_table_not_the_score():
    # A score record that lost its direction (an old results.json) is still ranked by
    # the table: fewer runtime errors is better.
    def app(model, errors):
        return results.AppResult(model=model, task_id="t", outcome="evaluated", reason="",
                                 scores={"runtime_errors": metrics.Score(value=errors, reason="")})
    _, rows = aggregating.aggregate([app("careful", 0.0), app("sloppy", 9.0)], bootstrap=0)
    assert [r.model for r in rows] == ["careful", "sloppy"]
    assert rows[0].z["runtime_errors"] == pytest.approx(1.0)
