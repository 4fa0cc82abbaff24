"""A pod that fails on our side, on the real kubelet and the real Job controller: the
instrument container cannot write to the run's store (its bucket does not exist), exits
75 (EX_TEMPFAIL: infrastructure), the podFailurePolicy counts it toward backoffLimit,
the Job controller retries once and then fails the Job, and the operator records the
app as failed with the Job controller's reason — one Job, two pods, nothing lost."""

from __future__ import annotations

from fakes.real_cluster import ON_KUBELET, REAL, Cluster, put_tasks_and_apps, wait_for

SMALL = {"instrument": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "1Gi"}},
         "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
         "explorer": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
         "scoring": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}}}


def test_an_infrastructure_failure_is_retried_to_backoff_limit_then_recorded(release: Cluster):
    put_tasks_and_apps("failing", [{"id": "f1", "prompt": "A page."}], {"m/f1": {"index.html": b"<p>x</p>"}})
    run = {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun", "metadata": {"name": "failing"},
           "spec": {"tasks": "s3://iwc-cluster/failing/tasks.jsonl", "apps": {"uri": "s3://iwc-cluster/failing/apps"},
                    "store": "s3://no-such-bucket/runs/failing", "backoffLimit": 1,
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
    codes = {s["state"]["terminated"]["exitCode"] for p in pods for s in p["status"].get("initContainerStatuses", [])
             if s["name"] == "instrument" and s["state"].get("terminated")}
    assert codes == {75}, codes
    failure = status["failures"][0]
    assert failure["app"] == "m/f1" and failure["reason"] == "BackoffLimitExceeded", failure
    release.kubectl("-n", REAL, "delete", "evaluationrun", "failing")
