"""Metrics for platform teams, against the emulated API server: the operator exports its
runs by phase and each run's apps by state over OTLP/HTTP while the run goes on, and an
app's LLM calls, tokens and dollars are exported per purpose. The receiver is a real
OTLP/HTTP endpoint on loopback that decodes what arrives with OpenTelemetry's protobufs."""

from __future__ import annotations

import asyncio
import http.server
import threading
from typing import Any, Iterator

import pytest
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

from fakes import operator_harness as h
from iwcbench.pipeline.contracts import results, settings
from iwcbench.pipeline.kits import telemetry
from iwcbench.pipeline.runs import app as app_run

APPS = {f"m1/t{t}": {"index.html": b"<p>hi</p>"} for t in range(1, 5)}


class Receiver:
    """OTLP/HTTP metrics on 127.0.0.1: every data point that arrived, as
    (metric name, attributes, value)."""

    def __init__(self) -> None:
        self.points: list[tuple[str, dict[str, Any], float]] = []
        lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/metrics":
                    request = metrics_service_pb2.ExportMetricsServiceRequest.FromString(body)
                    with lock:
                        outer.points += list(_points(request))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def latest(self, name: str, **attrs: Any) -> float | None:
        found = [v for n, a, v in self.points if n == name and all(a.get(k) == w for k, w in attrs.items())]
        return found[-1] if found else None


def _points(request) -> Iterator[tuple[str, dict[str, Any], float]]:
    for rm in request.resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                data = getattr(metric, metric.WhichOneof("data"))
                for point in data.data_points:
                    attrs = {kv.key: getattr(kv.value, kv.value.WhichOneof("value")) for kv in point.attributes}
                    value = point.sum if metric.WhichOneof("data") == "histogram" else (
                        point.as_double if point.WhichOneof("value") == "as_double" else point.as_int)
                    yield metric.name, attrs, value


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()


def test_the_operator_exports_runs_by_phase_and_apps_by_state(apiserver, namespace, operator, make_kubelet, s3_bucket,
                                                               receiver, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    monkeypatch.setenv("OTEL_METRIC_EXPORT_INTERVAL", "300")
    operator.stop()
    operator.start()
    h.put_apps(s3_bucket, "apps", APPS)
    release = asyncio.Event()

    async def explore(ns, job, container):
        if job["metadata"]["annotations"]["iwcbench.io/task"] != "t1":
            await asyncio.wait_for(release.wait(), 60)
        return 0

    kubelet = make_kubelet(capacity=10, stub_everything=True, stubs={"explore": explore})
    apiserver.apply_run(namespace, h.run_manifest("watched", s3_bucket, parallelism=2))
    # While the run goes on: one app done, two in flight (parallelism 2), one waiting; the run Running.
    h.wait_for(lambda: receiver.latest("iwc.run.apps", run="watched", state="done") == 1
               and receiver.latest("iwc.run.apps", run="watched", state="in_flight") == 2
               and receiver.latest("iwc.run.apps", run="watched", state="pending") == 1
               and receiver.latest("iwc.runs", phase="Running") == 1, 60, "the in-flight metrics",
               lambda: f"{receiver.points[-12:]}\n{operator.log()[-2000:]}")
    kubelet.server.call(_set(release))
    h.wait_for(lambda: receiver.latest("iwc.run.apps", run="watched", state="done") == 4
               and receiver.latest("iwc.runs", phase="Failed") == 1, 60, "the final metrics", operator.log)
    assert receiver.latest("iwc.run.apps", run="watched", state="failed") == 0
    assert receiver.latest("iwc.run.apps", run="watched", namespace=namespace, state="in_flight") == 0


async def _set(event: asyncio.Event) -> None:
    event.set()


def test_an_apps_llm_calls_tokens_and_dollars_are_exported_per_purpose():
    memory = telemetry.setup("iwc-app", memory=True)
    assert memory is not None
    usage = results.LLMUsage(calls=7, input_tokens=1000, output_tokens=300, cost_usd=0.02, purposes={
        "aesthetics.judge": results.PurposeUsage(calls=5, input_tokens=800, output_tokens=200, cost_usd=0.015,
                                                 cache_read_input_tokens=4000),
        "explore.step": results.PurposeUsage(calls=2, input_tokens=200, output_tokens=100, cost_usd=0.005)})
    result = results.AppResult(model="m", task_id="t", outcome="evaluated", reason="", llm_usage=usage)
    app_run.record_llm(result, settings.Evaluation(judging=settings.Judging(model="claude-x")))
    points = memory.metric_points()
    telemetry.setup("iwc-app")  # back to the no-op set-up
    by = lambda name: {(a["purpose"], a.get("kind")): v for a, v in points[name]}
    assert by("iwc.llm.calls") == {("aesthetics.judge", None): 5, ("explore.step", None): 2}
    tokens = by("iwc.llm.purpose.tokens")
    assert tokens[("aesthetics.judge", "input")] == 800 and tokens[("aesthetics.judge", "cache_read")] == 4000
    assert tokens[("explore.step", "output")] == 100
    cost = by("iwc.llm.cost")
    assert cost[("aesthetics.judge", None)] == pytest.approx(0.015) and cost[("explore.step", None)] == pytest.approx(0.005)
    assert all(a["model"] == "claude-x" for a, _ in points["iwc.llm.calls"])
