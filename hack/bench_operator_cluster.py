"""The operator at scale on the real control plane (hack/bench-operator --cluster).

The operator runs from its image in a pod on the kubelet node, installed with the chart,
as its ServiceAccount; the app Jobs' pods go to kwok's fake nodes through the real
scheduler and Job controller (kwok ends each pod with exit 0 right away). The bench plays
the scoring pod's publish-status: when the scoring Job appears, it writes the results
summary into the status, as the scoring pod would. Prints the wall time until every app
Job exists and until the run is Succeeded, the operator's API requests per app (from the
audit log, by its ServiceAccount), its peak RSS, the status size, etcd's growth, and the
time the garbage collector takes to remove the run's Jobs after the run is deleted.

With a third argument, ``kueue``, the run has ``queueName`` and Kueue admits every Job
within a ClusterQueue that holds QUOTA app pods (fourth argument, default half the
parallelism, so Kueue really holds Jobs back); Kueue's own API requests per app are
printed too.

Needs hack/cluster-up --kubelet --audit --egress 39000 (and --kueue) with the operator
image imported (hack/cluster-tier with IWC_CLUSTER_KEEP=1 leaves exactly that)."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import boto3  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from fakes import s3_server  # noqa: E402
from fakes.real_cluster import (ON_KUBELET, S3_PORT, STATE, Cluster, chart_values, environment,  # noqa: E402
                                helm_upgrade, prepare_namespace)

NS, SYSTEM, BUCKET = "bench", "iwc-bench-system", "bench"
OPERATOR_USER = f"system:serviceaccount:{SYSTEM}:iwc-operator"
CONTROLLERS = {  # more API throughput than the defaults (20 QPS), as a busy cluster is given
    "kube-controller-manager": "--kube-api-qps=500 --kube-api-burst=1000 --concurrent-job-syncs=50 "
                               "--concurrent-gc-syncs=50",
    "kube-scheduler": "--kube-api-qps=500 --kube-api-burst=1000",
}


KUEUE_USER = "iwc:kueue"
KUEUE = "kueue.x-k8s.io/v1beta2"
APP_POD_MILLI = 1100  # the operator's default requests: max(instrument 500m, app 100m + explorer 1)


def main(apps: int, parallelism: int, kueue: bool = False, quota: int = 0) -> None:
    c = Cluster(environment())
    audit = pathlib.Path(c.env.get("IWC_CLUSTER_AUDIT_LOG", ""))
    if not audit.is_file():
        sys.exit("bench-operator --cluster: start the cluster with --audit (requests are counted per user)")
    for name, flags in CONTROLLERS.items():
        # a component's command line is recorded when it first starts (args/<name>);
        # --restart starts it again from that record
        recorded = STATE / "args" / name
        lines = recorded.read_text().splitlines()
        missing = [f for f in flags.split() if f not in lines]
        if missing:
            recorded.write_text("\n".join(lines + missing) + "\n")
            subprocess.run([str(ROOT / "hack/cluster-up"), "--restart", name], check=True, capture_output=True,
                           env=c.env)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=S3_PORT, verbose=False)
    server.start()
    import logging
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    os.environ.update(s3_server.environment(f"http://127.0.0.1:{S3_PORT}"))
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="tasks.jsonl",
                  Body="".join(json.dumps({"id": f"task-{i:05d}", "prompt": "p"}) + "\n" for i in range(apps)).encode())
    for i in range(apps):
        s3.put_object(Bucket=BUCKET, Key=f"apps/model-{i % 10}/task-{i:05d}.zip", Body=b"PK")
    _install(c)
    if kueue:
        _queue(c, quota or parallelism // 2)
    etcd_before = _etcd_bytes(c)
    t0 = time.monotonic()
    since = time.time()
    manifest = {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun", "metadata": {"name": "bench"},
                "spec": {"tasks": f"s3://{BUCKET}/tasks.jsonl", "apps": {"uri": f"s3://{BUCKET}/apps"},
                         "store": f"s3://{BUCKET}/runs/bench", "parallelism": parallelism,
                         "scheduling": {"nodeSelector": {"type": "kwok"}},
                         **({"queueName": "bench"} if kueue else {})}}
    c.apply(manifest, NS)
    all_jobs = published = None
    while True:
        status = c.run_status(NS, "bench")
        counts = status.get("counts") or {}
        if all_jobs is None and counts.get("total") == apps and counts.get("pending") == 0:
            all_jobs = time.monotonic() - t0  # every app Job created (the operator's own count)
        if published is None and status.get("scoringJob"):  # publish as the scoring pod would
            _publish(c, apps)
            published = time.monotonic() - t0
        if status.get("phase") in ("Succeeded", "Failed"):
            break
        time.sleep(1)
    wall = time.monotonic() - t0
    pid = _operator_pid()
    peak_kib = _peak_kib(pid)
    requests = _requests_by(audit, since, OPERATOR_USER)
    kueue_requests = _requests_by(audit, since, KUEUE_USER) if kueue else collections.Counter()
    status_bytes = len(json.dumps(status, separators=(",", ":")))
    etcd_after = _etcd_bytes(c)
    t1 = time.monotonic()
    c.kubectl("-n", NS, "delete", "evaluationrun", "bench", "--wait=true", "--timeout=900s", timeout=960)
    while _count(c, "jobs") or _count(c, "pods"):
        time.sleep(2)
    collected = time.monotonic() - t1
    writes = sum(n for (verb, _), n in requests.items() if verb in ("create", "patch", "update", "delete"))
    total = sum(requests.values())
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"kubernetes {c.env.get('IWC_CLUSTER_K8S_VERSION', 'v1.35.8')}, kwok fake nodes")
    print(f"apps {apps}, parallelism {parallelism}: phase {status.get('phase')}")
    print(f"  every app Job created after {all_jobs or 0:.1f} s; Succeeded after {wall:.1f} s "
          f"({apps / wall:.1f} apps/s; scoring Job seen at {published or 0:.1f} s)")
    print(f"  operator API requests: {total} ({total / apps:.3f} per app), writes {writes} ({writes / apps:.3f} per app)")
    for (verb, resource), n in sorted(requests.items(), key=lambda kv: -kv[1]):
        print(f"    {verb:7} {resource:28} {n}")
    if kueue:
        n = sum(kueue_requests.values())
        print(f"  Kueue (a ClusterQueue of {quota or parallelism // 2} app pods) API requests: {n} ({n / apps:.3f} per app)")
        for (verb, resource), k in sorted(kueue_requests.items(), key=lambda kv: -kv[1])[:8]:
            print(f"    {verb:7} {resource:28} {k}")
    print(f"  operator peak RSS (VmHWM): {peak_kib / 1024:.0f} MiB")
    print(f"  status size: {status_bytes} bytes")
    print(f"  etcd db size: {etcd_before / 2**20:.1f} → {etcd_after / 2**20:.1f} MiB")
    print(f"  run deleted: every Job and pod gone after {collected:.1f} s (garbage collector)")
    c.run(c.env["IWC_HELM"], "uninstall", "iwc-bench", "-n", SYSTEM, "--wait", check=False)
    server.stop()


def _install(c: Cluster) -> None:
    for ns in (SYSTEM, NS):
        prepare_namespace(c, ns)
    helm_upgrade(c, "iwc-bench", SYSTEM, chart_values(
        [NS], f"http://127.0.0.1:{S3_PORT}",
        operator={"nodeSelector": ON_KUBELET, "resources": {"limits": {"memory": "1Gi"}}}))
    time.sleep(5)  # start-up (imports, login, first watch) is not part of the run


def _queue(c: Cluster, pods: int) -> None:
    """A ClusterQueue holding ``pods`` app pods' CPU, a LocalQueue ``bench``, and Kueue's
    client given the API throughput the other controllers get here (CONTROLLERS)."""
    config = STATE / "kueue" / "config.yaml"
    text = config.read_text()
    if "qps: 500" not in text:
        config.write_text(re.sub(r"clientConnection: .*", "clientConnection: {qps: 500, burst: 1000}", text))
        subprocess.run([str(ROOT / "hack/cluster-up"), "--restart", "kueue"], check=True, capture_output=True,
                       env=c.env)
    c.apply({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}}, NS)
    c.apply({"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "bench"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [{
                 "coveredResources": ["cpu", "memory"], "flavors": [{"name": "default-flavor", "resources": [
                     {"name": "cpu", "nominalQuota": f"{pods * APP_POD_MILLI}m"},
                     {"name": "memory", "nominalQuota": "100Ti"}]}]}]}}, NS)
    c.apply({"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "bench"},
             "spec": {"clusterQueue": "bench"}}, NS)


def _publish(c: Cluster, apps: int) -> None:
    results = {"uri": f"s3://{BUCKET}/runs/bench/results.json", "digest": "sha256:0", "apps": apps,
               "leaderboard": [{"rank": r + 1, "model": f"model-{r}", "overall": 1 - r / 10, "apps": apps // 10}
                               for r in range(10)]}
    c.kubectl("-n", NS, "patch", "evaluationrun", "bench", "--subresource=status", "--type=merge", "-p",
              json.dumps({"status": {"leader": "model-0", "resultsURI": results["uri"], "results": results}}))


def _count(c: Cluster, kind: str) -> int:
    out = c.kubectl("-n", NS, "get", kind, "-o", "name", "--chunk-size=2000", check=False, timeout=300).stdout
    return len(out.split())


def _operator_pid() -> int:
    out = subprocess.run(["pgrep", "-f", f"iwc operator run .*--namespace={NS}"], capture_output=True, text=True).stdout
    return int(out.split()[0])


def _peak_kib(pid: int) -> int:
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", text).group(1))


def _requests_by(audit: pathlib.Path, since: float, user: str) -> collections.Counter:
    """(verb, resource[/subresource]) → count of the user's requests since ``since``."""
    counts: collections.Counter = collections.Counter()
    with audit.open() as f:
        for line in f:
            if user not in line:
                continue
            event = json.loads(line)
            if event.get("stage") != "ResponseComplete" or event["user"]["username"] != user:
                continue
            stamp = time.mktime(time.strptime(event["requestReceivedTimestamp"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
            if stamp < since - 1:
                continue
            ref = event.get("objectRef", {})
            resource = ref.get("resource", event.get("requestURI", "?")) + (f"/{ref['subresource']}" if ref.get("subresource") else "")
            counts[(event["verb"], resource)] += 1
    return counts


def _etcd_bytes(c: Cluster) -> float:
    text = urllib.request.urlopen(c.env["IWC_CLUSTER_ETCD_METRICS_URL"], timeout=10).read().decode()
    return float(re.search(r"^etcd_mvcc_db_total_size_in_bytes (\S+)", text, re.M).group(1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, int(sys.argv[2]) if len(sys.argv) > 2 else 500,
         len(sys.argv) > 3 and sys.argv[3] == "kueue", int(sys.argv[4]) if len(sys.argv) > 4 else 0)
