"""Helpers for the operator's tests and its benchmark: the operator as a restartable
subprocess, polling, putting apps into S3, writing an EvaluationRun."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import time
from typing import Any, Callable

import asyncio

import boto3
import pytest

from fakes import kube_apiserver
from iwcbench.operator import api, planning

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


def publish_stub(server: kube_apiserver.ApiServer, apps: int, scored: list[str] | None = None):
    """The scoring pod's publish step, without a real scoring: a fixed summary in the
    run's status; ``scored`` collects the round of each scoring Job that published."""
    async def publish(ns, job, container):
        owner = job["metadata"]["ownerReferences"][0]["name"]
        if scored is not None:
            scored.append(job["metadata"]["labels"][planning.LABEL_ROUND])
        await server.request("PATCH", f"/apis/{api.GROUP}/{api.VERSION}/namespaces/{ns}/{api.PLURAL}/{owner}/status",
                             {"status": {"leader": "m1", "resultsURI": "s3://x/results.json",
                                         "results": {"uri": "s3://x/results.json", "digest": "sha256:0",
                                                     "apps": apps, "leaderboard": []}}})
        return 0
    return publish


def counting_stub(seconds: float):
    """A container that runs ``seconds``; returns it and the list of how many such
    containers ran at once, sampled as each one started."""
    running: set[str] = set()
    peak: list[int] = []

    async def container(ns, job, c):
        running.add(job["metadata"]["name"])
        peak.append(len(running))
        await asyncio.sleep(seconds)
        running.discard(job["metadata"]["name"])
        return 0
    return container, peak
