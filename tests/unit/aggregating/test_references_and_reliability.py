"""Fixed reference μ/σ (a model's z does not move when others join) and the run's
instrumentation reliability tally."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.stages import aggregating
from iwcbench.pipeline.stages.aggregating import summaries


def app(model, task, states, **kw):
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="",
                             scores={"states": metrics.score("states", states, "")}, **kw)


def test_a_fixed_reference_keeps_a_models_z_when_others_join():
    ref_apps, ref_rows = aggregating.aggregate([app("A", "t1", 10.0), app("B", "t1", 30.0)], bootstrap=0)
    ref_run = results.RunResults(run=results.RunInfo(configuration={}, config_hash="r", started_at="x"),
                                 apps=ref_apps, leaderboard=ref_rows)
    reference = aggregating.reference_stats(ref_run, "ref/results.json", "sha256:0")
    assert reference.model_stats["states"] == (20.0, 10.0)
    alone = aggregating.aggregate([app("C", "t1", 40.0)], reference=reference, bootstrap=0)[1]
    crowd = aggregating.aggregate([app("C", "t1", 40.0), app("D", "t1", 0.0), app("E", "t1", 5.0)],
                                  reference=reference, bootstrap=0)[1]
    z_alone = alone[0].z["states"]
    assert z_alone == pytest.approx(2.0)
    assert next(r for r in crowd if r.model == "C").z["states"] == pytest.approx(z_alone)
    # without the reference, C's z depends on who else is in the pool
    pool = aggregating.aggregate([app("C", "t1", 40.0), app("D", "t1", 0.0)], bootstrap=0)[1]
    assert next(r for r in pool if r.model == "C").z["states"] == pytest.approx(1.0)


def _summary(mode, reason=""):
    return results.InstrumentationSummary(mode=mode, reason=reason)


def test_reliability_tallies_modes_and_causes():
    apps = [
        app("m", "t1", 1.0, instrumentation=_summary("instrumented")),
        app("m", "t2", 1.0, instrumentation=_summary("instrumented")),
        app("m", "t3", 1.0, instrumentation=_summary("black_box", "no JavaScript in the app (no script files)")),
        results.AppResult(model="m", task_id="t4", outcome="start_failed", reason="path traversal in archive: '../x'"),
        results.AppResult(model="m", task_id="t5", outcome="error", reason="worker died"),
        results.AppResult(model="m", task_id="t6", outcome="start_failed", reason=results.NOT_SUBMITTED),
    ]
    found = summaries.reliability(apps)
    assert (found.apps, found.instrumented, found.black_box, found.failed) == (5, 2, 1, 2)
    assert found.success_rate == 40.0
    assert found.causes == {"no JavaScript": 1, "our side failed": 1, "unsafe or broken archive": 1}
