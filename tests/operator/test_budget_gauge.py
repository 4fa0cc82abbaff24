"""The operator exports a run's budget as its status says it: the reconcile handler,
called as kopf calls it (the store a folder, the API connection faked), sets
``iwc.run.budget`` to ``within`` while the finished apps' LLM dollars are under
spec.maxCost and to ``reached`` once they reach it and the run starts no further app,
the state the IWCRunBudgetReached alert reads (charts/iwc-operator/files/alerts.yaml)."""

from __future__ import annotations

import logging
from typing import Any

import kopf

from iwcbench.operator import handlers, planning, tracking
from iwcbench.pipeline.contracts import layout, results
from iwcbench.pipeline.kits import store as store_mod, telemetry

OWNER = planning.Owner("ns", "budgeted", "uid-1")
SPEC = {"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/out",
        "parallelism": 1, "maxCost": 1.0, "judging": {"model": "claude-x"}}
PAIRS = [planning.AppPair("m", f"t{i}") for i in range(4)]


class FakeCluster:
    def __init__(self) -> None:
        self.created: list[str] = []

    def create_job(self, manifest: dict[str, Any]) -> bool:
        self.created.append(manifest["metadata"]["name"])
        return True


def _store_result(store: store_mod.Store, pair: planning.AppPair, cost: float) -> None:
    usage = results.LLMUsage(calls=1, cost_usd=cost, purposes={"aesthetics.judge": results.PurposeUsage(
        calls=1, cost_usd=cost)})
    result = results.AppResult(model=pair.model, task_id=pair.task_id, outcome="evaluated", reason="",
                               llm_usage=usage)
    store.put_bytes(f"{layout.app_prefix(pair.model, pair.task_id)}/{layout.RESULT}",
                    result.model_dump_json().encode())


def test_the_budget_gauge_says_within_then_reached_as_the_finished_apps_cost_reaches_max_cost(tmp_path):
    memory = telemetry.setup("iwc-operator", memory=True)
    try:
        assert memory is not None
        store = store_mod.LocalStore(str(tmp_path))
        registry = kopf.OperatorRegistry()
        handlers.register(registry, handlers.Options(), connect=FakeCluster,
                          lister=lambda uri: [f"{p.model}/{p.task_id}/index.html" for p in PAIRS],
                          open_store=lambda uri: store)
        (reconcile,) = [h.fn for h in registry._spawning.get_all_handlers() if h.id == "reconcile"]
        status: dict[str, Any] = {}

        def look(done: int) -> dict[str, float]:
            jobs = [tracking.JobView(name=planning.app_job_name(OWNER, p), role="app", app=p.key, state="succeeded")
                    for p in PAIRS[:done]]
            patch = kopf.Patch()
            reconcile(spec=SPEC, status=status, meta={"generation": 1}, namespace=OWNER.namespace, name=OWNER.name,
                      uid=OWNER.uid, patch=patch, jobs_by_run={OWNER.uid: jobs}, logger=logging.getLogger("test"))
            status.update(patch.get("status") or {})
            return {a["state"]: v for a, v in memory.metric_points().get("iwc.run.budget", []) if a["run"] == OWNER.name}

        for pair in PAIRS:
            _store_result(store, pair, 0.5)
        assert look(done=1) == {"within": 1, "reached": 0}  # $0.50 of $1
        assert look(done=2) == {"within": 0, "reached": 1}  # $1.00: no further app
        assert status["phase"] == "Scoring" and status["counts"]["pending"] == 2
    finally:
        telemetry.setup("test")
