"""Judge robustness between two judges of the same evidence (pure arithmetic)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.analysing import robustness


def test_identical_order_and_linear_change():
    a = {"m1": 1.0, "m2": 2.0, "m3": 3.0, "m4": 4.0}
    b = {m: 10 * v + 5 for m, v in a.items()}
    r = robustness.compare(a, b)
    assert r.pearson == pytest.approx(1.0) and r.spearman == pytest.approx(1.0)
    assert (r.pairs, r.pairs_kept, r.pairs_kept_share) == (6, 6, 1.0)


def test_one_swapped_pair():
    a = {"m1": 1.0, "m2": 2.0, "m3": 3.0, "m4": 4.0}
    b = {"m1": 1.0, "m2": 3.0, "m3": 2.0, "m4": 4.0}
    r = robustness.compare(a, b)
    assert r.pairs_kept == 5 and r.pairs_kept_share == pytest.approx(5 / 6)
    assert r.spearman == pytest.approx(0.8)  # 1 - 6·2 / (4·15)
    assert r.pearson == pytest.approx(0.8)


def test_ties_use_average_ranks_and_unscored_models_are_left_out():
    assert robustness.ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    r = robustness.compare({"a": 1, "b": 2, "c": None}, {"a": 3, "b": 1, "c": 5})
    assert r.models == 2 and r.pairs_kept == 0 and r.spearman == pytest.approx(-1.0)


def test_no_spread_gives_no_correlation_rather_than_a_number():
    r = robustness.compare({"a": 1, "b": 1}, {"a": 2, "b": 3})
    assert r.pearson is None and r.spearman is None
