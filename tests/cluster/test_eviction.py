"""An app pod evicted mid-exploration loses nothing: on the real kubelet, while one app's
explorer is running, the pod is evicted through the Eviction API (what `kubectl drain`
and the node-pressure and preemption paths do: the pod gets the DisruptionTarget
condition, then is deleted). The explorer stops at once (SIGTERM: EXIT_STOPPED, nothing
recorded); the Job's podFailurePolicy ignores that failure (it counts toward neither
backoffLimit, which is 0 here, nor the Job's failures); the Job controller makes a new
pod, which instruments, serves and explores the app from the start. The run ends
Succeeded, with exact counts and the app's result made by the second pod.

(Seen before the explorer stopped on SIGTERM: as PID 1 of its container it ignored it,
finished within the 30 s grace period and was counted a success from a pod being taken
away.)"""

from __future__ import annotations

import json
import time

import boto3

from fakes import example_subset as example
from fakes.real_cluster import BUCKET, ON_KUBELET, POD_RESOURCES, REAL, Cluster, exploring_pod, run_manifest, wait_for

NAME = "evicted"
APPS = ["aurora-7b/canvas-snake", "brisk-3b/ab-1010"]
STEPS = 20  # long enough an exploration to be caught in the middle


def _explorer_end(release: Cluster, name: str) -> dict | None:
    """How the pod's explore container ended, once it has (its ``terminated`` state)."""
    proc = release.kubectl("-n", REAL, "get", "pod", name, "-o", "json", check=False)
    if proc.returncode != 0:
        return {"gone": True}  # deleted before its end was read (it is read every few tenths of a second)
    for container in json.loads(proc.stdout).get("status", {}).get("containerStatuses", []):
        if container["name"] == "explore" and "terminated" in container.get("state", {}):
            return container["state"]["terminated"]
    return None


def _evict(release: Cluster, pod: dict) -> None:
    name = pod["metadata"]["name"]
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": REAL}}
    release.kubectl("create", "--raw", f"/api/v1/namespaces/{REAL}/pods/{name}/eviction", "-f", "-",
                    stdin=json.dumps(eviction))


def test_an_evicted_app_pod_is_evaluated_again_and_the_run_counts_stay_exact(release: Cluster):
    example.upload(BUCKET, f"{NAME}/", apps=APPS)
    release.apply(run_manifest(NAME, NAME, parallelism=2, backoffLimit=0, exploration={"maxSteps": STEPS},
                               quality={"metrics": list(example.QUALITY)},
                               scheduling={"nodeSelector": ON_KUBELET}, resources=POD_RESOURCES,
                               sandbox={"mirrorFetch": False}), REAL)
    uid = wait_for(lambda: release.get("-n", REAL, "evaluationrun", NAME)["metadata"].get("uid"), 30, "the run")
    victim = wait_for(lambda: exploring_pod(release, REAL, uid), 600, "an app pod exploring", lambda: release.diagnose(REAL))
    job_name = victim["metadata"]["labels"]["job-name"]
    evicted_at = time.time()
    _evict(release, victim)
    victim_end = wait_for(lambda: _explorer_end(release, victim["metadata"]["name"]), 120,
                          "the evicted pod's explorer to end", lambda: release.diagnose(REAL))

    status = release.wait_for_phase(REAL, NAME, ("Succeeded", "Failed"), 1500)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    assert status["counts"]["succeeded"] == len(APPS) and status["counts"]["failed"] == 0, status["counts"]
    assert status["counts"]["total"] == len(APPS) and not status.get("failures"), status
    job = release.get("-n", REAL, "job", job_name)
    # not charged: no failure counted (backoffLimit 0 would have failed the Job), one success
    assert job["status"].get("succeeded") == 1 and not job["status"].get("failed"), job["status"]
    # the evicted pod stopped at once (EXIT_STOPPED), recording nothing, and is gone (an
    # eviction deletes it); the Job's one other pod evaluated the app
    assert victim_end.get("gone") or victim_end["exitCode"] == 143, victim_end
    pods = release.get("-n", REAL, "pods", "-l", f"job-name={job_name}")["items"]
    assert [p["metadata"]["name"] for p in pods if p["metadata"]["name"] == victim["metadata"]["name"]] == []
    (second,) = pods
    assert second["status"]["phase"] == "Succeeded"
    # the second pod instrumented and explored the app from the start, after the eviction
    model, task = job["metadata"]["annotations"]["iwcbench.io/model"], job["metadata"]["annotations"]["iwcbench.io/task"]
    s3 = boto3.client("s3")
    key = f"runs/{NAME}/apps/{model}/{task}/result.json"
    result = json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    assert result["outcome"] == "evaluated", result.get("reason")
    written = s3.head_object(Bucket=BUCKET, Key=key)["LastModified"].timestamp()
    assert written > evicted_at, (written, evicted_at)
    assert result["exploration"]["steps"] >= 1
    board = json.loads(s3.get_object(Bucket=BUCKET, Key=f"runs/{NAME}/results.json")["Body"].read())
    outcomes = {f"{a['model']}/{a['task_id']}": a["outcome"] for a in board["apps"]}
    assert all(outcomes[a.removesuffix(".zip")] == "evaluated" for a in APPS), outcomes
    release.kubectl("-n", REAL, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=120s")
