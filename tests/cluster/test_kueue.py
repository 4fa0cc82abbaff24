"""Two runs sharing one Kueue queue on the real control plane: Kueue v0.17, built from
its Go module by ``hack/cluster-up --kueue``, with its CRDs and its webhooks served on
loopback, admits the operator's suspended Jobs within a ClusterQueue's quota. The
quota holds two app pods; each run asks for two at a time, so Jobs wait suspended
while the runs say WaitingForAdmission, and never more than the quota runs. The pods
run on the real kubelet and evaluate apps of the bundled example, so both runs end
Succeeded with real results. Then, on the same pods and queue: a retry of one run re-runs
exactly the app whose result went missing, a rescore scores the stored evidence again,
and the other run, deleted and created again over its store, reuses every result."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import boto3
import pytest

from fakes import example_subset as example
from fakes.real_cluster import BUCKET, ON_KUBELET, REAL, Cluster, exploring_pod, run_manifest, wait_for

QUEUE = "team-a"
CLUSTER_QUEUE = "iwc-evaluation"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
RUN_UID = "iwcbench.io/run-uid"
RUNS = {"queued-a": ["aurora-7b/canvas-snake", "brisk-3b/canvas-snake"],
        "queued-b": ["aurora-7b/ab-1010.zip", "brisk-3b/ab-1010"]}
APPS = 2  # per run
PARALLELISM = 2
# an app pod: max(instrument 100m, app 50m + explorer 250m) = 300m; the quota holds two
RESOURCES = {
    "instrument": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "3Gi"}},
    "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
    "explorer": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
    "scoring": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
}
QUOTA_MILLI = 600
POD_MILLI = {"app": 300, "scoring": 100}
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
    release.apply(flavor, REAL)
    release.apply(cluster_queue, REAL)
    release.apply(local_queue, REAL)
    wait_for(lambda: any(c["type"] == "Active" and c["status"] == "True" for c in
                         release.get("clusterqueue", CLUSTER_QUEUE).get("status", {}).get("conditions", [])),
             60, "the ClusterQueue to be Active")
    yield QUEUE
    release.kubectl("-n", REAL, "delete", "localqueue", QUEUE, check=False)
    release.kubectl("delete", "clusterqueue", CLUSTER_QUEUE, check=False)


class _Watch:
    """Samples, every 0.3 s while the runs go on: (milli-CPU admitted by Kueue, milli-CPU
    of the Jobs running, Jobs suspended), and the runs seen saying WaitingForAdmission."""

    def __init__(self, release: Cluster, names: tuple[str, ...]) -> None:
        self.release, self.names = release, names
        self.samples: list[tuple[int, int, int]] = []
        self.waiting: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> "_Watch":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _watch(self) -> None:
        release = self.release
        while not self._stop.is_set():
            try:
                workloads = release.get("-n", REAL, "workloads.kueue.x-k8s.io")["items"]
                jobs = release.get("-n", REAL, "jobs", "-l", QUEUE_LABEL)["items"]
                for name in self.names:
                    conditions = release.run_status(REAL, name).get("conditions", [])
                    if any(c["type"] == "Admitted" and c.get("reason") == "WaitingForAdmission" for c in conditions):
                        self.waiting.add(name)
            except (AssertionError, subprocess.SubprocessError):
                continue
            admitted = sum(_milli(u["cpu"]) for w in workloads if not _finished(w)
                           for a in [w.get("status", {}).get("admission")] if a
                           for p in a["podSetAssignments"] for u in [p.get("resourceUsage", {})] if "cpu" in u)
            live = [j for j in jobs if not _finished(j)]
            self.samples.append((admitted, sum(POD_MILLI[j["metadata"]["labels"]["iwcbench.io/role"]]
                                               for j in live if not j["spec"].get("suspend")),
                                 sum(1 for j in live if j["spec"].get("suspend"))))
            time.sleep(0.3)


def _manifest(name: str, queue: str) -> dict:
    return run_manifest(name, name, parallelism=PARALLELISM, backoffLimit=0, queueName=queue,
                        exploration={"maxSteps": example.MAX_STEPS}, quality={"metrics": list(example.QUALITY)},
                        scheduling={"nodeSelector": ON_KUBELET}, resources=RESOURCES, sandbox={"mirrorFetch": False})


def _results(name: str) -> dict:
    return json.loads(boto3.client("s3").get_object(Bucket=BUCKET, Key=f"runs/{name}/results.json")["Body"].read())


def _evaluated(name: str) -> dict[str, dict]:
    return {f"{a['model']}/{a['task_id']}": a for a in _results(name)["apps"] if a["outcome"] == "evaluated"}


@pytest.fixture(scope="module")
def shared(release: Cluster, queue: str) -> tuple[_Watch, dict[str, dict]]:
    """Both runs, created at once on the queue, ended; (the watch, each run's end status)."""
    for name, apps in RUNS.items():
        example.upload(BUCKET, f"{name}/", apps=apps)
    started = time.monotonic()
    with _Watch(release, tuple(RUNS)) as watch:
        for name in RUNS:
            release.apply(_manifest(name, queue), REAL)
        ends = {name: release.wait_for_phase(REAL, name, ("Succeeded", "Failed"), 1500) for name in RUNS}
    samples = watch.samples
    print(f"two runs of {APPS} real apps under Kueue: {time.monotonic() - started:.0f} s to both ended; "
          f"{len(samples)} samples, max admitted {max(s[0] for s in samples)}m, "
          f"max running {max(s[1] for s in samples)}m, max suspended {max(s[2] for s in samples)}")
    return watch, ends


def test_two_runs_share_a_queue_within_its_quota(release: Cluster, queue: str, shared):
    watch, ends = shared
    for name, status in ends.items():
        assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
        uid = release.get("-n", REAL, "evaluationrun", name)["metadata"]["uid"]
        jobs = release.get("-n", REAL, "jobs", "-l", f"{RUN_UID}={uid}")["items"]
        apps = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
        # every app ran once, admitted by Kueue: the operator made each Job suspended and
        # only Kueue resumes a Job carrying its queue label
        assert len(apps) == APPS and all(j["status"].get("succeeded") == 1 for j in apps), name
        assert all(j["metadata"]["labels"][QUEUE_LABEL] == queue for j in jobs)
        scoring = [j for j in jobs if j["metadata"]["labels"]["iwcbench.io/role"] == "scoring"]
        assert len(scoring) == 1 and scoring[0]["status"].get("succeeded") == 1
        assert status["counts"]["succeeded"] == APPS and status["counts"]["failed"] == 0, status["counts"]
        # real results: each app explored and scored, the leaderboard published
        assert set(_evaluated(name)) == {a.removesuffix(".zip") for a in RUNS[name]}, name
        assert status["results"]["leaderboard"] and status["leader"], status["results"]
    # one Workload per Job, each admitted to the ClusterQueue
    workloads = release.get("-n", REAL, "workloads.kueue.x-k8s.io")["items"]
    ours = [w for w in workloads if w["spec"]["queueName"] == queue]
    assert len(ours) == 2 * (APPS + 1), [w["metadata"]["name"] for w in ours]
    assert all(w["status"]["admission"]["clusterQueue"] == CLUSTER_QUEUE for w in ours)
    # the quota held: never more admitted than it, nor more running (two app pods)
    samples = watch.samples
    assert max(s[0] for s in samples) <= QUOTA_MILLI, samples
    assert max(s[1] for s in samples) <= QUOTA_MILLI, samples
    # and it was what held them back: Jobs waited suspended, the runs said why
    assert any(s[2] > 0 for s in samples), samples
    assert watch.waiting == set(RUNS), watch.waiting
    # Kueue's webhooks (served on loopback with a certificate from the cluster's CA) saw the Jobs
    calls = [line for line in release.kubectl("get", "--raw", "/metrics").stdout.splitlines()
             if line.startswith("apiserver_admission_webhook_request_total") and 'name="vjob.kb.io"' in line
             and 'code="200"' in line and 'operation="CREATE"' in line]
    assert calls and float(calls[0].rsplit(" ", 1)[1]) >= 2 * (APPS + 1), calls


def _annotate(release: Cluster, name: str, key: str, value: str) -> None:
    release.kubectl("-n", REAL, "annotate", "evaluationrun", name, "--overwrite", f"iwcbench.io/{key}={value}")


def _round_ended(release: Cluster, name: str, round_: int, timeout: float) -> dict:
    return wait_for(lambda: ((s := release.run_status(REAL, name)).get("phase") in ("Succeeded", "Failed")
                             and int(s.get("round") or 0) == round_ and s), timeout,
                    f"{name}'s round {round_} to end", lambda: release.diagnose(REAL))


def test_a_retry_and_a_rescore_on_the_queue_give_real_results(release: Cluster, shared):
    """queued-a: one app's result.json is lost from the store; the retry re-runs exactly
    that app on a real pod (through the queue) and scores again; the rescore then scores
    the stored evidence again without any app pod."""
    name, (lost, kept) = "queued-a", RUNS["queued-a"]
    s3 = boto3.client("s3")
    s3.delete_object(Bucket=BUCKET, Key=f"runs/{name}/apps/{lost}/result.json")
    uid = release.get("-n", REAL, "evaluationrun", name)["metadata"]["uid"]
    _annotate(release, name, "retry", "lost-one")
    retried = _round_ended(release, name, 1, 900)
    assert retried["phase"] == "Succeeded", json.dumps(retried, indent=1)
    assert retried["counts"]["total"] == 1 and retried["counts"]["succeeded"] == 1, retried["counts"]
    again = release.get("-n", REAL, "jobs", "-l", f"{RUN_UID}={uid},iwcbench.io/round=1")["items"]
    apps = [j for j in again if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
    assert [f"{j['metadata']['annotations']['iwcbench.io/model']}/{j['metadata']['annotations']['iwcbench.io/task']}"
            for j in apps] == [lost] and apps[0]["metadata"]["labels"][QUEUE_LABEL] == QUEUE
    evaluated = _evaluated(name)
    assert set(evaluated) == {lost, kept} and evaluated[lost]["exploration"]["steps"] >= 1, evaluated
    before = s3.head_object(Bucket=BUCKET, Key=f"runs/{name}/results.json")["LastModified"]
    _annotate(release, name, "rescore", "same-evidence")
    rescored = _round_ended(release, name, 2, 600)
    assert rescored["phase"] == "Succeeded", json.dumps(rescored, indent=1)
    assert not [j for j in release.get("-n", REAL, "jobs", "-l", f"{RUN_UID}={uid},iwcbench.io/round=2")["items"]
                if j["metadata"]["labels"]["iwcbench.io/role"] == "app"]
    assert s3.head_object(Bucket=BUCKET, Key=f"runs/{name}/results.json")["LastModified"] >= before
    assert set(_evaluated(name)) == {lost, kept}
    assert rescored["results"]["digest"] and rescored["leader"] == retried["leader"]
    release.kubectl("-n", REAL, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")


def test_a_run_created_again_over_its_store_reuses_every_result(release: Cluster, queue: str, shared):
    name = "queued-b"
    first = _evaluated(name)
    release.kubectl("-n", REAL, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")
    release.apply(_manifest(name, queue), REAL)
    status = release.wait_for_phase(REAL, name, ("Succeeded", "Failed"), 900)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    again = _evaluated(name)
    assert set(again) == set(first)
    for key, app in again.items():
        assert app["reused"] is True and app["reused_from"] == f"EvaluationRun {REAL}/{name}", (key, app)
        assert app["scores"]["wcb_linting"] == first[key]["scores"]["wcb_linting"], key
    release.kubectl("-n", REAL, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")


PREEMPT_QUEUE, PREEMPT_CLUSTER_QUEUE = "team-p", "iwc-preempting"


def test_an_app_preempted_by_kueue_is_evaluated_again_and_never_charged(release: Cluster, queue: str):
    """A ClusterQueue that preempts lower priorities, with room for one app pod: while the
    low-priority run's app explores, a high-priority run arrives; Kueue evicts the first
    Job's workload (the Job is suspended, its pod terminated), admits the second, and
    re-admits the first when room comes back. backoffLimit 0: a preemption charged to the
    Job would fail it. Both runs end Succeeded with their app evaluated."""
    for name, value in (("iwc-low", 100), ("iwc-high", 1000)):
        release.kubectl("apply", "-f", "-", stdin=json.dumps({
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "preemptionPolicy": "Never"}))
    release.apply({"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": PREEMPT_CLUSTER_QUEUE},
                   "spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
                            "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [{
                                "name": "default-flavor", "resources": [
                                    {"name": "cpu", "nominalQuota": f"{POD_MILLI['app']}m"},
                                    {"name": "memory", "nominalQuota": "64Gi"}]}]}]}}, REAL)
    release.apply({"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": PREEMPT_QUEUE},
                   "spec": {"clusterQueue": PREEMPT_CLUSTER_QUEUE}}, REAL)
    runs = {"preempted": ("iwc-low", "aurora-7b/canvas-snake", 40), "preempting": ("iwc-high", "brisk-3b/ab-1010", 5)}
    for name, (_, app, _) in runs.items():
        example.upload(BUCKET, f"{name}/", apps=[app])

    def manifest(name: str) -> dict:
        priority, _, steps = runs[name]
        body = _manifest(name, PREEMPT_QUEUE)
        body["spec"].update(priorityClassName=priority, parallelism=1, exploration={"maxSteps": steps})
        return body

    release.apply(manifest("preempted"), REAL)
    uid = wait_for(lambda: release.get("-n", REAL, "evaluationrun", "preempted")["metadata"].get("uid"), 30, "uid")
    first = wait_for(lambda: exploring_pod(release, REAL, uid), 600, "the low-priority app exploring",
                     lambda: release.diagnose(REAL))
    release.apply(manifest("preempting"), REAL)
    ends = {name: release.wait_for_phase(REAL, name, ("Succeeded", "Failed"), 1200) for name in runs}
    for name, status in ends.items():
        assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
        assert status["counts"]["succeeded"] == 1 and status["counts"]["failed"] == 0, (name, status["counts"])
        assert set(_evaluated(name)) == {runs[name][1]}, name
    (job,) = [j for j in release.get("-n", REAL, "jobs", "-l", f"{RUN_UID}={uid},iwcbench.io/role=app")["items"]]
    assert job["status"].get("succeeded") == 1 and not job["status"].get("failed"), job["status"]
    # Kueue did preempt it: its workload was evicted once, and the pod that finished is another
    (workload,) = [w for w in release.get("-n", REAL, "workloads.kueue.x-k8s.io")["items"]
                   if w["metadata"]["ownerReferences"][0]["name"] == job["metadata"]["name"]]
    evicted = [c for c in workload["status"].get("conditions", []) if c["type"] in ("Evicted", "Preempted")]
    assert evicted, workload["status"]
    pods = release.get("-n", REAL, "pods", "-l", f"job-name={job['metadata']['name']}")["items"]
    assert first["metadata"]["name"] not in {p["metadata"]["name"] for p in pods if p["status"]["phase"] == "Succeeded"}
    for name in runs:
        release.kubectl("-n", REAL, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")
    release.kubectl("-n", REAL, "delete", "localqueue", PREEMPT_QUEUE, check=False)
    release.kubectl("delete", "clusterqueue", PREEMPT_CLUSTER_QUEUE, check=False)
