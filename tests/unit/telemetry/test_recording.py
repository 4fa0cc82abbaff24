"""Telemetry: spans nest run → app → stage, metrics carry their attributes, and
without an endpoint nothing is exported."""

from iwcbench.pipeline.kits import telemetry


def test_spans_nest_and_metrics_are_labelled():
    memory = telemetry.setup("test", memory=True)
    try:
        with telemetry.span("run", apps="a"):
            with telemetry.span("app", model="m", task="t"):
                with telemetry.span("stage.explore", model="m", task="t"):
                    telemetry.record_stage("explore", 2.0)
        telemetry.record_app("evaluated", 40.0, 3.0)
        telemetry.record_app("start_failed", None, 1.0)
        telemetry.record_tokens("claude-x", 100, 7)
        spans = {s.name: s for s in memory.spans.get_finished_spans()}
        assert spans["stage.explore"].parent.span_id == spans["app"].context.span_id
        assert spans["app"].parent.span_id == spans["run"].context.span_id
        assert spans["app"].attributes["model"] == "m"
        points = memory.metric_points()
        assert sorted(a["outcome"] for a, _ in points["iwc.apps"]) == ["evaluated", "start_failed"]
        # an unmeasurable coverage is left out, never recorded as 0
        assert points["iwc.app.coverage"] == [({"outcome": "evaluated"}, {"sum": 40.0, "count": 1})]
        assert ({"model": "claude-x", "direction": "input"}, 100) in points["iwc.llm.tokens"]
        assert points["iwc.stage.duration"][0][0] == {"stage": "explore"}
    finally:
        telemetry.setup("test")


def test_an_exception_inside_a_span_is_recorded_and_reraised():
    memory = telemetry.setup("test", memory=True)
    try:
        try:
            with telemetry.span("app"):
                raise RuntimeError("boom")
        except RuntimeError:
            pass
        (span,) = memory.spans.get_finished_spans()
        assert not span.status.is_ok
        assert any(e.name == "exception" for e in span.events)
    finally:
        telemetry.setup("test")


def test_without_endpoint_setup_installs_nothing(monkeypatch):
    for var in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    assert telemetry.setup("test") is None
    assert not telemetry.enabled()
    with telemetry.span("run") as span:
        assert not span.is_recording()
    telemetry.record_app("evaluated", 10.0, 1.0)  # a no-op, not an error


def test_with_endpoint_an_otlp_exporter_is_installed(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    try:
        telemetry.setup("test")
        with telemetry.span("run") as span:
            assert span.is_recording()
    finally:
        monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
        telemetry.setup("test")
