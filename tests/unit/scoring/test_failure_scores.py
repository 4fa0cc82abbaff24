"""Apps that could not be explored: floors for the app's defects, unscored for ours."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.stages import scoring


def test_an_app_that_did_not_start_gets_the_floor_of_every_bounded_metric():
    s = scoring.failure_scores("start_failed", "no index.html in the app folder")
    floors = {n: v.value for n, v in s.items()}
    assert floors == {
        "coverage_statements": 0.0, "coverage_functions": 0.0, "coverage_branches": 0.0,
        "runtime_errors": None, "blocked_requests": None, "states": 0.0, "transitions": 0.0,
        "dead_end_ratio": 100.0, "no_effect_ratio": 100.0, "accessibility": 0.0,
    }
    assert s["states"].reason == "the app did not start: no index.html in the app folder"
    assert "no floor" in s["runtime_errors"].reason
    assert all(v.higher_is_better == metrics.BY_NAME[n].higher_is_better for n, v in s.items())


def test_our_own_failure_leaves_every_metric_unscored():
    s = scoring.failure_scores("error", "evaluation failed on our side: OSError: disk full")
    assert tuple(s) == scoring.NAMES
    assert all(v.value is None and "disk full" in v.reason for v in s.values())


def test_evaluated_apps_are_not_failures():
    with pytest.raises(ValueError):
        scoring.failure_scores("evaluated", "fine")


def test_an_app_not_runnable_here_gets_no_floor():
    s = scoring.failure_scores("not_runnable", "not runnable here: build needs a network service")
    assert tuple(s) == scoring.NAMES
    assert all(v.value is None and v.status == "unscored" and "network service" in v.reason for v in s.values())
