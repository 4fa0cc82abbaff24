"""`iwc submit`: the flags of `iwc run` plus where the run goes → the inputs in the store
and an EvaluationRun the operator and the API server accept; a flag or field that cannot
make a run is named; --dry-run prints the resource and touches nothing."""

from __future__ import annotations

import json
import pathlib

import boto3
import jsonschema
import pytest
import yaml

from iwcbench.operator import api, submitting
from iwcbench.pipeline import cli
from iwcbench.pipeline.kits import cluster as cluster_kit

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = b"<!doctype html><title>t</title><button onclick=\"this.textContent='ok'\">go</button>"


def _inputs(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": t, "prompt": f"make {t}"}) + "\n" for t in ("t1", "t2")))
    apps = tmp_path / "bench" / "apps"
    for app, files in {"m1/t1": {"index.html": PAGE}, "m1/t2": {"index.html": PAGE, "js/app.js": b"let a = 1;"},
                       "m2/t1": {"index.html": PAGE}}.items():
        for name, data in files.items():
            (apps / app / name).parent.mkdir(parents=True, exist_ok=True)
            (apps / app / name).write_bytes(data)
    (apps / ".DS_Store").write_bytes(b"not an app")
    return tasks, apps


def _submit(monkeypatch, capsys, kubeconfig: pathlib.Path | str, *flags: str) -> tuple[int, str, str]:
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    code = cli.main(["submit", *flags])
    out = capsys.readouterr()
    return code, out.out, out.err


def _objects(bucket: str, prefix: str = "") -> dict[str, bytes]:
    s3 = boto3.client("s3")
    found = s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
    return {o["Key"]: s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for o in found}


def _crd_schema() -> dict:
    crd = yaml.safe_load((ROOT / "crds" / "evaluationruns.yaml").read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def test_submit_uploads_the_inputs_and_creates_the_run_iwc_run_would_evaluate(
        apiserver, namespace, s3_bucket, tmp_path, monkeypatch, capsys):
    tasks, apps = _inputs(tmp_path)
    code, out, err = _submit(
        monkeypatch, capsys, apiserver.kubeconfig(tmp_path / "kc.json"),
        "--tasks", str(tasks), "--apps", str(apps), "--models", "m1", "--max-steps", "7", "--seed", "3",
        "--metrics", "wcb_linting", "--offline-mirror", "--max-cost", "4",
        "--store", f"s3://{s3_bucket}/runs", "-n", namespace, "--name", "nightly", "--parallelism", "3",
        "--queue", "team-a", "--node-selector", "pool=eval", "--set", "resources.explorer.limits.memory=3Gi")
    assert code == 0, err
    store = f"s3://{s3_bucket}/runs/{namespace}/nightly"
    spec = apiserver.get_run(namespace, "nightly")["spec"]
    assert spec == {
        "tasks": f"{store}/inputs/tasks.jsonl", "apps": {"uri": f"{store}/inputs/apps", "models": ["m1"]},
        "store": store, "exploration": {"maxSteps": 7, "seed": 3}, "sandbox": {"mirrorFetch": False},
        "quality": {"metrics": ["wcb_linting"]}, "parallelism": 3, "queueName": "team-a", "maxCost": 4.0,
        "resources": {"explorer": {"limits": {"memory": "3Gi"}}}, "scheduling": {"nodeSelector": {"pool": "eval"}}}
    stored = _objects(s3_bucket, f"runs/{namespace}/nightly/inputs/")
    prefix = f"runs/{namespace}/nightly/inputs"
    assert stored == {f"{prefix}/tasks.jsonl": tasks.read_bytes(), f"{prefix}/apps/m1/t1/index.html": PAGE,
                      f"{prefix}/apps/m1/t2/index.html": PAGE, f"{prefix}/apps/m1/t2/js/app.js": b"let a = 1;",
                      f"{prefix}/apps/m2/t1/index.html": PAGE}  # the whole folder; --models filters in the spec
    for line in (f"kubectl get evaluationrun nightly -n {namespace} -w", f"iwc status nightly -n {namespace} --watch",
                 f"iwc fetch nightly -n {namespace}"):
        assert line in out
    assert "uploaded 5 files" in err

    # the same name again, after the run was deleted: only what changed goes up, what went is removed
    apiserver.delete_run(namespace, "nightly")
    (apps / "m1" / "t2" / "js" / "app.js").write_bytes(b"let a = 2;")
    (apps / "m2" / "t1" / "index.html").unlink()
    (apps / "m2" / "t1" / "main.html").write_bytes(PAGE)
    code, out, err = _submit(monkeypatch, capsys, tmp_path / "kc.json", "--tasks", str(tasks), "--apps", str(apps),
                             "--store", f"s3://{s3_bucket}/runs", "-n", namespace, "--name", "nightly")
    assert code == 0, err
    assert "uploaded 2 files" in err and "3 already there" in err and "1 stale removed" in err
    stored = _objects(s3_bucket, f"{prefix}/apps/")
    assert stored[f"{prefix}/apps/m1/t2/js/app.js"] == b"let a = 2;"
    assert f"{prefix}/apps/m2/t1/index.html" not in stored and f"{prefix}/apps/m2/t1/main.html" in stored


def test_submit_never_replaces_an_existing_run(apiserver, namespace, s3_bucket, tmp_path, monkeypatch, capsys):
    tasks, apps = _inputs(tmp_path)
    flags = ("--tasks", str(tasks), "--apps", str(apps), "--store", f"s3://{s3_bucket}/r", "-n", namespace,
             "--name", "once")
    kubeconfig = apiserver.kubeconfig(tmp_path / "kc.json")
    assert _submit(monkeypatch, capsys, kubeconfig, *flags)[0] == 0
    code, _, err = _submit(monkeypatch, capsys, kubeconfig, *flags, "--max-steps", "9")
    assert code == 2 and "--name: an EvaluationRun" in err and "exists already" in err
    assert "exploration" not in apiserver.get_run(namespace, "once")["spec"]


def test_dry_run_prints_an_apply_able_run_and_touches_nothing(apiserver, namespace, s3_bucket, tmp_path,
                                                              monkeypatch, capsys):
    tasks, apps = _inputs(tmp_path)
    code, out, err = _submit(monkeypatch, capsys, apiserver.kubeconfig(tmp_path / "kc.json"),
                             "--tasks", str(tasks), "--apps", str(apps), "--store", f"s3://{s3_bucket}/runs",
                             "-n", namespace, "--judge", "claude-x", "--batch-judges", "--dry-run")
    assert code == 0, err
    resource = yaml.safe_load(out)
    assert resource["kind"] == api.KIND and resource["apiVersion"] == api.API_VERSION
    assert resource["metadata"]["namespace"] == namespace
    assert resource["metadata"]["name"].startswith("bench-")  # the apps folder's parent, as it is named apps
    submitting.check_name(resource["metadata"]["name"])
    jsonschema.Draft4Validator(_crd_schema()).validate(resource)  # what the API server checks on apply
    spec = api.parse_spec(resource["spec"])
    assert not isinstance(spec, str), spec
    assert spec.judging.model == "claude-x" and spec.batch_judges
    assert "nothing uploaded" in err
    assert apiserver.count(api.PLURAL, namespace) == 0
    assert _objects(s3_bucket) == {}


@pytest.mark.parametrize("flags, named", [
    (["--out", "here"], "--out has no meaning on a cluster"),
    (["--workers", "4"], "--parallelism"),
    (["--resume"], "--resume has no meaning"),
    (["--npm-cache", "/tmp/npm"], "--npm-cache has no meaning"),
    (["--reference", "old/results.json"], "--reference"),
    (["--max-steps", "0"], "exploration.max_steps"),
    (["--set", "exploration.maxSteps=0"], "spec.exploration.maxSteps"),
    (["--set", "parallelism=0"], "spec.parallelism"),
    (["--set", "explorationn.maxSteps=3"], "spec.explorationn"),
    (["--parallelism", "5000"], "spec.parallelism"),
    (["--queue", "Not_A_Queue"], "spec.queueName"),
    (["--name", "Nightly_1"], "--name"),
    (["--store", "/tmp/out"], "--store"),
    (["--explorer", "llm"], "exploration.model"),
    (["--tasks", "missing.jsonl"], "--tasks: no such file"),
])
def test_a_bad_flag_or_field_is_named(flags, named, tmp_path, s3_bucket, monkeypatch, capsys):
    tasks, apps = _inputs(tmp_path)
    base = ["--tasks", str(tasks), "--apps", str(apps), "--store", f"s3://{s3_bucket}/runs", "-n", "ns"]
    code, out, err = _submit(monkeypatch, capsys, tmp_path / "no-kubeconfig", *base, *flags, "--dry-run")
    assert code == 2, (out, err)
    assert named in err
    assert _objects(s3_bucket) == {}


def test_a_refusal_of_the_api_server_names_its_fields():
    body = {"kind": "Status", "message": "EvaluationRun.iwcbench.io \"x\" is invalid: ...", "details": {"causes": [
        {"reason": "FieldValueInvalid", "field": "spec.exploration.maxSteps",
         "message": "Invalid value: 0: spec.exploration.maxSteps in body should be greater than or equal to 1"}]}}
    told = submitting.refusal(cluster_kit.ApiError(422, body), "EvaluationRun ns/x")
    assert told.startswith("EvaluationRun ns/x: the API server refused it (HTTP 422): spec.exploration.maxSteps: ")
    missing = submitting.refusal(cluster_kit.ApiError(404, {"message": "the server could not find the requested "
                                                                      "resource"}), "EvaluationRun ns/x")
    assert "evaluationruns.iwcbench.io" in missing and "install the CRD" in missing


def test_flags_go_over_the_spec_file_and_each_set_over_everything(tmp_path, s3_bucket, monkeypatch, capsys):
    tasks, apps = _inputs(tmp_path)
    spec_file = tmp_path / "pool.yaml"
    spec_file.write_text(yaml.safe_dump({"parallelism": 5, "exploration": {"maxSteps": 50, "seed": 4},
                                         "scheduling": {"tolerations": [{"key": "dedicated", "operator": "Equal",
                                                                         "value": "eval", "effect": "NoSchedule"}]}}))
    code, out, err = _submit(monkeypatch, capsys, tmp_path / "no-kubeconfig", "--tasks", str(tasks), "--apps",
                             str(apps), "--store", f"s3://{s3_bucket}/runs", "-n", "ns", "--name", "pool",
                             "--spec-file", str(spec_file), "--max-steps", "7", "--node-selector", "pool=eval",
                             "--set", "exploration.seed=9", "--dry-run")
    assert code == 0, err
    spec = yaml.safe_load(out)["spec"]
    assert spec["exploration"] == {"maxSteps": 7, "seed": 9} and spec["parallelism"] == 5
    assert spec["scheduling"] == {"nodeSelector": {"pool": "eval"}, "tolerations": [
        {"key": "dedicated", "operator": "Equal", "value": "eval", "effect": "NoSchedule"}]}
