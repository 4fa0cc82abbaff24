"""Pods that really evaluate: four apps of the bundled example as an EvaluationRun whose
pods run on the real kubelet (containerd, the runner image, restricted Pod Security,
each pod in its own network namespace with loopback forwards to the store, the API
server and Jaeger only). The instrument init container, the app server sidecar and the
Chromium explorer run as they would on any cluster; the scoring Job publishes the
status with its ServiceAccount's token. The results match `iwc run` on the same inputs,
and the run is one trace in Jaeger whose id is the run's uid."""

from __future__ import annotations

import hashlib
import json
import uuid

import boto3
import pytest

from fakes import example_subset as example
from fakes.real_cluster import BUCKET, ON_KUBELET, POD_RESOURCES, REAL, Cluster, get_json, promql, run_manifest, wait_for



@pytest.fixture(scope="module")
def example_run(release: Cluster) -> dict:
    example.upload(BUCKET, "example/")
    release.apply(run_manifest("example", "example", parallelism=2, backoffLimit=1,
                               exploration={"maxSteps": example.MAX_STEPS},
                               quality={"metrics": list(example.QUALITY)},
                               scheduling={"nodeSelector": ON_KUBELET}, resources=POD_RESOURCES,
                               # the pods reach no npm registry here: the CDN mirror serves what
                               # it has (nothing), as the local run below is told to
                               sandbox={"mirrorFetch": False}), REAL)
    status = release.wait_for_phase(REAL, "example", ("Succeeded", "Failed"), 1500)
    run = release.get("-n", REAL, "evaluationrun", "example")
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    return run


def test_the_example_evaluates_on_real_pods_as_iwc_run_does(release: Cluster, example_run: dict, tmp_path):
    status = example_run["status"]
    assert status["counts"]["succeeded"] == len(example.APPS) and status["counts"]["failed"] == 0
    pods = release.get("-n", REAL, "pods", "-l", f"iwcbench.io/run-uid={example_run['metadata']['uid']}")["items"]
    assert pods and all(p["spec"]["nodeName"] == "127.0.0.1" for p in pods)
    s3 = boto3.client("s3")
    results = s3.get_object(Bucket=BUCKET, Key="runs/example/results.json")["Body"].read()
    summary = status["results"]
    assert status["resultsURI"] == f"s3://{BUCKET}/runs/example/results.json" == summary["uri"]
    assert summary["digest"] == "sha256:" + hashlib.sha256(results).hexdigest()
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="runs/example/")["Contents"]}
    assert "runs/example/report/index.html" in keys
    (tmp_path / "empty-mirror").mkdir()
    local = example.local_results(tmp_path, "--offline-mirror", "--mirror-dir", str(tmp_path / "empty-mirror"))
    example.compare(json.loads(results), local, summary)
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
