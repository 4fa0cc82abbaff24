"""OpenTelemetry for ``iwc run``, the app pods and the operator: one tiny API.

    telemetry.setup("iwc")                         once per process
    with telemetry.span("app", model=m, task=t):   run → app → stage spans
    telemetry.record_app(outcome, coverage, seconds)
    telemetry.record_stage("explore", seconds)
    telemetry.record_tokens(model, input_tokens, output_tokens)
    telemetry.record_llm(model, usage)             calls, tokens, dollars per purpose
    telemetry.RunMetrics().observe(...)            the operator's runs by phase, apps per run
    RunMetrics().observe_budget(uid, attrs, state) a run's spec.maxCost: within or reached
    telemetry.emit_root(name, traceparent, start, end)   a span whose ids are given

Spans and metrics go to an OTLP/HTTP collector only when OTEL_EXPORTER_OTLP_ENDPOINT
(or the per-signal variants) is set; otherwise every call is a cheap no-op.
``setup(..., memory=True)`` keeps everything in memory for tests.

Processes that are one part of something bigger (the containers of a Kubernetes app
pod, the scoring Job) receive their parent in ``TRACEPARENT`` (W3C trace context, the
OpenTelemetry convention for environment carriers): their spans join that trace. The
operator derives one trace per EvaluationRun from the run's uid (``run_traceparent``)
and, when the run ends, emits the root span itself with exactly those ids.

This module must not decide anything: it records what callers tell it and never
raises into them (a collector that is down costs a log line, not a run).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import logging
import os
import threading
import uuid
from typing import Any, Iterator

from opentelemetry import context as otel_context, metrics, trace
from opentelemetry.sdk import metrics as sdk_metrics, resources, trace as sdk_trace
from opentelemetry.sdk.metrics import export as metrics_export
from opentelemetry.sdk.trace import export as trace_export, id_generator
from opentelemetry.sdk.trace.export import in_memory_span_exporter
from opentelemetry.trace.propagation import tracecontext

log = logging.getLogger(__name__)

_SCOPE = "iwcbench"
_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
_FLUSH_TIMEOUT_MS = 5_000  # an unreachable collector must not hold an app up for long
PARENT_VAR = "TRACEPARENT"  # the parent span of this process, W3C trace context


@dataclasses.dataclass
class Memory:
    """What an in-memory set-up captured (tests read these)."""

    spans: in_memory_span_exporter.InMemorySpanExporter
    metrics: metrics_export.InMemoryMetricReader

    def span_names(self) -> list[str]:
        return [s.name for s in self.spans.get_finished_spans()]

    def metric_points(self) -> dict[str, list[tuple[dict[str, Any], Any]]]:
        """metric name → [(attributes, value or histogram sum/count)]."""
        found: dict[str, list[tuple[dict[str, Any], Any]]] = {}
        data = self.metrics.get_metrics_data()
        for rm in data.resource_metrics if data else ():
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    for point in metric.data.data_points:
                        value: Any
                        if isinstance(point, metrics_export.NumberDataPoint):
                            value = point.value
                        else:
                            value = {"sum": point.sum, "count": point.count}
                        assert point.attributes is not None  # the SDK gives every point its (maybe empty) mapping
                        found.setdefault(metric.name, []).append((dict(point.attributes), value))
        return found


class _Ids(id_generator.RandomIdGenerator):
    """Random ids, except for the one span whose ids the caller fixed (``emit_root``),
    per thread: the operator's handlers run in threads."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def fixed(self, trace_id: int, span_id: int) -> Iterator[None]:
        self._local.fixed = (trace_id, span_id)
        try:
            yield
        finally:
            self._local.fixed = None

    def generate_trace_id(self) -> int:
        fixed = getattr(self._local, "fixed", None)
        return fixed[0] if fixed else super().generate_trace_id()

    def generate_span_id(self) -> int:
        fixed = getattr(self._local, "fixed", None)
        return fixed[1] if fixed else super().generate_span_id()


@dataclasses.dataclass
class _State:
    tracer: trace.Tracer
    meter: metrics.Meter
    tracer_provider: sdk_trace.TracerProvider | None = None
    meter_provider: sdk_metrics.MeterProvider | None = None
    ids: _Ids | None = None
    parent_token: object | None = None  # the attached TRACEPARENT context, detached on shutdown

    def __post_init__(self) -> None:
        m = self.meter
        self.apps = m.create_counter("iwc.apps", unit="{app}", description="apps finished, by outcome")
        self.app_duration = m.create_histogram("iwc.app.duration", unit="s",
                                               description="wall time of one app, all stages")
        self.coverage = m.create_histogram("iwc.app.coverage", unit="%",
                                           description="statement coverage reached per app")
        self.stage_duration = m.create_histogram("iwc.stage.duration", unit="s",
                                                 description="wall time of one stage of one app")
        self.tokens = m.create_counter("iwc.llm.tokens", unit="{token}",
                                       description="LLM tokens, by model and direction")
        self.llm_calls = m.create_counter("iwc.llm.calls", unit="{call}",
                                          description="LLM calls, by model and purpose (cache hits included)")
        self.llm_purpose_tokens = m.create_counter(
            "iwc.llm.purpose.tokens", unit="{token}",
            description="LLM tokens billed, by model, purpose and kind (input, output, cache_read, cache_write)")
        self.llm_cost = m.create_counter("iwc.llm.cost", unit="USD",
                                         description="LLM dollars, by model and purpose (known prices only)")


_state = _State(tracer=trace.NoOpTracer(), meter=metrics.NoOpMeter(_SCOPE))


def enabled() -> bool:
    """True when an OTLP endpoint is configured in the environment."""
    return any(os.environ.get(v) for v in _ENDPOINT_VARS)


def setup(service_name: str, *, memory: bool = False) -> Memory | None:
    """Configure this process. Without an OTLP endpoint (and without ``memory``)
    nothing is installed and the calls below stay no-ops. Calling again replaces the
    previous set-up (tests do this); the old providers are shut down first."""
    global _state
    _shutdown()
    if not memory and not enabled():
        _state = _State(tracer=trace.NoOpTracer(), meter=metrics.NoOpMeter(_SCOPE))
        return None
    resource = resources.Resource.create({"service.name": service_name})  # + OTEL_RESOURCE_ATTRIBUTES
    ids = _Ids()
    tracer_provider = sdk_trace.TracerProvider(resource=resource, id_generator=ids, shutdown_on_exit=False)
    captured: Memory | None = None
    if memory:
        span_exporter = in_memory_span_exporter.InMemorySpanExporter()
        tracer_provider.add_span_processor(trace_export.SimpleSpanProcessor(span_exporter))
        reader: metrics_export.MetricReader = metrics_export.InMemoryMetricReader()
        captured = Memory(spans=span_exporter, metrics=reader)  # type: ignore[arg-type]  # it is the in-memory reader
    else:
        # Imported here: the exporter pulls in requests/protobuf, needless without it.
        from opentelemetry.exporter.otlp.proto.http import metric_exporter, trace_exporter

        tracer_provider.add_span_processor(trace_export.BatchSpanProcessor(trace_exporter.OTLPSpanExporter()))
        reader = metrics_export.PeriodicExportingMetricReader(metric_exporter.OTLPMetricExporter())
    meter_provider = sdk_metrics.MeterProvider(resource=resource, metric_readers=[reader], shutdown_on_exit=False)
    _state = _State(tracer=tracer_provider.get_tracer(_SCOPE), meter=meter_provider.get_meter(_SCOPE),
                    tracer_provider=tracer_provider, meter_provider=meter_provider, ids=ids,
                    parent_token=_attach_parent(os.environ.get(PARENT_VAR)))
    return captured


def _attach_parent(traceparent: str | None) -> object | None:
    """Make ``traceparent`` the parent of this process's top-level spans. A malformed
    value is ignored (the spans then start a trace of their own)."""
    if not traceparent:
        return None
    parent = tracecontext.TraceContextTextMapPropagator().extract({"traceparent": traceparent})
    if not trace.get_current_span(parent).get_span_context().is_valid:
        log.warning("ignoring a malformed %s: %r", PARENT_VAR, traceparent[:80])
        return None
    return otel_context.attach(parent)


def run_traceparent(run_uid: str) -> str:
    """The W3C trace context of one EvaluationRun's root span (PURE): the trace id is
    the run's uid (a UUID is 128 bits, as a trace id is), the span id a hash of it.
    Every pod of the run gets it, so the run is one trace whichever process reports."""
    try:
        trace_id = uuid.UUID(run_uid).int
    except ValueError:
        trace_id = int(hashlib.sha256(run_uid.encode()).hexdigest()[:32], 16)
    span_id = int(hashlib.sha256(f"run:{run_uid}".encode()).hexdigest()[:16], 16) or 1
    return f"00-{trace_id or 1:032x}-{span_id:016x}-01"


def emit_root(name: str, traceparent: str, start_ns: int, end_ns: int, **attrs: Any) -> None:
    """Record one finished root span whose trace and span ids are those of
    ``traceparent`` (made by ``run_traceparent``), from ``start_ns`` to ``end_ns``
    (nanoseconds since the epoch). Spans recorded earlier elsewhere with this parent
    hang below it."""
    if _state.tracer_provider is None or _state.ids is None:
        return
    try:
        _, trace_hex, span_hex, _ = traceparent.split("-")
        with _state.ids.fixed(int(trace_hex, 16), int(span_hex, 16)):
            root = _state.tracer.start_span(name, context=otel_context.Context(), start_time=start_ns,
                                            attributes=_attributes(attrs))
        root.end(end_time=max(end_ns, start_ns))
    except Exception:  # telemetry never fails its caller
        log.warning("could not record the %s span", name, exc_info=True)


def _shutdown() -> None:
    if _state.parent_token is not None:
        try:
            otel_context.detach(_state.parent_token)  # type: ignore[arg-type]  # the token attach returned
        except Exception:  # noqa: BLE001 - attached in another context (a test's thread)
            pass
    for provider in (_state.tracer_provider, _state.meter_provider):
        if provider is not None:
            try:
                provider.shutdown()
            except Exception:  # telemetry never fails a run
                log.warning("telemetry shutdown failed", exc_info=True)


# the one exit hook (the providers' own are off: two would shut them down twice and
# log "shutdown can only be called once" in every pod)
atexit.register(_shutdown)


def flush() -> None:
    """Push buffered spans and metrics now. Process-pool workers exit without running
    atexit hooks, so ``record_app`` calls this at the end of every app."""
    for provider in (_state.tracer_provider, _state.meter_provider):
        if provider is not None:
            try:
                provider.force_flush(_FLUSH_TIMEOUT_MS)
            except Exception:
                log.warning("telemetry flush failed", exc_info=True)


def _attributes(attrs: dict[str, Any]) -> dict[str, Any]:
    """OpenTelemetry accepts str/bool/int/float; anything else is shown as text."""
    return {k: v if isinstance(v, (str, bool, int, float)) else str(v)
            for k, v in attrs.items() if v is not None}


@contextlib.contextmanager
def span(name: str, **attrs: Any) -> Iterator[trace.Span]:
    """A span, child of the current one. Exceptions are recorded and re-raised."""
    with _state.tracer.start_as_current_span(name, attributes=_attributes(attrs)) as current:
        yield current


def record_app(outcome: str, coverage: float | None, duration: float) -> None:
    """One finished app: its outcome, statement coverage in percent (None when not
    measurable, then left out of the histogram) and wall time in seconds."""
    attrs = {"outcome": outcome}
    _state.apps.add(1, attrs)
    _state.app_duration.record(max(duration, 0.0), attrs)
    if coverage is not None:
        _state.coverage.record(coverage, attrs)
    if _state.meter_provider is not None and enabled():
        flush()


def record_stage(stage: str, seconds: float) -> None:
    _state.stage_duration.record(max(seconds, 0.0), {"stage": stage})


def record_tokens(model: str, input: int, output: int) -> None:  # noqa: A002 - the brief's names
    if input:
        _state.tokens.add(input, {"model": model, "direction": "input"})
    if output:
        _state.tokens.add(output, {"model": model, "direction": "output"})


_TOKEN_KINDS = (("input", "input_tokens"), ("output", "output_tokens"), ("cache_read", "cache_read_input_tokens"),
                ("cache_write", "cache_creation_input_tokens"))


def record_llm(model: str, usage: dict[str, Any]) -> None:
    """One app's LLM calls, per purpose: ``usage`` is an LLM usage summary as a dict
    (``{"purposes": {purpose: {"calls", "input_tokens", ..., "cost_usd"}}}``)."""
    for purpose, spent in (usage.get("purposes") or {}).items():
        attrs = {"model": model, "purpose": purpose}
        if spent.get("calls"):
            _state.llm_calls.add(int(spent["calls"]), attrs)
        for kind, field in _TOKEN_KINDS:
            if spent.get(field):
                _state.llm_purpose_tokens.add(int(spent[field]), {**attrs, "kind": kind})
        if spent.get("cost_usd"):
            _state.llm_cost.add(float(spent["cost_usd"]), attrs)


class RunMetrics:
    """The operator's view of its runs as gauges, read at each export: ``iwc.runs``
    (runs by phase), ``iwc.run.phase`` (a run's phases: 1 on its phase now, 0 on those
    it was in before), ``iwc.run.apps`` (a run's apps by state: done, failed, in_flight, queued,
    pending), ``iwc.run.cost`` (a run's LLM dollars so far) and ``iwc.run.budget`` (a run
    with spec.maxCost: 1 on its state now, ``within`` or ``reached``, 0 on the other).
    ``observe`` keeps the latest look at each run, ``observe_budget`` its budget's state
    (the WithinBudget condition); ``forget`` drops a deleted one."""

    BUDGET_STATES = ("within", "reached")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[dict[str, str], str, dict[str, int], float | None]] = {}
        self._budgets: dict[str, tuple[dict[str, str], str]] = {}
        self._been: dict[str, set[str]] = {}  # the phases each run was in
        meter = _state.meter
        meter.create_observable_gauge("iwc.runs", callbacks=[self._phases], unit="{run}",
                                      description="EvaluationRuns served, by phase")
        meter.create_observable_gauge("iwc.run.phase", callbacks=[self._phase], unit="{run}",
                                      description="one run's phase now (1) and those it was in (0)")
        meter.create_observable_gauge("iwc.run.apps", callbacks=[self._apps], unit="{app}",
                                      description="one run's apps by state (this round)")
        meter.create_observable_gauge("iwc.run.cost", callbacks=[self._cost], unit="USD",
                                      description="one run's LLM dollars so far")
        meter.create_observable_gauge("iwc.run.budget", callbacks=[self._budget], unit="{run}",
                                      description="one run's spec.maxCost: 1 on its state (within, reached)")

    def observe(self, uid: str, attrs: dict[str, str], phase: str, counts: dict[str, int],
                cost_usd: float | None) -> None:
        with self._lock:
            self._runs[uid] = (dict(attrs), phase, dict(counts), cost_usd)
            self._been.setdefault(uid, set()).add(phase)

    def observe_budget(self, uid: str, attrs: dict[str, str], state: str | None) -> None:
        """``state``: ``within`` or ``reached``; None: the run has no spec.maxCost."""
        with self._lock:
            if state is None:
                self._budgets.pop(uid, None)
            else:
                self._budgets[uid] = (dict(attrs), state)

    def forget(self, uid: str) -> None:
        with self._lock:
            self._runs.pop(uid, None)
            self._budgets.pop(uid, None)
            self._been.pop(uid, None)

    def _snapshot(self) -> list[tuple[dict[str, str], str, dict[str, int], float | None]]:
        with self._lock:
            return list(self._runs.values())

    def _phases(self, _options: Any) -> list[metrics.Observation]:
        by_phase: dict[str, int] = {}
        for _, phase, _, _ in self._snapshot():
            by_phase[phase] = by_phase.get(phase, 0) + 1
        return [metrics.Observation(n, {"phase": phase}) for phase, n in sorted(by_phase.items())]

    def _phase(self, _options: Any) -> list[metrics.Observation]:
        with self._lock:
            runs = [(attrs, now, sorted(self._been.get(uid, ()))) for uid, (attrs, now, _, _) in self._runs.items()]
        # 0 on the phases left: a phase change never leaves a stale series at 1
        return [metrics.Observation(int(phase == now), {**attrs, "phase": phase})
                for attrs, now, been in runs for phase in been]

    def _apps(self, _options: Any) -> list[metrics.Observation]:
        found = []
        for attrs, _, counts, _ in self._snapshot():
            states = {"done": counts.get("succeeded", 0), "failed": counts.get("failed", 0),
                      "in_flight": counts.get("active", 0), "queued": counts.get("queued", 0),
                      "pending": counts.get("pending", 0)}
            found += [metrics.Observation(n, {**attrs, "state": state}) for state, n in states.items()]
        return found

    def _cost(self, _options: Any) -> list[metrics.Observation]:
        return [metrics.Observation(cost, attrs) for attrs, _, _, cost in self._snapshot() if cost is not None]

    def _budget(self, _options: Any) -> list[metrics.Observation]:
        with self._lock:
            budgets = list(self._budgets.values())
        # both states, 0 on the other: a change of state never leaves a stale series at 1
        return [metrics.Observation(int(state == now), {**attrs, "state": state})
                for attrs, now in budgets for state in self.BUDGET_STATES]
