"""One app through the stages: the order of an app's stages lives here and only here.

Each stage is one typed call; this module moves their outputs into the store and turns
every failure into a recorded outcome. It must not implement any stage itself.

The per-app work is split in three pieces so that the Kubernetes pod (init container,
sidecar, explorer container) runs exactly the same code as ``iwc run``:

    prepare_app   materialise + instrument          (init container)
    serving.serve                                   (sidecar)
    explore_app   explore + abstract + score + save (explorer container)
"""

from __future__ import annotations

import dataclasses
import json
import logging
import pathlib
import shutil
import tempfile
import time
import traceback
from typing import Callable, Mapping, Protocol

from iwcbench.pipeline.contracts import evidence, layout, quality as quality_records, results, task
from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.kits import llm, store as store_mod, telemetry
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.runs import uitests as uitest_run
from iwcbench.pipeline.stages import abstracting, exploring, ingesting, instrumenting, quality, scoring, serving
from iwcbench.pipeline.stages.exploring import policy as policies

log = logging.getLogger(__name__)

SITE = "site"  # the instrumented copy inside an app's work folder
REPORT = "instrument.json"


class AppAssistant(Protocol):
    """The LLM side of one app (runs/assistants.AppLLM): a tester policy or None, judges."""

    policy: policies.Policy | None

    @property
    def judging(self) -> bool: ...

    @property
    def stop_reason(self) -> str | None:
        """Why the app's LLM work must not start (the run's budget is spent), or None."""
        ...

    def judge(self, item: task.Task, read: Callable[[str], bytes | None]) -> dict[str, results.Score]: ...

    def usage(self) -> results.LLMUsage | None: ...

    def ui_tester(self) -> llm.Client | None: ...


AssistantFactory = Callable[["Prepared"], AppAssistant]


@dataclasses.dataclass(frozen=True)
class Context:
    """What every app of a run shares: the settings, the store, the tasks, the CDN
    mirror's cache folder and the LLM side (None: offline)."""

    evaluation: settings_mod.Evaluation
    store: store_mod.Store
    tasks: Mapping[str, task.Task] = dataclasses.field(default_factory=dict)
    mirror_dir: str | None = None
    assistants: AssistantFactory | None = None


@dataclasses.dataclass(frozen=True)
class Prepared:
    """An app ready to serve: its instrumented copy and what instrumenting found."""

    app: evidence.AppRef
    work: pathlib.Path
    site: pathlib.Path
    report: evidence.InstrumentationReport
    coverage_map: dict


def _summary(report: evidence.InstrumentationReport | None) -> results.InstrumentationSummary:
    if report is None:
        return results.InstrumentationSummary()
    return results.InstrumentationSummary(
        framework=report.framework,
        mode=report.mode,
        reason=report.reason,
        files_instrumented=report.files_instrumented,
        build=report.build.result if report.build else None,
        build_s=round(report.build.install_s + report.build.build_s, 3) if report.build else None,
    )


def failed_result(
    app: evidence.AppRef,
    outcome: results.Outcome,
    reason: str,
    report: evidence.InstrumentationReport | None = None,
    exploration: results.ExplorationSummary | None = None,
    timings: dict[str, float] | None = None,
) -> results.AppResult:
    """The result of an app that could not be evaluated, with its floor/unscored scores."""
    return results.AppResult(
        model=app.model,
        task_id=app.task_id,
        outcome=outcome,
        reason=reason,
        instrumentation=_summary(report),
        exploration=exploration or results.ExplorationSummary(),
        scores=scoring.failure_scores(outcome, reason),
        evidence=app.key,
        timings=timings or {},
    )


def save_result(store: store_mod.Store, result: results.AppResult) -> None:
    store_mod.put_model(store, f"{result.evidence}/{layout.RESULT}", result)


def prepare_app(
    app: evidence.AppRef,
    work: pathlib.Path,
    store: store_mod.Store,
    evaluation: settings_mod.Evaluation,
) -> Prepared | results.AppResult:
    """Materialise and instrument one app into ``work/site``.

    Returns the Prepared app, or the recorded result when the app itself is defective
    (the result is also written to the store)."""
    started = time.monotonic()
    src_root = work / "src"
    shutil.rmtree(src_root, ignore_errors=True)
    src_root.mkdir(parents=True)
    with telemetry.span("stage.materialize", model=app.model, task=app.task_id):
        try:
            src = ingesting.materialize(app, src_root, evaluation.input)
        except ingesting.AppDefect as exc:
            result = failed_result(app, "start_failed", str(exc))
            save_result(store, result)
            return result
    # the app as submitted, for the code metrics and the static judges (before instrumenting)
    store_mod.put_model(store, f"{app.key}/{quality_records.SOURCES}",
                        quality.keep_sources(src, evaluation.quality.max_source_bytes))
    site = work / SITE
    shutil.rmtree(site, ignore_errors=True)
    with telemetry.span("stage.instrument", model=app.model, task=app.task_id):
        report = instrumenting.instrument(src, site, evaluation.instrumentation, evaluation.build)
    telemetry.record_stage("instrument", report.duration_s)
    shutil.rmtree(src_root, ignore_errors=True)
    # Keep Istanbul's maps and the original sources out of the served folder: the app
    # (and a curious page) must not be able to fetch them.
    meta = work / instrumenting.IWC_DIR
    shutil.rmtree(meta, ignore_errors=True)
    if (site / instrumenting.IWC_DIR).is_dir():
        shutil.move(str(site / instrumenting.IWC_DIR), str(meta))
    coverage_map = _read_json(meta / instrumenting.COVERAGE_MAP)
    store_mod.put_model(store, f"{app.key}/{REPORT}", report)
    store_mod.put_json(store, f"{app.key}/{instrumenting.COVERAGE_MAP}", coverage_map)
    (work / REPORT).write_text(report.model_dump_json(indent=1))
    if report.build is not None and report.build.result == "failed":
        result = failed_result(
            app, "start_failed", f"the app could not be built: {report.build.reason}", report,
            timings={"instrument": round(time.monotonic() - started, 3)},
        )
        save_result(store, result)
        return result
    if report.entry is None:
        result = failed_result(
            app, "start_failed", f"no start page: {report.reason}", report,
            timings={"instrument": round(time.monotonic() - started, 3)},
        )
        save_result(store, result)
        return result
    return Prepared(app=app, work=work, site=site, report=report, coverage_map=coverage_map)


def _read_json(path: pathlib.Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def load_prepared(app: evidence.AppRef, work: pathlib.Path) -> Prepared:
    """Read back what ``prepare_app`` left in a work folder (another container's)."""
    report = evidence.InstrumentationReport.model_validate_json((work / REPORT).read_text())
    coverage_map = _read_json(work / instrumenting.IWC_DIR / instrumenting.COVERAGE_MAP)
    return Prepared(app=app, work=work, site=work / SITE, report=report, coverage_map=coverage_map)


def sources_of(work: pathlib.Path) -> dict[str, str]:
    """Original source text per coverage key (for coverage-plateau guidance)."""
    return _read_json(work / instrumenting.IWC_DIR / instrumenting.SOURCES)


def mirror_for(sandbox: settings_mod.Sandbox, folder: str | None) -> cdn.Mirror:
    """The CDN mirror, its cache in ``folder`` (default ~/.cache/iwc-bench/cdn)."""
    path = pathlib.Path(folder) if folder else pathlib.Path.home() / ".cache" / "iwc-bench" / "cdn"
    return cdn.Mirror(path, registry=sandbox.npm_registry, fetch=sandbox.mirror_fetch)


def _exploration_summary(
    trace: evidence.Trace, graph: evidence.StateGraph | None
) -> results.ExplorationSummary:
    return results.ExplorationSummary(
        steps=max(0, len(trace.steps) - 1),  # step 0 is the load, not an action
        states=len(graph.nodes) if graph else 0,
        transitions=len(graph.edges) if graph else 0,
        duration_s=round(trace.duration_s, 3),
        coverage=trace.final_coverage,
        page_errors=sum(len(s.page_errors) for s in trace.steps),
        console_errors=sum(len(s.console_errors) for s in trace.steps),
        blocked_requests=sum(len(s.blocked_requests) for s in trace.steps),
    )


def explore_app(
    prepared: Prepared,
    url: str,
    ctx: Context,
    assistant: AppAssistant | None = None,
) -> results.AppResult:
    """Explore a served app, abstract, score, and write evidence + result.json.
    ``assistant`` brings the LLM tester (its policy) and the judges, when asked for."""
    app, report = prepared.app, prepared.report
    store, evaluation = ctx.store, ctx.evaluation
    key = app.key
    timings: dict[str, float] = {}

    def sink(rel: str, data: bytes) -> None:
        store.put_bytes(f"{key}/{rel}", data)

    def read(rel: str) -> bytes | None:
        try:
            return store.get_bytes(f"{key}/{rel}")
        except store_mod.NotFound:
            return None

    start_url = url.rstrip("/") + "/" + (report.entry or "index.html").lstrip("/")
    quality.warm(evaluation.quality)  # its tools start in the background while the app is explored
    mirror = mirror_for(evaluation.sandbox, ctx.mirror_dir)
    hermetic = routing.Hermetic(url, mirror)
    t0 = time.monotonic()
    with telemetry.span("stage.explore", model=app.model, task=app.task_id):
        outcome_of_exploring = exploring.explore(
            start_url,
            evaluation.exploration,
            sink,
            coverage_map=prepared.coverage_map or None,
            policy=assistant.policy if assistant is not None else None,
            hermetic=hermetic,
            accessibility=evaluation.scoring.accessibility,
            sites=_read_json(prepared.work / instrumenting.IWC_DIR / instrumenting.SITES),
            facts=_read_json(prepared.work / instrumenting.IWC_DIR / instrumenting.FACTS),
            originals=instrumenting.originals(prepared.work / instrumenting.IWC_DIR) if prepared.coverage_map else None,
            vendored=_read_json(prepared.work / instrumenting.IWC_DIR / instrumenting.VENDORED),
        )
    timings["explore"] = round(time.monotonic() - t0, 3)
    telemetry.record_stage("explore", timings["explore"])
    trace = outcome_of_exploring.trace
    report = _explored_report(report, outcome_of_exploring)
    if report is not prepared.report:
        store_mod.put_model(store, f"{key}/{REPORT}", report)
    store_mod.put_model(store, f"{key}/trace.json", trace)
    store_mod.put_model(store, f"{key}/a11y.json", outcome_of_exploring.a11y)
    store_mod.put_json(store, f"{key}/coverage.json", outcome_of_exploring.coverage)
    if trace.load_error or outcome_of_exploring.blank:
        reason = (f"the app did not load: {trace.load_error}" if trace.load_error
                  else f"blank page: {_blank_reason(prepared, outcome_of_exploring.blank)}")
        result = failed_result(
            app, "start_failed", reason, report,
            exploration=_exploration_summary(trace, None), timings=timings,
        )
        save_result(store, result)
        return result

    t0 = time.monotonic()
    with telemetry.span("stage.abstract", model=app.model, task=app.task_id):
        graph = abstracting.abstract(trace, lambda rel: (read(rel) or b"").decode("utf-8", "replace") or None)
    store_mod.put_model(store, f"{key}/graph.json", graph)
    timings["abstract"] = round(time.monotonic() - t0, 3)

    t0 = time.monotonic()
    with telemetry.span("stage.score", model=app.model, task=app.task_id):
        scores = dict(scoring.score_offline(report, trace, graph, outcome_of_exploring.a11y))
        if assistant is not None and assistant.judging and app.task_id in ctx.tasks:
            scores.update(assistant.judge(ctx.tasks[app.task_id], read))
    timings["score"] = round(time.monotonic() - t0, 3)
    with telemetry.span("stage.uitest", model=app.model, task=app.task_id):
        tested = uitest_run.after_exploring(uitest_run.Bench(
            app=app, site=prepared.site, start_url=start_url, router=lambda: routing.Hermetic(url, hermetic.mirror),
            store=store, evaluation=evaluation, client=assistant.ui_tester() if assistant is not None else None,
        ), ctx.tasks.get(app.task_id), trace, read)
    if tested is not None:
        scores.update(tested.scores)
        timings["uitest"] = tested.duration_s
    if evaluation.quality.selected():
        t0 = time.monotonic()
        item = ctx.tasks.get(app.task_id)
        with telemetry.span("stage.quality", model=app.model, task=app.task_id):
            found, quality_report = quality.measure(quality.Inputs(
                start_url=start_url, read=read, trace=trace, graph=graph, prompt=item.prompt if item else "",
                site=prepared.site, seed=evaluation.exploration.seed,
                load_timeout_s=evaluation.exploration.load_timeout_s), evaluation.quality, mirror)
        scores.update(found)
        store_mod.put_model(store, f"{key}/{quality_records.REPORT}", quality_report)
        timings["quality"] = round(time.monotonic() - t0, 3)
    black_box = report.mode == "black_box"
    result = results.AppResult(
        model=app.model,
        task_id=app.task_id,
        outcome="black_box" if black_box else "evaluated",
        reason=(f"explored without coverage: {report.reason}" if black_box
                else f"explored {len(trace.steps) - 1} steps; {trace.stop_reason}"),
        instrumentation=_summary(report),
        exploration=_exploration_summary(trace, graph),
        scores=scores,
        evidence=key,
        timings=timings,
        llm_usage=assistant.usage() if assistant is not None else None,
        ui_tests=tested.outcomes if tested is not None else (),
    )
    save_result(store, result)
    return result


def _explored_report(report: evidence.InstrumentationReport, explored: exploring.Exploration
                     ) -> evidence.InstrumentationReport:
    """The instrumentation report with what exploring found out about it: the load
    times of both builds, or that the instrumented build did not load (black box on
    the original, with that reason)."""
    if explored.fallback is not None:
        return report.model_copy(update={"mode": "black_box", "reason": explored.fallback})
    if explored.load_time_s is None and explored.original_load_time_s is None:
        return report
    return report.model_copy(update={"load_time_s": explored.load_time_s,
                                     "original_load_time_s": explored.original_load_time_s})


def _blank_reason(prepared: Prepared, seen: str | None) -> str:
    entry = prepared.site / (prepared.report.entry or "index.html")
    try:
        if entry.is_file() and not entry.read_bytes().strip():
            return f"{prepared.report.entry} is empty ({entry.stat().st_size} bytes)"
    except OSError:
        pass
    return f"the page shows nothing after it loaded: {seen}"


def evaluate_app(app: evidence.AppRef, ctx: Context, work_root: pathlib.Path | None = None) -> results.AppResult:
    """All stages for one app on this machine. Never raises for an app's defects;
    an unexpected failure of ours is recorded as outcome ``error`` with the reason."""
    started = time.monotonic()
    with telemetry.span("app", model=app.model, task=app.task_id):
        work = pathlib.Path(tempfile.mkdtemp(prefix="iwc-app-", dir=work_root))
        try:
            prepared = prepare_app(app, work, ctx.store, ctx.evaluation)
            if isinstance(prepared, results.AppResult):
                result = prepared
            else:
                with serving.serve(prepared.site) as served:
                    assistant = ctx.assistants(prepared) if ctx.assistants is not None else None
                    if assistant is not None and assistant.stop_reason:
                        # our side's limit, not the app's fault: left out, evaluated again on --resume
                        result = failed_result(app, "error", assistant.stop_reason, prepared.report)
                        save_result(ctx.store, result)
                    else:
                        result = explore_app(prepared, served.url, ctx, assistant)
                        timings = dict(result.timings)
                        timings["instrument"] = prepared.report.duration_s
                        result = result.model_copy(update={"timings": timings})
        except Exception as exc:  # noqa: BLE001 - the run goes on; the reason is kept
            log.exception("app %s failed", app.key)
            ctx.store.put_bytes(f"{app.key}/error.txt", traceback.format_exc().encode())
            result = failed_result(app, "error", f"evaluation failed on our side: {type(exc).__name__}: {exc}")
            try:
                save_result(ctx.store, result)
            except Exception:  # noqa: BLE001
                log.exception("could not save the result of %s", app.key)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    total = round(time.monotonic() - started, 3)
    result = result.model_copy(update={"timings": {**result.timings, "total": total}})
    telemetry.record_app(result.outcome, result.exploration.coverage.statements, total)
    if result.llm_usage is not None:
        evaluation = ctx.evaluation
        telemetry.record_tokens(evaluation.judging.model or evaluation.tester_model() or "unknown",
                                result.llm_usage.input_tokens, result.llm_usage.output_tokens)
    return result
