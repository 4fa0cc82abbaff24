"""The operator's test harness: kopf running for real (``iwc operator run`` as a
subprocess, so it can be killed and restarted) against the emulated API server, the
test kubelet executing Jobs, moto S3 as the store.

Each test gets its own namespace on one emulated API server for the session.
"""

from __future__ import annotations

import base64
import itertools
import os
import pathlib
from typing import Any, Callable, Iterator

import pytest

from fakes import kube_apiserver, kubelet as kubelet_mod, operator_harness

_namespaces = itertools.count(1)
_EMULATED = {"apiserver", "namespace", "operator", "make_kubelet"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the emulated API server is an `emulator` test (the quick tier
    leaves it out); the pure ones (planning, tracking, publishing) are not."""
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in pathlib.Path(item.path).parents and _EMULATED & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.emulator)


@pytest.fixture(scope="session")
def apiserver() -> Iterator[kube_apiserver.ApiServer]:
    with kube_apiserver.ApiServer() as server:
        yield server


@pytest.fixture()
def namespace(apiserver: kube_apiserver.ApiServer, s3_endpoint: str) -> str:
    """A fresh namespace holding what the chart would install in it: the ConfigMap
    with the store endpoint and the store credentials' Secret."""
    ns = f"t{next(_namespaces)}-{os.getpid()}"
    apiserver.create(f"/api/v1/namespaces/{ns}/configmaps", {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "iwc-config", "namespace": ns},
        "data": {"AWS_ENDPOINT_URL": s3_endpoint, "AWS_DEFAULT_REGION": "us-east-1"}})
    apiserver.create(f"/api/v1/namespaces/{ns}/secrets", {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "iwc-store-credentials", "namespace": ns},
        "data": {"accessKeyId": base64.b64encode(b"testing").decode(),
                 "secretAccessKey": base64.b64encode(b"testing").decode()}})
    return ns


@pytest.fixture()
def operator(apiserver: kube_apiserver.ApiServer, namespace: str, tmp_path: pathlib.Path) -> Iterator[operator_harness.OperatorProcess]:
    process = operator_harness.OperatorProcess(apiserver, namespace, tmp_path)
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture()
def make_kubelet(apiserver: kube_apiserver.ApiServer, namespace: str, tmp_path: pathlib.Path) -> Iterator[Callable[..., kubelet_mod.Kubelet]]:
    started: list[kubelet_mod.Kubelet] = []

    def make(**kwargs: Any) -> kubelet_mod.Kubelet:
        workdir = tmp_path / f"node{len(started)}"
        workdir.mkdir()
        k = kubelet_mod.Kubelet(apiserver, workdir, namespace=namespace, **kwargs)
        k.start()
        started.append(k)
        return k

    try:
        yield make
    finally:
        for k in started:
            k.stop()
