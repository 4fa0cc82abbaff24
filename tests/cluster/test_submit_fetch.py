"""The user's path to a cluster run, end to end on the real control plane: `iwc submit`
uploads four apps of the bundled example and creates the EvaluationRun (on the kubelet
node, with the flags `iwc run` takes for the local comparison), `iwc status --watch`
waits for its end, `iwc fetch` brings results.json (digest checked) and the report back;
the fetched results match `iwc run` on the same apps, as test_real_pods.py's do."""

from __future__ import annotations

import hashlib
import json
import pathlib
import shutil
import subprocess

import yaml

from fakes import example_subset as example, s3_server
from fakes.real_cluster import BUCKET, ON_KUBELET, POD_RESOURCES, REAL, Cluster

NAME = "submitted"


def _apps(folder: pathlib.Path) -> pathlib.Path:
    """The four apps in a folder of their own (the folder `iwc submit` uploads)."""
    for app in example.APPS:
        src, dst = example.EXAMPLES / "apps" / app, folder / app
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dst) if src.is_dir() else shutil.copy(src, dst)
    return folder


def _iwc(release: Cluster, s3: str, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**release.env, **s3_server.environment(s3)}  # the admin's kubeconfig, the store on loopback
    return subprocess.run([example.IWC, *argv], env=env, capture_output=True, text=True, timeout=timeout)


def test_submit_status_fetch_gives_what_iwc_run_gives(release: Cluster, s3: str, tmp_path):
    # what a platform user keeps in a file: the pods' resources for this node
    spec_file = tmp_path / "pods.yaml"
    spec_file.write_text(yaml.safe_dump({"resources": POD_RESOURCES}))
    on_kubelet = [arg for key, value in ON_KUBELET.items() for arg in ("--node-selector", f"{key}={value}")]
    submitted = _iwc(release, s3, "submit", "--tasks", str(example.EXAMPLES / "tasks.jsonl"),
                     "--apps", str(_apps(tmp_path / "apps-to-submit")),
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
    assert spec["sandbox"] == {"mirrorFetch": False}

    watched = _iwc(release, s3, "status", NAME, "-n", REAL, "--watch", "--interval", "5", "--timeout", "1500",
                   timeout=1600)
    assert watched.returncode == 0, watched.stdout + watched.stderr + release.diagnose(REAL)
    assert "Succeeded" in watched.stdout

    out = tmp_path / "fetched"
    fetched = _iwc(release, s3, "fetch", NAME, "-n", REAL, "--out", str(out))
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    status = release.run_status(REAL, NAME)
    data = (out / "results.json").read_bytes()
    assert status["results"]["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert (out / "report" / "index.html").is_file()
    assert not (out / "apps").exists()  # evidence only with --evidence

    (tmp_path / "empty-mirror").mkdir()
    local = example.local_results(tmp_path, "--offline-mirror", "--mirror-dir", str(tmp_path / "empty-mirror"))
    example.compare(json.loads(data), local, status["results"])
    assert status["leader"] == local["leaderboard"][0]["model"]
