"""Many apps on kwok's fake nodes: the real scheduler places the operator's pods, the
real Job controller completes them (kwok's stages end each pod with exit 0), Pod
Security admits them, and the garbage collector removes them with their run. The
operator is killed and the API server restarted mid-run: the run still ends with one
Job per app. kwok's pods run nothing, so the scoring Job publishes nothing and the run
ends Failed with ScoringIncomplete — the operator's verdict on a scoring Job that
completed without results, read from the real Job controller."""

from __future__ import annotations

import subprocess
import threading
import time

from fakes.real_cluster import FAKE, ON_KWOK, ROOT, SYSTEM, Cluster, put_tasks_and_apps, run_manifest, wait_for

APPS = 24
PARALLELISM = 4
RUN_UID = "iwcbench.io/run-uid"


def _jobs(cluster: Cluster, uid: str) -> list[dict]:
    return cluster.get("-n", FAKE, "jobs", "-l", f"{RUN_UID}={uid}")["items"]


def test_a_run_fans_out_within_its_parallelism_survives_restarts_and_is_collected(release: Cluster):
    tasks = [{"id": f"t{i:03d}", "prompt": f"Make page {i}."} for i in range(APPS // 2)]
    apps = {f"{model}/{t['id']}": {"index.html": b"<!doctype html><p>hi</p>"}
            for model in ("m-a", "m-b") for t in tasks}
    put_tasks_and_apps("fanout", tasks, apps)
    release.apply(run_manifest("fanout", "fanout", parallelism=PARALLELISM, backoffLimit=0,
                               scheduling={"nodeSelector": ON_KWOK}), FAKE)
    uid = wait_for(lambda: release.get("-n", FAKE, "evaluationrun", "fanout")["metadata"].get("uid"), 30, "the run")

    # watch the Jobs the whole time: never more active than the parallelism
    seen_active: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                jobs = _jobs(release, uid)
            except (AssertionError, subprocess.SubprocessError):
                continue  # the API server is restarting
            seen_active.append(sum(1 for j in jobs if j["metadata"]["labels"].get("iwcbench.io/role") == "app"
                                   and not _finished(j)))
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        wait_for(lambda: len(_jobs(release, uid)) >= 6, 120, "the first Jobs", lambda: release.diagnose(FAKE))
        # the operator's pod dies; the Deployment starts another, which resumes from the Jobs
        release.kubectl("-n", SYSTEM, "delete", "pod", "-l", "app.kubernetes.io/name=iwc-operator", "--wait=false")
        wait_for(lambda: len(_jobs(release, uid)) >= 12, 180, "Jobs after the operator restarted",
                 lambda: release.diagnose(FAKE))
        # the API server goes away and comes back (watches break, resourceVersions resume)
        subprocess.run([str(ROOT / "hack/cluster-up"), "--restart", "kube-apiserver"], check=True,
                       capture_output=True, env=release.env, timeout=180)
        status = release.wait_for_phase(FAKE, "fanout", ("Succeeded", "Failed"), 600)
    finally:
        stop.set()
        watcher.join(timeout=10)

    jobs = _jobs(release, uid)
    app_jobs = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
    assert len(app_jobs) == APPS  # one per app, none twice across two operators and a restart
    names = {(a := j["metadata"]["annotations"])["iwcbench.io/model"] + "/" + a["iwcbench.io/task"] for j in app_jobs}
    assert names == set(apps)
    assert all(j["status"].get("succeeded") == 1 for j in app_jobs)
    assert max(seen_active) <= PARALLELISM, seen_active
    for job in jobs:
        owner = job["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == ("EvaluationRun", "fanout", uid, True)
    # every pod went to a kwok node through the scheduler, admitted as "restricted"
    pods = release.get("-n", FAKE, "pods", "-l", f"{RUN_UID}={uid}")["items"]
    assert pods and all(p["spec"]["nodeName"].startswith("kwok-node-") for p in pods)
    assert status["counts"] == {"total": APPS, "pending": 0, "queued": 0, "active": 0, "succeeded": APPS, "failed": 0}
    assert status["phase"] == "Failed"
    failed = next(c for c in status["conditions"] if c["type"] == "Failed")
    assert failed["reason"] == "ScoringIncomplete", failed
    # the printer columns a user reads
    table = release.kubectl("-n", FAKE, "get", "evaluationrun", "fanout").stdout
    header = table.splitlines()[0].split()
    assert header[:2] == ["NAME", "PHASE"], table

    release.kubectl("-n", FAKE, "delete", "evaluationrun", "fanout", "--wait=true", "--timeout=60s")
    wait_for(lambda: not _jobs(release, uid) and not release.get("-n", FAKE, "pods", "-l", f"{RUN_UID}={uid}")["items"],
             120, "the garbage collector to delete the run's Jobs and pods", lambda: release.diagnose(FAKE))


def _finished(job: dict) -> bool:
    return any(c["type"] in ("Complete", "Failed") and c["status"] == "True"
               for c in job.get("status", {}).get("conditions", []))


def test_the_docs_first_example_applies_as_written(release: Cluster):
    """docs/kubernetes.md's first EvaluationRun, `kubectl apply`-ed with only its bucket,
    namespace and node pool changed: its model filter picks its two models' apps."""
    import json
    import re

    import yaml

    text = (ROOT / "docs/kubernetes.md").read_text()
    written = text[text.index("## Write an EvaluationRun"):]  # (the section a kubectl user starts from)
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", written, re.S) if "kind: EvaluationRun" in b)
    manifest = yaml.safe_load(block.replace("s3://my-bench", "s3://iwc-cluster/docs"))
    manifest["metadata"]["namespace"] = FAKE
    manifest["spec"]["scheduling"] = {"nodeSelector": ON_KWOK}
    name = manifest["metadata"]["name"]
    tasks = [{"id": f"d{i}", "prompt": "p"} for i in range(3)]
    put_tasks_and_apps("docs", tasks, {f"{m}/{t['id']}": {"index.html": b"<p>x</p>"}
                                       for m in ("aurora-7b", "brisk-3b", "not-listed") for t in tasks})
    release.kubectl("apply", "-f", "-", stdin=json.dumps(manifest))
    status = release.wait_for_phase(FAKE, name, ("Succeeded", "Failed"), 300)
    assert status["counts"]["total"] == 6 and status["counts"]["succeeded"] == 6  # not-listed left out
    row = release.kubectl("-n", FAKE, "get", "evaluationrun", name, "--no-headers").stdout.split()
    assert row[:3] == [name, status["phase"], "6/6"], row
    release.kubectl("-n", FAKE, "delete", "evaluationrun", name)
