"""A run as a resource, against the emulated API server: a finished run is retried (only
the apps that ended `error` or were never scored run again) or rescored (the stored
evidence scored again, no app pod at all), and spec.maxCost stops new apps once the
finished apps' LLM calls reach it. The app pods are stubs that store a result."""

from __future__ import annotations

import asyncio
import json

import boto3

from fakes import operator_harness as h
from iwcbench.operator import api, planning
from iwcbench.pipeline.contracts import results

APPS = {f"m{m}/t{t}": {"index.html": b"<p>hi</p>"} for m in (1, 2) for t in (1, 2, 3)}


def _status(apiserver, ns, name):
    return (apiserver.get_run(ns, name) or {}).get("status") or {}


def _ended(apiserver, ns, name, round_=0):
    return lambda: ((s := _status(apiserver, ns, name)).get("phase") in ("Succeeded", "Failed")
                    and int(s.get("round") or 0) == round_ and s)


def _app(job):
    notes = job["metadata"]["annotations"]
    return f"{notes[planning.ANNOTATION_MODEL]}/{notes[planning.ANNOTATION_TASK]}"


def storing_explorer(bucket, run, fail=(), cost=0.0, ran=None):
    """An explorer that stores the app's result (with ``cost`` dollars of LLM calls), or
    fails as our infrastructure would (exit 2, FailJob) for the apps in ``fail``."""
    async def explore(ns, job, container):
        app = _app(job)
        if ran is not None:
            ran.append(app)
        await asyncio.sleep(0.1)
        if app in fail:
            return 2
        model, task = app.split("/")
        usage = results.LLMUsage(calls=1, cost_usd=cost, purposes={"aesthetics.judge": results.PurposeUsage(
            calls=1, cost_usd=cost)}) if cost else None
        result = results.AppResult(model=model, task_id=task, outcome="evaluated", reason="", llm_usage=usage)
        boto3.client("s3").put_object(Bucket=bucket, Key=f"runs/{run}/apps/{app}/result.json",
                                      Body=result.model_dump_json().encode())
        return 0
    return explore


def _annotate(apiserver, ns, name, key, value):
    apiserver.patch_run(ns, name, {"metadata": {"annotations": {key: value}}})


def test_retry_reruns_only_the_apps_that_failed(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    ran, scored = [], []
    broken = {"m1/t2", "m2/t3"}
    kubelet = make_kubelet(capacity=10, stub_everything=True, stubs={
        "explore": storing_explorer(s3_bucket, "retry", fail=broken, ran=ran),
        "publish": h.publish_stub(apiserver, len(APPS), scored)})
    apiserver.apply_run(namespace, h.run_manifest("retry", s3_bucket, parallelism=3))
    first = h.wait_for(_ended(apiserver, namespace, "retry"), 60, "the first round to end", operator.log)
    assert first["phase"] == "Succeeded" and first["counts"]["failed"] == 2
    assert sorted(ran) == sorted(APPS)
    # The infrastructure is fixed; the user asks for a retry.
    kubelet.stubs["explore"] = storing_explorer(s3_bucket, "retry", ran=ran)
    ran.clear()
    _annotate(apiserver, namespace, "retry", api.RETRY_ANNOTATION, "after-the-fix")
    second = h.wait_for(_ended(apiserver, namespace, "retry", 1), 60, "the retry to end", operator.log)
    assert sorted(ran) == sorted(broken)  # only those ran again
    assert second["phase"] == "Succeeded" and second["round"] == 1 and second["retriedFor"] == "after-the-fix"
    assert second["counts"] == {"total": 2, "pending": 0, "queued": 0, "active": 0, "succeeded": 2, "failed": 0}
    retried = {c["type"]: c for c in second["conditions"]}["Retried"]
    assert retried["message"] == "round 1: re-running 2 of 6 apps (ended error or never scored)"
    assert scored == ["0", "1"]  # scored again after the retry
    # The same annotation again does nothing: the run stays settled.
    _annotate(apiserver, namespace, "retry", api.RETRY_ANNOTATION, "after-the-fix")
    h.wait_for(lambda: True, 1, "")
    assert _status(apiserver, namespace, "retry")["round"] == 1 and len(ran) == 2


def test_rescore_scores_the_stored_evidence_again_without_any_app_pod(apiserver, namespace, operator, make_kubelet,
                                                                       s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    ran, scored, rejudged = [], [], []

    async def rejudge(ns, job, container):
        rejudged.append(container["command"])
        return 0

    settings_seen = []

    async def score(ns, job, container):
        argv = container["command"]
        settings_seen.append(json.loads(argv[argv.index("--settings") + 1]))
        return 0

    make_kubelet(capacity=10, stub_everything=True, stubs={
        "explore": storing_explorer(s3_bucket, "rescore", ran=ran), "publish": h.publish_stub(apiserver, len(APPS), scored),
        "rejudge": rejudge, "score": score})
    apiserver.apply_run(namespace, h.run_manifest("rescore", s3_bucket, parallelism=6,
                                                  judging={"model": "claude-x"}, batchJudges=True))
    h.wait_for(_ended(apiserver, namespace, "rescore"), 60, "the first round to end", operator.log)
    apps_run = len(ran)
    # New weights (spec.scoring may change, as spec.judging may), then a rescore.
    apiserver.patch_run(namespace, "rescore", {"spec": {"scoring": {"weights": "wcb"}}})
    _annotate(apiserver, namespace, "rescore", api.RESCORE_ANNOTATION, "new-weights")
    status = h.wait_for(_ended(apiserver, namespace, "rescore", 1), 60, "the rescore to end", operator.log)
    assert status["phase"] == "Succeeded" and status["rescoredFor"] == "new-weights"
    assert len(ran) == apps_run == 6  # no pod explored anything
    roles = [j["metadata"]["labels"][planning.LABEL_ROLE] for j in apiserver.jobs(namespace)]
    assert roles.count("app") == 6 and roles.count("scoring") == 2
    assert rejudged and rejudged[0][:2] == ["iwc", "rescore"] and "--batch" in rejudged[0]
    assert settings_seen[-1]["scoring"]["weights"] == "wcb" and "weights" not in settings_seen[0].get("scoring", {})


def test_max_cost_stops_new_apps_and_says_so(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    ran = []
    make_kubelet(capacity=10, stub_everything=True, stubs={
        "explore": storing_explorer(s3_bucket, "budget", cost=0.5, ran=ran), "publish": h.publish_stub(apiserver, len(APPS))})
    apiserver.apply_run(namespace, h.run_manifest("budget", s3_bucket, parallelism=1, maxCost=1.0,
                                                  judging={"model": "claude-x"}))
    status = h.wait_for(_ended(apiserver, namespace, "budget"), 60, "the run to end", operator.log)
    assert len(ran) == 2  # $0.50 each: the third would start at the limit
    assert status["costUsd"] == 1.0 and status["counts"]["succeeded"] == 2 and status["counts"]["pending"] == 4
    budget = {c["type"]: c for c in status["conditions"]}["WithinBudget"]
    assert (budget["status"], budget["reason"]) == ("False", "BudgetReached")
    assert "4 apps not started" in budget["message"]
    # A retry with a higher limit runs the apps never scored.
    apiserver.patch_run(namespace, "budget", {"spec": {"maxCost": 10.0}})
    _annotate(apiserver, namespace, "budget", api.RETRY_ANNOTATION, "more-money")
    again = h.wait_for(_ended(apiserver, namespace, "budget", 1), 60, "the retry to end", operator.log)
    assert len(ran) == 6 and again["counts"]["succeeded"] == 4
