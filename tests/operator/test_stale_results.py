"""The run's verdict when the watch lags behind the scoring pod: the pod publishes its
results into the status just before it ends, and the operator learns of the Job's end
and of the status write on two separate watch streams. A look that has the Job's end
but not yet the results must read the status afresh before it calls the run
ScoringIncomplete: a run is never failed for a view that is behind. The reconcile
handler is called as kopf calls it, with the store listing and the API connection
faked."""

from __future__ import annotations

import logging
import tempfile
from typing import Any

import kopf

from iwcbench.operator import api, handlers, planning, tracking
from iwcbench.pipeline.kits import store as store_mod

OWNER = planning.Owner("ns", "run", "uid-1")
SPEC = {"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/out"}
PAIRS = [planning.AppPair("m", f"t{i}") for i in range(3)]
PUBLISHED = {"uri": "s3://bench/out/results.json", "digest": "sha256:00", "apps": 3, "leaderboard": []}


class FakeCluster:
    """The API server as the handler meets it: the status it has now, the reads made."""

    def __init__(self, status: dict[str, Any] | None) -> None:
        self.status = status
        self.reads: list[tuple[str, str]] = []
        self.created: list[str] = []

    def get_status(self, group: str, version: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        assert (group, version, plural) == (api.GROUP, api.VERSION, api.PLURAL)
        self.reads.append((namespace, name))
        return self.status

    def create_job(self, manifest: dict[str, Any]) -> bool:
        self.created.append(manifest["metadata"]["name"])
        return True


def _reconcile(fake: FakeCluster):
    registry = kopf.OperatorRegistry()
    handlers.register(registry, handlers.Options(), connect=lambda: fake,
                      lister=lambda uri: [f"{p.model}/{p.task_id}/index.html" for p in PAIRS],
                      open_store=lambda uri: store_mod.LocalStore(tempfile.mkdtemp()))
    (handler,) = [h for h in registry._spawning.get_all_handlers() if h.id == "reconcile"]
    return handler.fn


def _look(fake: FakeCluster, status: dict[str, Any]) -> kopf.Patch:
    jobs = [tracking.JobView(name=planning.app_job_name(OWNER, p), role="app", app=p.key, state="succeeded")
            for p in PAIRS]
    jobs.append(tracking.JobView(name=planning.scoring_job_name(OWNER), role="scoring", app="", state="succeeded"))
    patch = kopf.Patch()
    _reconcile(fake)(spec=SPEC, status=status, meta={"generation": 1}, namespace=OWNER.namespace, name=OWNER.name,
                     uid=OWNER.uid, patch=patch, jobs_by_run={OWNER.uid: jobs}, logger=logging.getLogger("test"))
    return patch


def _reasons(patch: kopf.Patch) -> dict[str, str]:
    return {c["type"]: c["reason"] for c in patch.status["conditions"] if c["status"] == "True"}


def test_results_the_watch_has_not_delivered_yet_are_read_fresh_and_the_run_is_scored():
    fake = FakeCluster({"phase": "Scoring", "results": PUBLISHED})
    patch = _look(fake, {"phase": "Scoring"})  # the watch's view: no results yet
    assert fake.reads == [(OWNER.namespace, OWNER.name)]
    assert patch.status["phase"] == "Succeeded"
    assert _reasons(patch)["Complete"] == "Scored"
    assert "results" not in patch.status  # the publisher's key is not the operator's to write
    assert fake.created == []  # no Job again


def test_without_results_on_the_server_either_the_run_fails_as_scoring_incomplete():
    for on_server in ({"phase": "Scoring"}, None):  # None: the run was deleted meanwhile
        fake = FakeCluster(on_server)
        patch = _look(fake, {"phase": "Scoring"})
        assert fake.reads == [(OWNER.namespace, OWNER.name)]
        assert patch.status["phase"] == "Failed"
        assert _reasons(patch)["Failed"] == "ScoringIncomplete"


def test_results_in_the_watched_status_need_no_read():
    fake = FakeCluster(None)
    patch = _look(fake, {"phase": "Scoring", "results": PUBLISHED})
    assert fake.reads == [] and patch.status["phase"] == "Succeeded"
