"""Helpers for the operator's tests and its benchmark: the operator as a restartable
subprocess, polling, putting apps into S3, writing an EvaluationRun."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import time
from typing import Any, Callable

import boto3
import pytest

from fakes import kube_apiserver

ROOT = pathlib.Path(__file__).resolve().parents[2]
IWC = str(ROOT / ".venv" / "bin" / "iwc")


class OperatorProcess:
    """``iwc operator run`` against the emulator; restartable."""

    def __init__(self, server: kube_apiserver.ApiServer, namespace: str, workdir: pathlib.Path,
                 interval: float = 0.5) -> None:
        self.kubeconfig = server.kubeconfig(workdir / "kubeconfig.json")
        self.namespace = namespace
        self.workdir = workdir
        self.interval = interval
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig))
        log = open(self.workdir / f"operator-{self.starts}.log", "wb")
        self.process = subprocess.Popen(
            [IWC, "operator", "-v", "run", "--namespace", self.namespace, "--standalone",
             "--interval", str(self.interval)],
            env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def kill(self) -> None:
        """An abrupt end (a node lost, an OOM kill): no graceful shutdown."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-6000:] for p in sorted(self.workdir.glob("operator-*.log")))


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, diagnose: Callable[[], str] = lambda: "") -> Any:
    """Poll until ``predicate()`` is truthy; fail naming ``what`` (not a timing assertion:
    the timeout only bounds a hang)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}\n{diagnose()}")


def put_apps(bucket: str, prefix: str, apps: dict[str, dict[str, bytes]]) -> None:
    """apps = {"model/task": {"index.html": b"..."}} → s3://bucket/prefix/model/task/..."""
    s3 = boto3.client("s3")
    for app, files in apps.items():
        for name, data in files.items():
            s3.put_object(Bucket=bucket, Key=f"{prefix}/{app}/{name}", Body=data)


def run_manifest(name: str, bucket: str, **spec: Any) -> dict[str, Any]:
    body = {"tasks": f"s3://{bucket}/tasks.jsonl", "apps": {"uri": f"s3://{bucket}/apps"},
            "store": f"s3://{bucket}/runs/{name}", **spec}
    return {"apiVersion": "iwcbench.io/v1alpha1", "kind": "EvaluationRun",
            "metadata": {"name": name}, "spec": body}
