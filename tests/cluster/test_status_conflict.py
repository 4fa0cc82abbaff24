"""Two writers on one run's status, on the real API server. The operator merge-patches
the keys it owns (phase, counts, conditions); the scoring pod merge-patches the results
beside them; anyone else (a user's `kubectl edit --subresource=status`, a stale
controller) may write too. Here the test is that other writer, on kwok's fake nodes,
for the whole run:

- it publishes results early, as a scoring pod would, and the operator must keep them;
- it overwrites the operator's counts while the run is suspended, and the operator must
  put them back;
- over and over, it replaces the status with a resourceVersion that is already stale,
  and the API server must refuse each write with 409 Conflict.

The run still ends Succeeded (Scored), with one Job per app and the published results
intact."""

from __future__ import annotations

import json
import subprocess
import threading
import time

from fakes.real_cluster import FAKE, ON_KWOK, Cluster, put_tasks_and_apps, run_manifest, wait_for
from iwcbench.operator import api

NAME = "conflict"
APPS = 8
RUN_UID = "iwcbench.io/run-uid"
RESULTS = api.ResultsSummary(uri="s3://iwc-cluster/runs/conflict/results.json", digest="sha256:" + "0" * 64,
                             apps=APPS).wire()
WRONG_COUNTS = {"total": 99, "pending": 0, "queued": 0, "active": 0, "succeeded": 99, "failed": 0}


def _patch_status(cluster: Cluster, patch: dict) -> None:
    cluster.kubectl("-n", FAKE, "patch", "evaluationrun", NAME, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": patch}))


def _stale_replace(cluster: Cluster, n: int) -> subprocess.CompletedProcess[str]:
    """Read the run, let another write land, then replace the status with what was read."""
    body = cluster.get("-n", FAKE, "evaluationrun", NAME)
    _patch_status(cluster, {"leader": f"writer-{n}"})  # a real change in between: the read is now stale
    body["status"]["progress"] = "0/0"
    return cluster.kubectl("-n", FAKE, "replace", "--subresource=status", "-f", "-", stdin=json.dumps(body),
                           check=False)


def test_other_writers_on_the_status_lose_nothing_and_stale_writes_are_refused(release: Cluster):
    tasks = [{"id": f"c{i}", "prompt": f"Page {i}."} for i in range(APPS // 2)]
    apps = {f"{m}/{t['id']}": {"index.html": b"<!doctype html><p>hi</p>"} for m in ("m-a", "m-b") for t in tasks}
    put_tasks_and_apps(NAME, tasks, apps)
    release.apply(run_manifest(NAME, NAME, parallelism=2, backoffLimit=0, suspend=True,
                               scheduling={"nodeSelector": ON_KWOK}), FAKE)
    uid = wait_for(lambda: release.get("-n", FAKE, "evaluationrun", NAME)["metadata"].get("uid"), 30, "the run")
    release.wait_for_phase(FAKE, NAME, ("Suspended",), 60)

    # The results arrive before any Job runs, and the operator's counts are overwritten.
    _patch_status(release, {"results": RESULTS, "resultsURI": RESULTS["uri"], "counts": WRONG_COUNTS})
    restored = wait_for(lambda: (s := release.run_status(FAKE, NAME)).get("counts", {}).get("total") == APPS and s,
                        60, "the operator to put its counts back", lambda: release.diagnose(FAKE))
    assert restored["counts"]["succeeded"] == 0 and restored["results"] == RESULTS

    conflicts: list[str] = []
    accepted: list[str] = []
    stop = threading.Event()

    def other_writer() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                proc = _stale_replace(release, n)
            except (AssertionError, subprocess.SubprocessError, KeyError):
                continue  # a read or patch that met the run at an awkward moment
            (conflicts if proc.returncode != 0 and "Conflict" in proc.stderr + proc.stdout
             else accepted).append(proc.stderr.strip()[-300:])
            time.sleep(0.3)

    writer = threading.Thread(target=other_writer, daemon=True)
    release.kubectl("-n", FAKE, "patch", "evaluationrun", NAME, "--type=merge", "-p", '{"spec": {"suspend": false}}')
    writer.start()
    try:
        status = release.wait_for_phase(FAKE, NAME, ("Succeeded", "Failed"), 300)
    finally:
        stop.set()
        writer.join(timeout=30)

    assert conflicts and not accepted, (len(conflicts), accepted[:3])  # every stale replace refused
    assert status["phase"] == "Succeeded", status.get("conditions")
    assert {c["type"]: c["reason"] for c in status["conditions"] if c["status"] == "True"}["Complete"] == "Scored"
    assert status["results"] == RESULTS  # the other writer's keys survive the operator's patches
    assert status["counts"] == {"total": APPS, "pending": 0, "queued": 0, "active": 0, "succeeded": APPS, "failed": 0}
    jobs = release.get("-n", FAKE, "jobs", "-l", f"{RUN_UID}={uid}")["items"]
    app_jobs = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
    assert len(app_jobs) == APPS and len(jobs) == APPS + 1  # one Job per app and one scoring Job
    names = {(a := j["metadata"]["annotations"])["iwcbench.io/model"] + "/" + a["iwcbench.io/task"] for j in app_jobs}
    assert names == set(apps)
    release.kubectl("-n", FAKE, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=60s")
