"""End to end on the emulated cluster with real pod commands: an EvaluationRun over
example apps in S3 → app Jobs (instrument → sandboxed server → Chromium explorer) →
evidence in S3 → scoring Job (`iwc score`, then publish-status) → status Succeeded
with the leaderboard `iwc run` gives on the same inputs."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import boto3
import pytest

from fakes import operator_harness as h

EXAMPLES = h.ROOT / "examples"
# Two models × two tasks; one app is a .zip (the archive path), one a folder.
APPS = ["aurora-7b/canvas-snake", "brisk-3b/canvas-snake", "aurora-7b/ab-1010.zip", "brisk-3b/ab-1010"]
MAX_STEPS = 5
# two cheap WebCoderBench rule metrics: enough to see the sources reach the explorer container
QUALITY = ("wcb_linting", "wcb_console_errors")


def _upload(bucket: str) -> None:
    s3 = boto3.client("s3")
    s3.upload_file(str(EXAMPLES / "tasks.jsonl"), bucket, "tasks.jsonl")
    for app in APPS:
        path = EXAMPLES / "apps" / app
        if path.is_file():
            s3.upload_file(str(path), bucket, f"apps/{app}")
            continue
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            s3.upload_file(str(file), bucket, f"apps/{app}/{file.relative_to(path).as_posix()}")


def _local_results(tmp: pathlib.Path) -> dict:
    apps = tmp / "apps"
    for app in APPS:
        src, dst = EXAMPLES / "apps" / app, apps / app
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst) if src.is_dir() else shutil.copy(src, dst)
    out = tmp / "local"
    subprocess.run([h.IWC, "run", "--tasks", str(EXAMPLES / "tasks.jsonl"), "--apps", str(apps),
                    "--out", str(out), "--max-steps", str(MAX_STEPS), "--metrics", *QUALITY],
                   check=True, capture_output=True, timeout=600)
    return json.loads((out / "results.json").read_text())


@pytest.mark.browser
def test_evaluation_run_end_to_end_matches_iwc_run(apiserver, namespace, operator, make_kubelet, s3_bucket, tmp_path):
    _upload(s3_bucket)
    kubeconfig = operator.kubeconfig  # the scoring pod's API access (a token in a cluster)
    kubelet = make_kubelet(capacity=2, env={"KUBECONFIG": str(kubeconfig)})
    apiserver.apply_run(namespace, h.run_manifest("e2e", s3_bucket, parallelism=2,
                                                  exploration={"maxSteps": MAX_STEPS},
                                                  quality={"metrics": list(QUALITY)}))

    def diagnose() -> str:
        return operator.log()[-3000:] + "\n" + "\n".join(f"--- {k}\n{v[-1500:]}" for k, v in kubelet.logs.items())

    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "e2e")) and
                     r.get("status", {}).get("phase") in ("Succeeded", "Failed") and r, 600, "the run to end", diagnose)
    status = run["status"]
    assert status["phase"] == "Succeeded", diagnose()
    assert status["counts"]["succeeded"] == len(APPS) and status["counts"]["failed"] == 0
    s3 = boto3.client("s3")
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=s3_bucket, Prefix="runs/e2e/")["Contents"]}
    for app in APPS:
        model, task = app.removesuffix(".zip").split("/")
        assert f"runs/e2e/apps/{model}/{task}/result.json" in keys
    assert "runs/e2e/results.json" in keys and "runs/e2e/report/index.html" in keys
    results = s3.get_object(Bucket=s3_bucket, Key="runs/e2e/results.json")["Body"].read()
    summary = status["results"]
    assert status["resultsURI"] == f"s3://{s3_bucket}/runs/e2e/results.json" == summary["uri"]
    import hashlib
    assert summary["digest"] == "sha256:" + hashlib.sha256(results).hexdigest()

    local_results = _local_results(tmp_path)
    local = local_results["leaderboard"]
    cluster = summary["leaderboard"]
    # The same stage code on the same inputs: the same outcome and coverage per app.
    mine = {(a["model"], a["task_id"]): a for a in json.loads(results)["apps"]}
    theirs = {(a["model"], a["task_id"]): a for a in local_results["apps"]}
    # Tasks a model submitted no app for count against it on both paths.
    assert len(mine) == len(theirs) == summary["apps"] == 14  # 2 models × the 7 example tasks
    for key, app in mine.items():
        assert app["outcome"] == theirs[key]["outcome"], key
        ours, local_cov = app["exploration"]["coverage"]["statements"], theirs[key]["exploration"]["coverage"]["statements"]
        assert (ours is None) == (local_cov is None), key
        if ours is not None:
            assert ours == pytest.approx(local_cov, abs=10.0), key
    assert [(r["rank"], r["model"]) for r in cluster] == [(r["rank"], r["model"]) for r in local]
    for row, local_row in zip(cluster, local):
        assert row["overall"] == pytest.approx(local_row["overall"], abs=0.05)
    assert status["leader"] == local[0]["model"]
    # the app's sources cross from the init container to the explorer container through the store
    for key, app in mine.items():
        if app["outcome"] == "evaluated":
            assert app["scores"]["wcb_linting"]["value"] is not None, (key, app["scores"]["wcb_linting"])
