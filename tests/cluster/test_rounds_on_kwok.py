"""A run as a resource on the real control plane: retried after 5 % of its apps failed,
then rescored. 40 apps on kwok's nodes; the two of the model ``fails-on-kwok`` fail (a
stage of ours in cluster-up ends their pods with exit 75, as a pod whose store or
network broke would), so the real Job controller fails their Jobs. kwok's pods write
nothing, so the test stores the result.json each of the 38 others would have written
(the operator reads only that it exists). The retry annotation then makes Jobs for
exactly those two apps; the rescore annotation makes one scoring Job and no app Job:
no pod explores."""

from __future__ import annotations

import time

import boto3

from fakes.real_cluster import BUCKET, FAKE, ON_KWOK, Cluster, put_tasks_and_apps, run_manifest, wait_for
from iwcbench.pipeline.contracts import results

NAME = "rounds"
FAILING = "fails-on-kwok"  # hack/cluster/kwok/stage-pod-fail.yaml
TASKS = [{"id": f"t{i:02d}", "prompt": f"Page {i}."} for i in range(38)]
APPS = [f"m-ok/{t['id']}" for t in TASKS] + [f"{FAILING}/t00", f"{FAILING}/t01"]  # 40; 2 = 5 % fail


def _ended(release: Cluster, round_: int):
    return lambda: ((s := release.run_status(FAKE, NAME)).get("phase") in ("Succeeded", "Failed")
                    and int(s.get("round") or 0) == round_ and s)


def _jobs(release: Cluster, uid: str, round_: int) -> dict[str, list[str]]:
    """The round's Jobs by role: model/task for an app Job, the name for the scoring Job."""
    jobs = release.get("-n", FAKE, "jobs", "-l", f"iwcbench.io/run-uid={uid},iwcbench.io/round={round_}")["items"]
    out: dict[str, list[str]] = {"app": [], "scoring": []}
    for job in jobs:
        notes = job["metadata"].get("annotations", {})
        role = job["metadata"]["labels"]["iwcbench.io/role"]
        out[role].append(f"{notes['iwcbench.io/model']}/{notes['iwcbench.io/task']}" if role == "app"
                         else job["metadata"]["name"])
    return out


def _annotate(release: Cluster, key: str, value: str) -> float:
    release.kubectl("-n", FAKE, "annotate", "evaluationrun", NAME, "--overwrite", f"iwcbench.io/{key}={value}")
    return time.monotonic()


def test_a_retry_reruns_only_the_failed_apps_and_a_rescore_runs_no_app(release: Cluster):
    put_tasks_and_apps(NAME, TASKS, {app: {"index.html": b"<p>r</p>"} for app in APPS})
    t0 = time.monotonic()
    release.apply(run_manifest(NAME, NAME, parallelism=10, backoffLimit=0, scheduling={"nodeSelector": ON_KWOK}), FAKE)
    first = wait_for(_ended(release, 0), 600, "the first round to end", lambda: release.diagnose(FAKE))
    t_first = time.monotonic() - t0
    uid = release.get("-n", FAKE, "evaluationrun", NAME)["metadata"]["uid"]
    assert first["counts"]["failed"] == 2 and first["counts"]["succeeded"] == 38, first["counts"]
    assert {f["app"] for f in first["failures"]} == {f"{FAILING}/t00", f"{FAILING}/t01"}
    assert sorted(_jobs(release, uid, 0)["app"]) == sorted(APPS)

    # what the 38 pods that succeeded would have stored
    s3 = boto3.client("s3")
    for app in APPS[:38]:
        model, task = app.split("/")
        result = results.AppResult(model=model, task_id=task, outcome="evaluated", reason="")
        s3.put_object(Bucket=BUCKET, Key=f"runs/{NAME}/apps/{app}/result.json", Body=result.model_dump_json().encode())

    asked = _annotate(release, "retry", "1")
    second = wait_for(_ended(release, 1), 300, "the retry to end", lambda: release.diagnose(FAKE))
    t_retry = time.monotonic() - asked
    again = _jobs(release, uid, 1)
    assert sorted(again["app"]) == [f"{FAILING}/t00", f"{FAILING}/t01"]  # only those ran again
    assert len(again["scoring"]) == 1
    retried = {c["type"]: c for c in second["conditions"]}["Retried"]
    assert retried["message"] == "round 1: re-running 2 of 40 apps (ended error or never scored)", retried
    assert second["counts"]["total"] == 2 and second["retriedFor"] == "1"

    pods_before = {p["metadata"]["name"] for p in release.get("-n", FAKE, "pods", "-l", f"iwcbench.io/run-uid={uid}")["items"]}
    asked = _annotate(release, "rescore", "1")
    third = wait_for(_ended(release, 2), 300, "the rescore to end", lambda: release.diagnose(FAKE))
    t_rescore = time.monotonic() - asked
    rescored = _jobs(release, uid, 2)
    assert rescored["app"] == [] and len(rescored["scoring"]) == 1, rescored  # no app Job
    assert third["rescoredFor"] == "1"
    # no pod explores: the only pod the rescore made is its scoring Job's
    new_pods = [p for p in release.get("-n", FAKE, "pods", "-l", f"iwcbench.io/run-uid={uid}")["items"]
                if p["metadata"]["name"] not in pods_before]
    assert [p["metadata"]["labels"]["job-name"] for p in new_pods] == rescored["scoring"], new_pods
    assert [c["name"] for c in new_pods[0]["spec"]["initContainers"] + new_pods[0]["spec"]["containers"]] \
        == ["score", "publish"]
    print(f"40 apps on kwok: first round {t_first:.0f} s (2 failed); retry (2 apps + scoring) {t_retry:.0f} s; "
          f"rescore (scoring only) {t_rescore:.0f} s")
    release.kubectl("-n", FAKE, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=120s")
