"""The cluster tier: the operator and the runner from their built images, installed with
Helm on the real control plane of ``hack/cluster-up`` (kube-apiserver with RBAC and Pod
Security admission, the Job and garbage-collector controllers, kube-scheduler, kwok's
fake nodes, a real kubelet on containerd, Jaeger, Kueue, VictoriaMetrics).

``hack/test`` brings that up (``hack/cluster-tier``); by hand::

    hack/build-images
    hack/cluster-up --kubelet --jaeger --audit --kueue --metrics --egress 39000 --egress 39001 \\
        --import ~/.cache/iwc-bench/images/operator-0.1.0.tar \\
        --import ~/.cache/iwc-bench/images/runner-0.1.0.tar
    .venv/bin/python -m pytest tests/cluster

The store is moto on the host's 127.0.0.1:39000 (``IWC_CLUSTER_S3_PORT``), the stand-in
OpenAI-compatible server on 127.0.0.1:39001 (``IWC_CLUSTER_LLM_PORT``); pods off the host network reach them, the API server (443) and
Jaeger (4318) through cluster-up's ``--egress`` forwards, and nothing else.
"""

from __future__ import annotations

import pathlib
from typing import Iterator

import boto3
import pytest
from moto.server import ThreadedMotoServer

from fakes import s3_server
from fakes.openai_server import FakeOpenAI
from fakes.real_cluster import (BUCKET, FAKE, LLM_KEY, LLM_PORT, REAL, S3_PORT, STATE, SYSTEM, Cluster, chart_values,
                                environment, helm_upgrade, prepare_namespace)
from fakes.scripted_llm import ScriptedModel


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in pathlib.Path(item.path).parents:
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(scope="session")
def cluster() -> Cluster:
    c = Cluster(environment())
    assert c.kubectl("get", "--raw", "/readyz").stdout == "ok"
    return c


@pytest.fixture(scope="session")
def s3(cluster: Cluster) -> Iterator[str]:
    """moto on the port the pods' egress forwards to; one bucket for the session."""
    if not (STATE / "egress" / f"{S3_PORT}.sock").exists():
        pytest.fail(f"cluster-up was not given --egress {S3_PORT}: pods could not reach the store", pytrace=False)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=S3_PORT, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{S3_PORT}"
    with s3_server.patched_environment(endpoint):
        boto3.client("s3").create_bucket(Bucket=BUCKET)
        yield endpoint
    server.stop()


@pytest.fixture(scope="session")
def openai_for_pods(cluster: Cluster) -> Iterator[FakeOpenAI]:
    """The stand-in OpenAI-compatible server (Chat Completions, Files, Batches) on the
    port the pods' egress forwards to, taking only the token of the chart's OpenAI Secret;
    one scripted model answers every role."""
    if not (STATE / "egress" / f"{LLM_PORT}.sock").exists():
        pytest.fail(f"cluster-up was not given --egress {LLM_PORT}: pods could not reach the LLM stand-in",
                    pytrace=False)
    fake = FakeOpenAI(api_key=LLM_KEY, port=LLM_PORT).start()
    fake.handler = ScriptedModel()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def release(cluster: Cluster, s3: str) -> Iterator[Cluster]:
    """`helm install` of charts/iwc-operator with the images hack/build-images made; the
    operator runs in its own pod on the kubelet node, as its ServiceAccount."""
    for ns in (SYSTEM, REAL, FAKE):
        prepare_namespace(cluster, ns)
    # (the chart's default sandbox: chart_values points its installer at this kubelet's folder)
    helm_upgrade(cluster, "iwc", SYSTEM,
                 chart_values([REAL, FAKE], s3, telemetry={"otlpEndpoint": "http://127.0.0.1:4318",
                                                           "metricIntervalSeconds": 5}))
    try:
        yield cluster
    finally:
        for ns in (REAL, FAKE):
            cluster.kubectl("-n", ns, "delete", "evaluationruns", "--all", "--wait=true", "--timeout=120s", check=False)
        cluster.run(cluster.env["IWC_HELM"], "uninstall", "iwc", "-n", SYSTEM, "--wait", "--timeout", "120s", check=False)
