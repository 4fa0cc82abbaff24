"""Talking to the real control plane of ``hack/cluster-up`` from the cluster tier
(tests/cluster): kubectl and helm as its admin, the store's bucket, waiting."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import shlex
import subprocess
import tempfile
import urllib.parse
import urllib.request
from typing import Any, Callable

import boto3
import pytest

from fakes.operator_harness import wait_for  # noqa: F401 - the tier's tests import it from here

ROOT = pathlib.Path(__file__).resolve().parents[2]
STATE = pathlib.Path(os.environ.get("IWC_CLUSTER_DIR", "/tmp/iwc-cluster"))
KUBELET_ROOT = STATE / "kubelet"  # the kubelet's --root-dir (hack/cluster/kubelet.sh)
S3_PORT = int(os.environ.get("IWC_CLUSTER_S3_PORT", "39000"))
LLM_PORT = int(os.environ.get("IWC_CLUSTER_LLM_PORT", "39001"))  # the stand-in OpenAI-compatible server
LLM_KEY = "sk-cluster-tier-not-real"  # the stand-in's bearer token, in the Secret OPENAI_SECRET
OPENAI_SECRET = "iwc-openai"
VERSION = "0.1.0"
SYSTEM = "iwc-system"          # the release: the operator's Deployment
REAL = "iwc-real"              # runs whose pods run on the kubelet node
FAKE = "iwc-kwok"              # runs whose pods run on kwok's fake nodes
BUCKET = "iwc-cluster"
ON_KUBELET = {"kubernetes.io/hostname": "127.0.0.1"}
ON_KWOK = {"type": "kwok"}
# small requests so that two app pods and the operator fit the node's 2 CPUs
POD_RESOURCES = {
    "instrument": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "3Gi"}},
    "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
    "explorer": {"requests": {"cpu": "600m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
    "scoring": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
}


def environment() -> dict[str, str]:
    env_file = STATE / "env"
    if not env_file.exists():
        message = (f"no cluster in {STATE}: hack/cluster-tier starts one (or see tests/cluster/conftest.py)")
        if os.environ.get("IWC_CLUSTER_REQUIRED"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    out = subprocess.run(["bash", "-c", f"source {shlex.quote(str(env_file))} && env -0"],
                         capture_output=True, check=True).stdout.decode()
    return dict(line.split("=", 1) for line in out.split("\0") if "=" in line)


class Cluster:
    """kubectl and helm against the cluster of the state folder, as its admin."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def run(self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(list(args), input=stdin, capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{shlex.join(args)} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")
        return proc

    def kubectl(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return self.run(self.env.get("IWC_KUBECTL", "kubectl"), *args, **kwargs)

    def get(self, *args: str) -> Any:
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)

    def apply(self, manifest: dict[str, Any], namespace: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.kubectl("-n", namespace, "apply", "-f", "-", stdin=json.dumps(manifest), check=check)

    def run_status(self, namespace: str, name: str) -> dict[str, Any]:
        proc = self.kubectl("-n", namespace, "get", "evaluationrun", name, "-o", "json", check=False)
        return json.loads(proc.stdout).get("status", {}) if proc.returncode == 0 else {}

    def wait_for_phase(self, namespace: str, name: str, phases: tuple[str, ...], timeout: float,
                       diagnose: Callable[[], str] = lambda: "") -> dict[str, Any]:
        return wait_for(lambda: (s := self.run_status(namespace, name)).get("phase") in phases and s,
                        timeout, f"EvaluationRun {namespace}/{name} to reach {'/'.join(phases)}",
                        lambda: self.diagnose(namespace) + diagnose())

    def operator_log(self, tail: int = 60) -> str:
        return self.kubectl("-n", SYSTEM, "logs", "deploy/iwc-operator", f"--tail={tail}", check=False).stdout

    def diagnose(self, namespace: str) -> str:
        jobs = self.kubectl("-n", namespace, "get", "jobs,pods", "-o", "wide", check=False).stdout
        events = self.kubectl("-n", namespace, "get", "events", "--sort-by=.lastTimestamp", check=False).stdout
        return f"\n--- jobs/pods\n{jobs[-3000:]}\n--- events\n{events[-3000:]}\n--- operator\n{self.operator_log()[-4000:]}"


def exploring_pod(cluster: Cluster, namespace: str, uid: str) -> dict[str, Any] | None:
    """An app pod of the run ``uid`` whose explore container is running, if any."""
    pods = cluster.get("-n", namespace, "pods", "-l", f"iwcbench.io/run-uid={uid},iwcbench.io/role=app")["items"]
    return next((p for p in pods for c in p.get("status", {}).get("containerStatuses", [])
                 if c["name"] == "explore" and "running" in c.get("state", {})), None)


def run_manifest(name: str, prefix: str, **spec: Any) -> dict[str, Any]:
    """An EvaluationRun over s3://BUCKET/<prefix>/{tasks.jsonl,apps}."""
    body = {"tasks": f"s3://{BUCKET}/{prefix}/tasks.jsonl", "apps": {"uri": f"s3://{BUCKET}/{prefix}/apps"},
            "store": f"s3://{BUCKET}/runs/{name}", **spec}
    return {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun", "metadata": {"name": name}, "spec": body}


def put_tasks_and_apps(prefix: str, tasks: list[dict[str, Any]], apps: dict[str, dict[str, bytes]]) -> None:
    s3c = boto3.client("s3")
    s3c.put_object(Bucket=BUCKET, Key=f"{prefix}/tasks.jsonl",
                   Body="".join(json.dumps(t) + "\n" for t in tasks).encode())
    for app, files in apps.items():
        for name, data in files.items():
            s3c.put_object(Bucket=BUCKET, Key=f"{prefix}/apps/{app}/{name}", Body=data)


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def promql(cluster: Cluster, query: str) -> list[dict[str, Any]]:
    """An instant PromQL query to the cluster's metrics backend (VictoriaMetrics, which
    cluster-up --metrics starts and the collector forwards the OTLP metrics to)."""
    base = cluster.env.get("IWC_PROMQL_URL")
    if not base:
        pytest.fail("no metrics backend: hack/cluster-up --metrics --jaeger", pytrace=False)
    answer = get_json(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": query}))
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def prepare_namespace(cluster: Cluster, name: str) -> None:
    """A namespace as a shared cluster's platform team sets it (every pod of a served
    namespace must meet "restricted"), with the store credentials' Secret (moto takes any key) and the
    OpenAI key's (the stand-in's token)."""
    if cluster.kubectl("get", "namespace", name, check=False).returncode != 0:
        cluster.kubectl("create", "namespace", name)
    # The release's namespace runs the operator and the DaemonSet that writes the sandbox's
    # seccomp profile onto each node (hostPath: Pod Security "privileged", as kube-system);
    # the served namespaces, where the apps run, are "restricted"
    enforce = "privileged" if name == SYSTEM else "restricted"
    cluster.kubectl("label", "--overwrite", "namespace", name,
                    f"pod-security.kubernetes.io/enforce={enforce}", "pod-security.kubernetes.io/warn=restricted")
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "iwc-store-credentials"},
              "data": {"accessKeyId": base64.b64encode(b"testing").decode(),
                       "secretAccessKey": base64.b64encode(b"testing").decode()}}
    cluster.apply(secret, name)
    llm = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": OPENAI_SECRET},
           "data": {"apiKey": base64.b64encode(LLM_KEY.encode()).decode()}}
    cluster.apply(llm, name)


def chart_values(served: list[str], store_endpoint: str, **extra: Any) -> dict[str, Any]:
    """Values for charts/iwc-operator with the images hack/build-images made, the operator
    on the kubelet node, the store on the forwarded loopback port."""
    image = {"tag": VERSION, "pullPolicy": "Never"}
    return {"image": {"operator": {"repository": "localhost/iwc-bench/operator", **image},
                      "runner": {"repository": "localhost/iwc-bench/runner", **image}},
            "namespaces": served, "interval": 2, "store": {"endpoint": store_endpoint},
            # the pods reach no npm registry: builds install from the npm-cache image's cache
            "build": {"npmCacheImage": f"localhost/iwc-bench/npm-cache:{VERSION}"},
            # the chart's default sandbox: only where this kubelet keeps its files differs
            # from a standard node's /var/lib/kubelet
            "sandbox": {"installer": {"kubeletRootDir": str(KUBELET_ROOT)}},
            # OpenAI-compatible models go to the stand-in on the pods' forwarded loopback port (no Anthropic)
            "llm": {"providers": {"anthropic": None, "openai": {
                "apiKeySecret": OPENAI_SECRET, "baseUrl": f"http://127.0.0.1:{LLM_PORT}/v1"}}},
            "operator": {"nodeSelector": ON_KUBELET}, **extra}


def helm_upgrade(cluster: Cluster, release: str, namespace: str, values: dict[str, Any]) -> None:
    """`helm upgrade --install` of the chart with these values, waiting for the operator."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(values, f)
        f.flush()
        cluster.run(cluster.env["IWC_HELM"], "upgrade", "--install", release, str(ROOT / "charts/iwc-operator"),
                    "-n", namespace, "-f", f.name, "--wait", "--timeout", "180s", timeout=240)
