"""Two runs paired app by app (guidance ablation, judging protocols): the paired test,
Figure 3's histogram, and what is left out."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.stages.analysing import comparing


def app(task, outcome="evaluated", **values):
    return results.AppResult(model="m", task_id=task, outcome=outcome, reason="",
                             scores={n: metrics.score(n, v, "") for n, v in values.items()})


def test_signed_rank_and_sign_test_by_hand():
    # nonzero deltas 1, -2, 3, 4: W+ = 1 + 3 + 4 = 8, mean 5, var 4·5·9/24 = 7.5
    test = comparing.signed_rank([1, -2, 3, 4, 0])
    assert (test.n, test.w_plus) == (4, 8)
    assert test.z == pytest.approx(3 / 7.5 ** 0.5, abs=1e-4)
    assert test.p_value == pytest.approx(0.2733, abs=1e-3)
    assert test.sign_test_p == pytest.approx(5 / 8)  # 2 · (C(4,0) + C(4,1)) / 16
    assert comparing.signed_rank([0, 0]).n == 0


def test_guidance_ablation_pairs_function_coverage():
    unguided = [app("t1", coverage_functions=70.0), app("t2", coverage_functions=85.0),
                app("t3", coverage_functions=100.0), app("t4", "start_failed", coverage_functions=0.0),
                app("t5", coverage_functions=55.0)]
    guided = [app("t1", coverage_functions=90.0), app("t2", coverage_functions=85.0),
              app("t3", coverage_functions=100.0), app("t4", "start_failed", coverage_functions=0.0),
              app("t6", coverage_functions=40.0)]
    found = comparing.compare(unguided, guided, a_source="a", b_source="b", a_label="unguided", b_label="guided")
    (cov,) = found.metrics
    assert [p.task_id for p in cov.pairs] == ["t1", "t2", "t3"]  # never-started apps say nothing here
    assert (cov.helped, cov.hurt, cov.same, cov.mean_delta) == (1, 0, 2, pytest.approx(20 / 3, abs=1e-3))
    assert found.unmatched == 2  # t5 only in A, t6 only in B
    labels = cov.histogram.bins
    assert labels[0] == "<40" and labels[-1] == "100"
    assert cov.histogram.a[labels.index("70–80")] == 1 and cov.histogram.b[labels.index("90–100")] == 1
    assert cov.histogram.a[labels.index("100")] == cov.histogram.b[labels.index("100")] == 1


def test_judging_protocols_compare_level_spread_and_endpoints():
    single = [app("t1", aesthetics=100.0), app("t2", aesthetics=100.0), app("t3", aesthetics=80.0)]
    deliberative = [app("t1", aesthetics=70.0), app("t2", aesthetics=85.0), app("t3", aesthetics=60.0)]
    (aes,) = comparing.compare(single, deliberative, a_source="s", b_source="d").metrics
    assert aes.histogram is None
    assert aes.a.endpoint_share == pytest.approx(2 / 3, abs=1e-4) and aes.b.endpoint_share == 0.0
    assert aes.mean_delta == pytest.approx(-65 / 3, abs=1e-3)
