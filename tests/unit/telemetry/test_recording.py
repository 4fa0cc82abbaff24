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


def test_a_process_given_traceparent_joins_that_trace(monkeypatch):
    """A pod's spans hang below the run's root span, which the operator emits later
    with the very ids the pods were given: one trace per EvaluationRun."""
    uid = "6f1c2b7e-3d4a-4c55-9a0e-1b2c3d4e5f60"
    parent = telemetry.run_traceparent(uid)
    assert parent == telemetry.run_traceparent(uid)  # the same run, the same ids
    assert parent.startswith("00-6f1c2b7e3d4a4c559a0e1b2c3d4e5f60-") and parent.endswith("-01")
    monkeypatch.setenv("TRACEPARENT", parent)
    memory = telemetry.setup("pod", memory=True)
    try:
        with telemetry.span("app", model="m", task="t"):
            with telemetry.span("stage.explore"):
                pass
        telemetry.emit_root("run", parent, 1_000, 5_000, run="r1")
        spans = {s.name: s for s in memory.spans.get_finished_spans()}
        root, app = spans["run"], spans["app"]
        assert root.parent is None and root.start_time == 1_000 and root.end_time == 5_000
        assert f"{root.context.trace_id:032x}" == uid.replace("-", "")
        assert app.context.trace_id == root.context.trace_id
        assert app.parent.span_id == root.context.span_id
        assert spans["stage.explore"].parent.span_id == app.context.span_id
        # ids are fixed for the root span only: the next span is random again
        with telemetry.span("later"):
            pass
        later = [s for s in memory.spans.get_finished_spans() if s.name == "later"][0]
        assert later.context.span_id != root.context.span_id
    finally:
        monkeypatch.delenv("TRACEPARENT")
        telemetry.setup("test")


def test_a_malformed_traceparent_is_ignored(monkeypatch):
    monkeypatch.setenv("TRACEPARENT", "not-a-trace-context")
    memory = telemetry.setup("pod", memory=True)
    try:
        with telemetry.span("app"):
            pass
        (span,) = memory.spans.get_finished_spans()
        assert span.parent is None
    finally:
        monkeypatch.delenv("TRACEPARENT")
        telemetry.setup("test")


def test_a_run_uid_that_is_not_a_uuid_still_gets_valid_ids():
    parent = telemetry.run_traceparent("uid-kmock-1")
    version, trace_id, span_id, flags = parent.split("-")
    assert (version, flags, len(trace_id), len(span_id)) == ("00", "01", 32, 16)
    assert int(trace_id, 16) and int(span_id, 16)
