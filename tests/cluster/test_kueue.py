"""Two runs sharing one Kueue queue on the real control plane: Kueue v0.17, built from
its Go module by ``hack/cluster-up --kueue``, with its CRDs and its webhooks served on
loopback, admits the operator's suspended Jobs within a ClusterQueue's quota. The
quota holds two app pods; each run asks for three at a time, so Jobs wait suspended
while the runs say WaitingForAdmission, and never more than the quota runs. kwok's
nodes run the pods (each ends at once, exit 0), so every app's Job completes and the
scoring Jobs, queued too, publish nothing: the runs end ScoringIncomplete as in
test_fanout_on_kwok."""

from __future__ import annotations

import subprocess
import threading
import time

import pytest

from fakes.real_cluster import FAKE, ON_KWOK, Cluster, put_tasks_and_apps, run_manifest, wait_for

QUEUE = "team-a"
CLUSTER_QUEUE = "iwc-evaluation"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
RUN_UID = "iwcbench.io/run-uid"
APPS = 6  # per run
PARALLELISM = 3
# an app pod: max(instrument 100m, app 50m + explorer 150m) = 200m; the quota holds two
RESOURCES = {
    "instrument": {"requests": {"cpu": "100m", "memory": "64Mi"}},
    "app": {"requests": {"cpu": "50m", "memory": "32Mi"}},
    "explorer": {"requests": {"cpu": "150m", "memory": "64Mi"}},
    "scoring": {"requests": {"cpu": "100m", "memory": "64Mi"}},
}
QUOTA_MILLI = 400
POD_MILLI = {"app": 200, "scoring": 100}
KUEUE = "kueue.x-k8s.io/v1beta2"


def _milli(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)


def _finished(obj: dict) -> bool:
    return any(c["type"] in ("Complete", "Failed", "Finished") and c["status"] == "True"
               for c in obj.get("status", {}).get("conditions", []))


@pytest.fixture(scope="module")
def queue(release: Cluster):
    if release.kubectl("get", "crd", "clusterqueues.kueue.x-k8s.io", check=False).returncode != 0:
        pytest.fail("no Kueue in the cluster: hack/cluster-up --kueue", pytrace=False)
    flavor = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}}
    cluster_queue = {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": CLUSTER_QUEUE},
                     "spec": {"namespaceSelector": {}, "resourceGroups": [{
                         "coveredResources": ["cpu", "memory"],
                         "flavors": [{"name": "default-flavor", "resources": [
                             {"name": "cpu", "nominalQuota": f"{QUOTA_MILLI}m"},
                             {"name": "memory", "nominalQuota": "64Gi"}]}]}]}}
    local_queue = {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": QUEUE},
                   "spec": {"clusterQueue": CLUSTER_QUEUE}}
    release.apply(flavor, FAKE)
    release.apply(cluster_queue, FAKE)
    release.apply(local_queue, FAKE)
    wait_for(lambda: any(c["type"] == "Active" and c["status"] == "True" for c in
                         release.get("clusterqueue", CLUSTER_QUEUE).get("status", {}).get("conditions", [])),
             60, "the ClusterQueue to be Active")
    yield QUEUE
    release.kubectl("-n", FAKE, "delete", "localqueue", QUEUE, check=False)
    release.kubectl("delete", "clusterqueue", CLUSTER_QUEUE, check=False)


def test_two_runs_share_a_queue_within_its_quota(release: Cluster, queue: str):
    names = ("queued-a", "queued-b")
    for name in names:
        tasks = [{"id": f"q{i}", "prompt": f"Page {i}."} for i in range(APPS // 2)]
        put_tasks_and_apps(name, tasks, {f"{m}/{t['id']}": {"index.html": b"<p>q</p>"}
                                         for m in ("m-a", "m-b") for t in tasks})
    # (milli-CPU admitted by Kueue, milli-CPU of the Jobs running, Jobs suspended)
    samples: list[tuple[int, int, int]] = []
    waiting: set[str] = set()  # runs seen saying WaitingForAdmission
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                workloads = release.get("-n", FAKE, "workloads.kueue.x-k8s.io")["items"]
                jobs = release.get("-n", FAKE, "jobs", "-l", QUEUE_LABEL)["items"]
                for name in names:
                    conditions = release.run_status(FAKE, name).get("conditions", [])
                    if any(c["type"] == "Admitted" and c.get("reason") == "WaitingForAdmission" for c in conditions):
                        waiting.add(name)
            except (AssertionError, subprocess.SubprocessError):
                continue
            admitted = sum(_milli(u["cpu"]) for w in workloads if not _finished(w)
                           for a in [w.get("status", {}).get("admission")] if a
                           for p in a["podSetAssignments"] for u in [p.get("resourceUsage", {})] if "cpu" in u)
            live = [j for j in jobs if not _finished(j)]
            samples.append((admitted, sum(POD_MILLI[j["metadata"]["labels"]["iwcbench.io/role"]]
                                          for j in live if not j["spec"].get("suspend")),
                            sum(1 for j in live if j["spec"].get("suspend"))))
            time.sleep(0.3)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started = time.monotonic()
    try:
        for name in names:
            release.apply(run_manifest(name, name, parallelism=PARALLELISM, backoffLimit=0, queueName=queue,
                                       scheduling={"nodeSelector": ON_KWOK}, resources=RESOURCES), FAKE)
        ends = {name: release.wait_for_phase(FAKE, name, ("Succeeded", "Failed"), 600) for name in names}
    finally:
        stop.set()
        watcher.join(timeout=10)
    print(f"two runs of {APPS} apps under Kueue: {time.monotonic() - started:.0f} s to both ended; "
          f"{len(samples)} samples, max admitted {max(s[0] for s in samples)}m, "
          f"max running {max(s[1] for s in samples)}m, max suspended {max(s[2] for s in samples)}")

    for name, status in ends.items():
        uid = release.get("-n", FAKE, "evaluationrun", name)["metadata"]["uid"]
        jobs = release.get("-n", FAKE, "jobs", "-l", f"{RUN_UID}={uid}")["items"]
        apps = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
        # every app ran once, admitted by Kueue: the operator made each Job suspended and
        # only Kueue resumes a Job carrying its queue label
        assert len(apps) == APPS and all(j["status"].get("succeeded") == 1 for j in apps), name
        assert all(j["metadata"]["labels"][QUEUE_LABEL] == queue for j in jobs)
        scoring = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "scoring"]
        assert len(scoring) == 1 and scoring[0]["status"].get("succeeded") == 1
        assert status["counts"]["succeeded"] == APPS and status["counts"]["failed"] == 0, status["counts"]
        # kwok's pods write nothing: the scoring Job publishes nothing (as in test_fanout_on_kwok)
        failed = next(c for c in status["conditions"] if c["type"] == "Failed")
        assert failed["reason"] == "ScoringIncomplete", failed
    # one Workload per Job, each admitted to the ClusterQueue
    workloads = release.get("-n", FAKE, "workloads.kueue.x-k8s.io")["items"]
    ours = [w for w in workloads if w["spec"]["queueName"] == queue]
    assert len(ours) == 2 * (APPS + 1), [w["metadata"]["name"] for w in ours]
    assert all(w["status"]["admission"]["clusterQueue"] == CLUSTER_QUEUE for w in ours)
    # the quota held: never more admitted than it, nor more running (two app pods)
    assert max(s[0] for s in samples) <= QUOTA_MILLI, samples
    assert max(s[1] for s in samples) <= QUOTA_MILLI, samples
    # and it was what held them back: Jobs waited suspended, the runs said why
    assert any(s[2] > 0 for s in samples), samples
    assert waiting == set(names), waiting
    # Kueue's webhooks (served on loopback with a certificate from the cluster's CA) saw the Jobs
    calls = [line for line in release.kubectl("get", "--raw", "/metrics").stdout.splitlines()
             if line.startswith("apiserver_admission_webhook_request_total") and 'name="vjob.kb.io"' in line
             and 'code="200"' in line and 'operation="CREATE"' in line]
    assert calls and float(calls[0].rsplit(" ", 1)[1]) >= 2 * (APPS + 1), calls
    for name in names:
        release.kubectl("-n", FAKE, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")
