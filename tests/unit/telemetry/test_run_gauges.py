"""The operator's per-run gauges the alert rules read: ``iwc.run.phase`` is 1 on a run's
phase now and 0 on the phases it left (a phase it left never stays at 1), and
``iwc.run.budget`` says whether a run with spec.maxCost is within it or reached it, as
the status the operator derives (its WithinBudget condition) says."""

from __future__ import annotations

from iwcbench.operator import api, planning, tracking
from iwcbench.pipeline.kits import telemetry

RUN = {"namespace": "ns", "run": "nightly"}
OWNER = planning.Owner("ns", "nightly", "uid-1")
APPS = [planning.AppPair("m", f"t{i}") for i in range(4)]


def _points(memory: telemetry.Memory, name: str, key: str) -> dict[str, float]:
    return {attrs[key]: value for attrs, value in memory.metric_points().get(name, []) if attrs["run"] == "nightly"}


def test_a_runs_phase_is_one_series_at_1_and_the_phases_it_left_go_to_0():
    memory = telemetry.setup("test", memory=True)
    try:
        assert memory is not None
        runs = telemetry.RunMetrics()
        runs.observe("uid-1", RUN, "Pending", {}, None)
        assert _points(memory, "iwc.run.phase", "phase") == {"Pending": 1}
        runs.observe("uid-1", RUN, "Running", {"active": 2, "pending": 2}, None)
        assert _points(memory, "iwc.run.phase", "phase") == {"Pending": 0, "Running": 1}
        runs.forget("uid-1")
        assert _points(memory, "iwc.run.phase", "phase") == {}
    finally:
        telemetry.setup("test")


def _status(cost: float) -> dict:
    """The status tracking decides for a run with maxCost $1 that has spent ``cost``."""
    spec = api.EvaluationRunSpec.model_validate({
        "tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/out",
        "parallelism": 1, "maxCost": 1.0, "judging": {"model": "claude-x"}})
    done = tracking.JobView(name=planning.app_job_name(OWNER, APPS[0]), role="app", app=APPS[0].key,
                            state="succeeded")
    seen = tracking.Observed(spec=spec, owner=OWNER, generation=1, apps=APPS, jobs=(done,), status={},
                             now="2026-01-01T00:00:00Z", cost_usd=cost, budget_reached=cost >= 1.0)
    return tracking.decide(seen).status


def test_the_budget_gauge_follows_the_within_budget_condition():
    memory = telemetry.setup("test", memory=True)
    try:
        assert memory is not None
        runs = telemetry.RunMetrics()
        runs.observe_budget("uid-1", RUN, tracking.budget_state(_status(0.5)))
        assert _points(memory, "iwc.run.budget", "state") == {"within": 1, "reached": 0}
        reached = _status(1.0)
        assert reached["counts"]["pending"] == 3 and reached["phase"] == "Scoring"  # no new app Job
        runs.observe_budget("uid-1", RUN, tracking.budget_state(reached))
        assert _points(memory, "iwc.run.budget", "state") == {"within": 0, "reached": 1}
        runs.observe_budget("uid-1", RUN, tracking.budget_state({"phase": "Running", "conditions": []}))
        assert _points(memory, "iwc.run.budget", "state") == {}  # no maxCost: no series
    finally:
        telemetry.setup("test")
