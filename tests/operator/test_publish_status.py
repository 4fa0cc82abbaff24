"""`iwc operator publish-status` as the scoring pod runs it: results.json from S3 →
a small summary patched into the EvaluationRun's status through the API."""

from __future__ import annotations

import os
import subprocess

import boto3

from fakes import operator_harness as h
from iwcbench.pipeline.contracts import results


def _results() -> bytes:
    rows = tuple(results.LeaderboardRow(rank=i + 1, model=f"model-{i}", overall=0.9 - i / 10, metrics={}, apps=2)
                 for i in range(7))
    webgen = (results.UITestRow(model="model-0", accuracy=62.5, instruction_accuracy=50.0, started_accuracy=70.0,
                                started_instruction_accuracy=60.0, reason="counted", instructions=4,
                                start_failures=1),)
    return results.RunResults(run=results.RunInfo(configuration={}, config_hash="h", started_at="2026-01-01T00:00:00Z"),
                              leaderboard=rows, ui_tests=webgen).model_dump_json().encode()


def _publish(kubeconfig, store, target):
    return subprocess.run([h.IWC, "operator", "publish-status", "--store", store, "--evaluation-run", target],
                          env={**os.environ, "KUBECONFIG": str(kubeconfig)},
                          capture_output=True, text=True, timeout=300)


def test_publish_status_patches_a_small_summary(apiserver, namespace, s3_bucket, tmp_path):
    boto3.client("s3").put_object(Bucket=s3_bucket, Key="runs/p/results.json", Body=_results())
    apiserver.apply_run(namespace, h.run_manifest("p", s3_bucket))
    done = _publish(apiserver.kubeconfig(tmp_path / "kc.json"), f"s3://{s3_bucket}/runs/p", f"{namespace}/p")
    assert done.returncode == 0, done.stderr
    status = apiserver.get_run(namespace, "p")["status"]
    assert status["leader"] == "model-0"
    assert status["resultsURI"] == f"s3://{s3_bucket}/runs/p/results.json"
    assert [r["model"] for r in status["results"]["leaderboard"]] == [f"model-{i}" for i in range(5)]
    top, second = status["results"]["leaderboard"][:2]
    assert (top["accuracy"], top["startFailures"]) == (62.5, 1)  # WebGen-Bench Accuracy in the top rows
    assert "accuracy" not in second  # a model without UI test cases has none


def test_publish_status_without_results_asks_for_a_retry(apiserver, namespace, s3_bucket, tmp_path):
    apiserver.apply_run(namespace, h.run_manifest("q", s3_bucket))
    done = _publish(apiserver.kubeconfig(tmp_path / "kc.json"), f"s3://{s3_bucket}/runs/q", f"{namespace}/q")
    assert done.returncode == 75 and "no results.json" in done.stderr
    assert "status" not in apiserver.get_run(namespace, "q")


def test_publish_status_rejects_a_malformed_target(tmp_path):
    done = subprocess.run([h.IWC, "operator", "publish-status", "--store", "s3://bucket/x", "--evaluation-run", "noslash"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "NAMESPACE/NAME" in done.stderr
