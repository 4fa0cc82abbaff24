"""Faults a cluster sees: the operator killed mid-run, an app's defect vs. our
infrastructure failing, suspend and resume, the run deleted mid-way."""

from __future__ import annotations

import asyncio

from fakes import operator_harness as h
from iwcbench.operator import planning

APPS = {f"m1/t{t}": {"index.html": b"<p>hi</p>"} for t in range(1, 7)}


def _status(apiserver, ns, name):
    return ((apiserver.get_run(ns, name) or {}).get("status") or {})


def _slow(seconds, code=0, started=None):
    async def container(ns, job, c):
        if started is not None:
            started.append(job["metadata"]["name"])
        await asyncio.sleep(seconds)
        return code
    return container


async def _publish(ns, job, c):  # scoring publishes nothing here; the phase says so
    return 0


def test_operator_killed_mid_run_resumes_without_duplicates(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    kubelet = make_kubelet(capacity=10, stub_everything=True, stubs={"explore": _slow(1.0)})
    apiserver.apply_run(namespace, h.run_manifest("restart", s3_bucket, parallelism=2))
    h.wait_for(lambda: _status(apiserver, namespace, "restart").get("counts", {}).get("succeeded", 0) >= 1,
               60, "the first app to finish", operator.log)
    operator.kill()
    operator.start()
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "restart")).get("phase") in ("Succeeded", "Failed") and s,
                        90, "the run to end", operator.log)
    names = [j["metadata"]["name"] for j in apiserver.jobs(namespace)]
    assert len(names) == len(set(names)) == 7  # six apps and one scoring Job
    # Every Job ran exactly one pod: nothing was started twice across the restart.
    assert sorted(kubelet.attempts.values()) == [1] * 7
    assert status["counts"]["succeeded"] == 6
    # Without published results the run ends Failed, with a reason (not Succeeded).
    assert status["phase"] == "Failed"
    assert {c["type"]: c["reason"] for c in status["conditions"]}["Failed"] == "ScoringIncomplete"


def test_app_defect_is_an_outcome_and_infrastructure_failure_is_retried(apiserver, namespace, operator,
                                                                      make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", {"m1/defective": {"index.html": b"x"}, "m1/flaky": {"index.html": b"x"},
                                   "m1/misconfigured": {"index.html": b"x"}})

    async def explore(ns, job, c):
        task = job["metadata"]["annotations"][planning.ANNOTATION_TASK]
        # an app defect is recorded by the explorer and exits 0; 75 = our side; 2 = bad config
        return {"defective": 0, "flaky": 75, "misconfigured": 2}[task]

    kubelet = make_kubelet(capacity=10, stub_everything=True, stubs={"explore": explore})
    apiserver.apply_run(namespace, h.run_manifest("faults", s3_bucket, parallelism=3, backoffLimit=2))
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "faults")).get("phase") in ("Scoring", "Failed", "Succeeded") and s,
                        60, "every app Job to end", operator.log)
    assert status["counts"] == {"total": 3, "pending": 0, "queued": 0, "active": 0, "succeeded": 1, "failed": 2}
    by_app = {f["app"]: f for f in status["failures"]}
    assert by_app["m1/flaky"]["reason"] == "BackoffLimitExceeded"
    assert by_app["m1/misconfigured"]["reason"] == "PodFailurePolicy"
    attempts = {j.rsplit("-", 1)[0].split("-", 1)[1]: n for j, n in kubelet.attempts.items()}
    assert attempts["defective"] == 1  # a defect is never retried
    assert attempts["flaky"] == 3  # 1 + backoffLimit
    assert attempts["misconfigured"] == 1  # a retry cannot fix a configuration


def test_disruption_is_retried_without_counting(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", {"m1/t1": {"index.html": b"x"}})
    kubelet = make_kubelet(capacity=10, stub_everything=True)
    # The one app's first pod is evicted (node drain): podFailurePolicy says Ignore.
    # Created suspended, so the Job's name (it holds the run's uid) is known before it runs.
    apiserver.apply_run(namespace, h.run_manifest("evict", s3_bucket, parallelism=1, backoffLimit=0, suspend=True))
    run = apiserver.get_run(namespace, "evict")
    kubelet.disrupt_next.add(planning.app_job_name(planning.Owner(namespace, "evict", run["metadata"]["uid"]),
                                                   planning.AppPair("m1", "t1")))
    apiserver.patch_run(namespace, "evict", {"spec": {"suspend": False}})
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "evict")).get("phase") in ("Scoring", "Failed", "Succeeded") and s,
                        60, "the app Job to end", operator.log)
    assert status["counts"]["succeeded"] == 1 and status["counts"]["failed"] == 0
    assert list(kubelet.attempts.values())[0] == 2  # evicted once, then ran, with backoffLimit 0


def test_suspend_stops_new_jobs_and_resume_finishes(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    started: list[str] = []
    make_kubelet(capacity=10, stub_everything=True, stubs={"explore": _slow(1.0, started=started)})
    apiserver.apply_run(namespace, h.run_manifest("pause", s3_bucket, parallelism=2))
    h.wait_for(lambda: len(started) >= 2, 60, "two apps to start", operator.log)
    apiserver.patch_run(namespace, "pause", {"spec": {"suspend": True}})
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "pause")).get("phase") == "Suspended"
                        and s["counts"]["active"] == 0 and s, 60, "suspended with nothing active", operator.log)
    frozen = len(apiserver.jobs(namespace))
    assert frozen < 6 and status["counts"]["pending"] == 6 - frozen
    assert {c["type"]: c["status"] for c in status["conditions"]}["Suspended"] == "True"
    # Nothing new while suspended: several operator intervals later, the same Jobs.
    h.wait_for(lambda: _status(apiserver, namespace, "pause").get("observedGeneration", 0) >= 2, 30,
               "the suspension to be observed", operator.log)
    assert len(apiserver.jobs(namespace)) == frozen
    apiserver.patch_run(namespace, "pause", {"spec": {"suspend": False}})
    status = h.wait_for(lambda: (s := _status(apiserver, namespace, "pause")).get("phase") in ("Scoring", "Failed") and s,
                        90, "the run to finish after resuming", operator.log)
    assert status["counts"]["succeeded"] == 6
    assert {c["type"]: c["status"] for c in status["conditions"]}["Suspended"] == "False"


def test_deleting_the_run_deletes_its_jobs_and_stops_their_pods(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    make_kubelet(capacity=10, stub_everything=True, stubs={
        "explore": ["sleep", "73.25"]})  # a real process, so killing it is observable
    apiserver.apply_run(namespace, h.run_manifest("gone", s3_bucket, parallelism=3))
    h.wait_for(lambda: len(apiserver.jobs(namespace)) == 3, 60, "three Jobs", operator.log)
    h.wait_for(lambda: _sleepers(), 30, "the explorers to run")
    apiserver.delete_run(namespace, "gone")
    h.wait_for(lambda: apiserver.get_run(namespace, "gone") is None, 30, "the run to go (finalizer released)",
               operator.log)
    h.wait_for(lambda: apiserver.jobs(namespace) == [], 30, "its Jobs to be collected")
    h.wait_for(lambda: not _sleepers(), 30, "the pods' processes to stop")


def _sleepers() -> bool:
    import subprocess

    out = subprocess.run(["pgrep", "-f", "^sleep 73.25$"], capture_output=True, text=True).stdout
    return bool(out.strip())
