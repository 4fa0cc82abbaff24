"""Our side failing, on the real kubelet and the real Job controller.

A pod that fails on our side: the instrument container cannot run within its memory
limit (a limit far below what Python and its imports need; the kernel kills it), the
podFailurePolicy counts that toward backoffLimit, the Job controller retries once and
then fails the Job, and the operator records the app as failed with the Job controller's
reason — one Job, two pods, nothing lost.

A store that cannot be used (its bucket does not exist): the operator cannot claim the
prefix, so it creates no Job and says so in a condition naming spec.store, and looks
again (the user may create the bucket)."""

from __future__ import annotations

from fakes.real_cluster import ON_KUBELET, REAL, Cluster, put_tasks_and_apps, wait_for

SMALL = {"instrument": {"requests": {"cpu": "100m", "memory": "16Mi"}, "limits": {"memory": "16Mi"}},
         "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
         "explorer": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
         "scoring": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}}}


def test_an_infrastructure_failure_is_retried_to_backoff_limit_then_recorded(release: Cluster):
    put_tasks_and_apps("failing", [{"id": "f1", "prompt": "A page."}], {"m/f1": {"index.html": b"<p>x</p>"}})
    run = {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun", "metadata": {"name": "failing"},
           "spec": {"tasks": "s3://iwc-cluster/failing/tasks.jsonl", "apps": {"uri": "s3://iwc-cluster/failing/apps"},
                    "store": "s3://iwc-cluster/failing/runs", "backoffLimit": 1,
                    "scheduling": {"nodeSelector": ON_KUBELET}, "resources": SMALL}}
    release.apply(run, REAL)
    status = wait_for(lambda: (s := release.run_status(REAL, "failing")).get("counts", {}).get("failed") == 1 and s,
                      600, "the app Job to fail", lambda: release.diagnose(REAL))
    uid = release.get("-n", REAL, "evaluationrun", "failing")["metadata"]["uid"]
    jobs = [j for j in release.get("-n", REAL, "jobs", "-l", f"iwcbench.io/run-uid={uid}")["items"]
            if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
    assert len(jobs) == 1
    assert jobs[0]["status"].get("failed") == 2  # the first try and one retry (backoffLimit 1)
    pods = release.get("-n", REAL, "pods", "-l", f"job-name={jobs[0]['metadata']['name']}")["items"]
    ends = [s["state"]["terminated"] for p in pods for s in p["status"].get("initContainerStatuses", [])
            if s["name"] == "instrument" and s["state"].get("terminated")]
    assert len(ends) == 2 and all(e["exitCode"] not in (0, 2) for e in ends), ends  # killed, not a config error
    failure = status["failures"][0]
    assert failure["app"] == "m/f1" and failure["reason"] == "BackoffLimitExceeded", failure
    release.kubectl("-n", REAL, "delete", "evaluationrun", "failing")


def test_a_store_that_does_not_exist_is_a_condition_naming_it_and_no_job(release: Cluster):
    put_tasks_and_apps("nostore", [{"id": "f1", "prompt": "A page."}], {"m/f1": {"index.html": b"<p>x</p>"}})
    run = {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun", "metadata": {"name": "nostore"},
           "spec": {"tasks": "s3://iwc-cluster/nostore/tasks.jsonl", "apps": {"uri": "s3://iwc-cluster/nostore/apps"},
                    "store": "s3://no-such-bucket/runs/nostore", "scheduling": {"nodeSelector": ON_KUBELET}}}
    release.apply(run, REAL)

    def unavailable():
        conditions = {c["type"]: c for c in release.run_status(REAL, "nostore").get("conditions", [])}
        return conditions.get("StoreOwned", {}).get("reason") == "StoreUnavailable" and conditions["StoreOwned"]

    store = wait_for(unavailable, 120, "the store's condition", lambda: release.diagnose(REAL))
    assert store["message"].startswith("spec.store s3://no-such-bucket/runs/nostore cannot be used") \
        and "NoSuchBucket" in store["message"], store
    assert release.run_status(REAL, "nostore")["phase"] == "Pending"
    uid = release.get("-n", REAL, "evaluationrun", "nostore")["metadata"]["uid"]
    assert release.get("-n", REAL, "jobs", "-l", f"iwcbench.io/run-uid={uid}")["items"] == []
    release.kubectl("-n", REAL, "delete", "evaluationrun", "nostore")
