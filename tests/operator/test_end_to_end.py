"""End to end on the emulated cluster with real pod commands: an EvaluationRun over
example apps in S3 → app Jobs (instrument → sandboxed server → Chromium explorer) →
evidence in S3 → scoring Job (`iwc score`, then publish-status) → status Succeeded
with the leaderboard `iwc run` gives on the same inputs."""

from __future__ import annotations

import hashlib
import json

import boto3
import pytest

from fakes import example_subset as example
from fakes import operator_harness as h


@pytest.mark.browser
def test_evaluation_run_end_to_end_matches_iwc_run(apiserver, namespace, operator, make_kubelet, s3_bucket, tmp_path):
    example.upload(s3_bucket)
    kubeconfig = operator.kubeconfig  # the scoring pod's API access (a token in a cluster)
    kubelet = make_kubelet(capacity=2, env={"KUBECONFIG": str(kubeconfig)})
    apiserver.apply_run(namespace, h.run_manifest("e2e", s3_bucket, parallelism=2,
                                                  exploration={"maxSteps": example.MAX_STEPS},
                                                  quality={"metrics": list(example.QUALITY)}))

    def diagnose() -> str:
        return operator.log()[-3000:] + "\n" + "\n".join(f"--- {k}\n{v[-1500:]}" for k, v in kubelet.logs.items())

    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "e2e")) and
                     r.get("status", {}).get("phase") in ("Succeeded", "Failed") and r, 600, "the run to end", diagnose)
    status = run["status"]
    assert status["phase"] == "Succeeded", diagnose()
    assert status["counts"]["succeeded"] == len(example.APPS) and status["counts"]["failed"] == 0
    s3 = boto3.client("s3")
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=s3_bucket, Prefix="runs/e2e/")["Contents"]}
    for app in example.APPS:
        model, task = app.removesuffix(".zip").split("/")
        assert f"runs/e2e/apps/{model}/{task}/result.json" in keys
    assert "runs/e2e/results.json" in keys and "runs/e2e/report/index.html" in keys
    results = s3.get_object(Bucket=s3_bucket, Key="runs/e2e/results.json")["Body"].read()
    summary = status["results"]
    assert status["resultsURI"] == f"s3://{s3_bucket}/runs/e2e/results.json" == summary["uri"]
    assert summary["digest"] == "sha256:" + hashlib.sha256(results).hexdigest()

    local_results = example.local_results(tmp_path)
    example.compare(json.loads(results), local_results, summary)
    assert status["leader"] == local_results["leaderboard"][0]["model"]
