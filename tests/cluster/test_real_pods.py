"""Pods that really evaluate, started the way a user starts them: `iwc submit` uploads
four apps of the bundled example and creates the EvaluationRun (on the kubelet node,
with the flags `iwc run` takes for the local comparison), `iwc status --watch` waits for
its end, `iwc fetch` brings results.json (digest checked) and the report back. The pods
run on the real kubelet (containerd, the runner image, restricted Pod Security, each pod
in its own network namespace with loopback forwards to the store, the API server and
Jaeger only): the instrument init container, the app server sidecar and the Chromium
explorer run as they would on any cluster; the scoring Job publishes the status with its
ServiceAccount's token. The fetched results match `iwc run` on the same inputs, and the
run is one trace in Jaeger whose id is the run's uid."""

from __future__ import annotations

import hashlib
import json
import subprocess
import uuid

import pytest
import yaml

from fakes import example_subset as example, s3_server
from fakes.real_cluster import BUCKET, ON_KUBELET, POD_RESOURCES, REAL, Cluster, get_json, promql, wait_for

NAME = "example"
STORE = f"s3://{BUCKET}/submitted/{REAL}/{NAME}"  # --store, then the run's namespace and name


def _iwc(release: Cluster, s3: str, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**release.env, **s3_server.environment(s3)}  # the admin's kubeconfig, the store on loopback
    return subprocess.run([example.IWC, *argv], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def example_run(release: Cluster, s3: str, tmp_path_factory) -> dict:
    """`iwc submit`, then `iwc status --watch`: the run, ended Succeeded."""
    tmp = tmp_path_factory.mktemp("submit")
    spec_file = tmp / "pods.yaml"  # what a platform user keeps in a file: the pods' resources for this node
    spec_file.write_text(yaml.safe_dump({"resources": POD_RESOURCES}))
    on_kubelet = [arg for key, value in ON_KUBELET.items() for arg in ("--node-selector", f"{key}={value}")]
    submitted = _iwc(release, s3, "submit", "--tasks", str(example.EXAMPLES / "tasks.jsonl"),
                     "--apps", str(example.copy_apps(tmp / "apps-to-submit")),
                     "--max-steps", str(example.MAX_STEPS), "--metrics", *example.QUALITY,
                     # the pods reach no npm registry here: the CDN mirror serves what it has (nothing),
                     # as the local run below is told to
                     "--offline-mirror",
                     "--store", f"s3://{BUCKET}/submitted", "-n", REAL, "--name", NAME,
                     "--parallelism", "2", "--backoff-limit", "1", *on_kubelet,
                     "--spec-file", str(spec_file))
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert f"iwc status {NAME} -n {REAL} --watch" in submitted.stdout
    spec = release.get("-n", REAL, "evaluationrun", NAME)["spec"]
    assert spec["scheduling"] == {"nodeSelector": ON_KUBELET} and spec["resources"] == POD_RESOURCES
    assert spec["sandbox"]["mirrorFetch"] is False and spec["store"] == STORE  # (the API server fills defaults)
    watched = _iwc(release, s3, "status", NAME, "-n", REAL, "--watch", "--interval", "5", "--timeout", "1500",
                   timeout=1600)
    assert watched.returncode == 0, watched.stdout + watched.stderr + release.diagnose(REAL)
    assert "Succeeded" in watched.stdout
    # a kubectl user sees the same run
    assert NAME in release.kubectl("-n", REAL, "get", "evaluationruns").stdout
    return release.get("-n", REAL, "evaluationrun", NAME)


def test_submit_then_fetch_gives_what_iwc_run_gives_on_real_pods(release: Cluster, s3: str, example_run: dict,
                                                                 tmp_path):
    status = example_run["status"]
    assert status["counts"]["succeeded"] == len(example.APPS) and status["counts"]["failed"] == 0
    pods = release.get("-n", REAL, "pods", "-l", f"iwcbench.io/run-uid={example_run['metadata']['uid']}")["items"]
    assert pods and all(p["spec"]["nodeName"] == "127.0.0.1" for p in pods)
    out = tmp_path / "fetched"
    fetched = _iwc(release, s3, "fetch", NAME, "-n", REAL, "--out", str(out))
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    data = (out / "results.json").read_bytes()
    summary = status["results"]
    assert status["resultsURI"] == f"{STORE}/results.json" == summary["uri"]
    assert summary["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert (out / "report" / "index.html").is_file()
    assert not (out / "apps").exists()  # evidence only with --evidence
    (tmp_path / "empty-mirror").mkdir()
    local = example.local_results(tmp_path, "--offline-mirror", "--mirror-dir", str(tmp_path / "empty-mirror"))
    example.compare(json.loads(data), local, summary)
    assert status["leader"] == local["leaderboard"][0]["model"]


def test_the_run_is_one_trace_in_jaeger(release: Cluster, example_run: dict):
    query = release.env.get("IWC_JAEGER_QUERY_URL")
    if not query:
        pytest.fail("the cluster tier needs cluster-up --jaeger", pytrace=False)
    trace_id = f"{uuid.UUID(example_run['metadata']['uid']).int:032x}"

    def spans() -> list[dict]:
        try:
            data = get_json(f"{query}/api/traces/{trace_id}").get("data") or []
        except OSError:
            return []
        found = [s | {"service": t["processes"][s["processID"]]["serviceName"]} for t in data for s in t["spans"]]
        names = {s["operationName"] for s in found}
        return found if {"run", "app", "score"} <= names else []

    found = wait_for(spans, 120, f"the run's trace {trace_id} in Jaeger with run, app and score spans")
    app_spans = [s for s in found if s["operationName"] == "app"]
    containers = {t["value"] for s in app_spans for t in s["tags"] if t["key"] == "container"}
    assert {"instrument", "explore"} <= containers, containers
    tasks = {t["value"] for s in app_spans for t in s["tags"] if t["key"] == "task"}
    assert tasks == {"canvas-snake", "ab-1010"}
    # the pods' metrics reach the collector too (its Prometheus exporter)
    metrics_url = release.env.get("IWC_METRICS_URL")
    if metrics_url:
        import urllib.request
        text = wait_for(lambda: "iwc_apps" in (t := urllib.request.urlopen(metrics_url, timeout=30).read().decode()) and t,
                        60, "iwc.apps in the collector's metrics")
        assert 'iwc_run_name="example"' in text


def test_the_pods_metrics_are_read_back_with_promql(release: Cluster, example_run: dict):
    """Each app pod's metrics, sent over OTLP through the collector to VictoriaMetrics:
    outcomes, an app-duration histogram and stage durations, by the run's name."""
    run = 'iwc_run_name="example"'

    def by(query: str, label: str) -> dict[str, float]:
        return {r["metric"].get(label, ""): float(r["value"][1]) for r in promql(release, query)}

    outcomes = wait_for(lambda: (o := by(f"sum by (outcome) (iwc_apps_total{{{run}}})", "outcome"))
                        and sum(o.values()) >= len(example.APPS) and o, 90, "every app pod's iwc.apps in PromQL")
    assert outcomes == {"evaluated": len(example.APPS)}, outcomes
    assert by(f"sum(iwc_app_duration_seconds_count{{{run}}})", "") == {"": len(example.APPS)}
    median = by(f"histogram_quantile(0.5, sum by (le) (iwc_app_duration_seconds_bucket{{{run}}}))", "")[""]
    slowest = by(f"max(iwc_app_duration_seconds_sum{{{run}}})", "")[""]
    assert 0 < median <= max(slowest * 2, 10), (median, slowest)  # a bucket's bound, not a sample
    stages = by(f"sum by (stage) (iwc_stage_duration_seconds_count{{{run}}})", "stage")
    assert stages == {"instrument": len(example.APPS), "explore": len(example.APPS)}, stages
