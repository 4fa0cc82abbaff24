"""One app through the stages: the order of an app's stages lives here and only here.

Each stage is one typed call; this module moves their outputs into the store and turns
every failure into a recorded outcome. It must not implement any stage itself.

The per-app work is split in three pieces so that the Kubernetes pod (init container,
sidecar, explorer container) runs exactly the same code as ``iwc run``:

    preparing.prepare_app   materialise + instrument          (init container)
    serving.serve                                             (sidecar)
    explore_app             explore + abstract + score + save (explorer container)
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import pathlib
import shutil
import tempfile
import time
import traceback
from typing import Callable, Mapping, Protocol, TypeVar

from iwcbench.pipeline.contracts import artifacts, evidence, instrumented as instrumented_mod, metrics, results, task
from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.kits import clock, llm, store as store_mod, telemetry
from iwcbench.pipeline.kits import browser as browser_kit
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.runs import evidence as stored, preparing, reusing, uitests as uitest_run
from iwcbench.pipeline.stages import abstracting, exploring, quality, scoring, serving
from iwcbench.pipeline.stages.exploring import policy as policies

log = logging.getLogger(__name__)
T = TypeVar("T")


class AppAssistant(Protocol):
    """The LLM side of one app (runs/assistants.AppLLM): a tester policy or None, judges."""

    @property
    def policy(self) -> policies.Policy | None: ...

    @property
    def judging(self) -> bool: ...

    @property
    def stop_reason(self) -> str | None:
        """Why the app's LLM work must not start (the run's budget is spent), or None."""
        ...

    def judge(self, item: task.Task, files: artifacts.Reader) -> dict[str, metrics.Score]: ...

    def usage(self) -> results.LLMUsage | None: ...

    def ui_tester(self) -> llm.Client | None: ...

    @property
    def appearance_later(self) -> bool:
        """Batch mode: the appearance judge is left to the run's judging pass."""
        ...


AssistantFactory = Callable[[preparing.Prepared], AppAssistant]


@dataclasses.dataclass(frozen=True)
class Context:
    """What every app of a run shares: the settings, the store, the tasks, the CDN
    mirror's cache folder and the LLM side (None: offline)."""

    evaluation: settings_mod.Evaluation
    store: store_mod.Store
    tasks: Mapping[str, task.Task] = dataclasses.field(default_factory=dict)
    mirror_dir: str | None = None
    assistants: AssistantFactory | None = None
    quality_tools: quality.Tools | None = None  # the worker's; None: each app opens its own
    browser: browser_kit.Browser | None = None  # the worker's Chromium; None: each exploration starts its own
    run: str = ""  # this run in a user's words: what a result reused later names (reusing.Origin)


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


@dataclasses.dataclass
class _Exploring:
    """One app's exploration under way: where its evidence goes and what it took."""

    prepared: preparing.Prepared
    ctx: Context
    files: stored.AppEvidence
    start_url: str
    # app_timeout_s from the first page load to the last score: exploring, the UI tests
    # and the quality stage share it (building and instrumenting have limits of their own)
    deadline: clock.Deadline
    timings: dict[str, float] = dataclasses.field(default_factory=dict)

    def timed(self, stage: str, call: Callable[[], T]) -> T:
        t0 = time.monotonic()
        app = self.prepared.app
        with telemetry.span(f"stage.{stage}", model=app.model, task=app.task_id):
            done = call()
        self.timings[stage] = round(time.monotonic() - t0, 3)
        return done


def explore_app(
    prepared: preparing.Prepared,
    url: str,
    ctx: Context,
    assistant: AppAssistant | None = None,
) -> results.AppResult:
    """Explore a served app, abstract, score, and write evidence + result.json.
    ``assistant`` brings the LLM tester (its policy) and the judges, when asked for.
    The quality stage uses ``ctx.quality_tools``; without them, tools of this app's own
    (closed when it is done)."""
    with contextlib.ExitStack() as own:
        tools = ctx.quality_tools if ctx.quality_tools is not None else own.enter_context(quality.Tools())
        return _explore_app(prepared, url, ctx, assistant, tools)


def _explore_app(prepared: preparing.Prepared, url: str, ctx: Context, assistant: AppAssistant | None,
                 tools: quality.Tools) -> results.AppResult:
    app, report = prepared.app, prepared.report
    store, evaluation = ctx.store, ctx.evaluation
    start_url = serving.start_url(url, report.entry)
    doing = _Exploring(prepared=prepared, ctx=ctx, files=stored.AppEvidence.of(store, app), start_url=start_url,
                       deadline=clock.Deadline.after(evaluation.exploration.app_timeout_s))
    files, timings = doing.files, doing.timings
    quality.warm(evaluation.quality, tools)  # its tools start in the background while the app is explored
    mirror = mirror_for(evaluation.sandbox, ctx.mirror_dir)
    hermetic = routing.Hermetic(url, mirror)
    explored = doing.timed("explore", lambda: exploring.explore(
        start_url, evaluation.exploration, files.put, prepared.instrumented,
        exploring.Options(policy=assistant.policy if assistant is not None else None, hermetic=hermetic,
                          accessibility=evaluation.scoring.accessibility,
                          probes=quality.probes_wanted(evaluation.quality, evaluation.exploration),
                          deadline=doing.deadline.sooner(_kept_for_later(evaluation)), browser=ctx.browser)))
    telemetry.record_stage("explore", timings["explore"])
    trace = explored.trace
    report = _save_exploration(doing, explored)
    if trace.load_error or explored.blank:
        reason = (f"the app did not load: {trace.load_error}" if trace.load_error
                  else f"blank page: {_blank_reason(prepared, explored.blank)}")
        result = preparing.failed_result(app, "start_failed", reason, report,
                               exploration=_exploration_summary(trace, None), timings=timings)
        preparing.save_result(store, result)
        return result
    graph = doing.timed("abstract", lambda: _abstract(doing, trace))
    scores = doing.timed("score", lambda: _scores(doing, assistant, report, explored, graph))
    with telemetry.span("stage.uitest", model=app.model, task=app.task_id):
        tested = uitest_run.after_exploring(uitest_run.Bench(
            app=app, site=prepared.site, start_url=start_url, router=lambda: routing.Hermetic(url, hermetic.mirror),
            store=store, evaluation=evaluation, client=assistant.ui_tester() if assistant is not None else None,
            deadline=doing.deadline, appearance_later=assistant is not None and assistant.appearance_later,
            browser=ctx.browser),
            ctx.tasks.get(app.task_id), trace, files)
    if tested is not None:
        scores.update(tested.scores)
        timings["uitest"] = tested.duration_s
    if evaluation.quality.selected():
        scores.update(doing.timed("quality", lambda: _quality(doing, trace, graph, mirror, tools)))
    result = _result(doing, report, trace, graph, scores, assistant, tested)
    preparing.save_result(store, result)
    return result


LATER_SHARE = 0.25  # of app_timeout_s, kept from exploring for the UI tests and the quality stage


def _kept_for_later(evaluation: settings_mod.Evaluation) -> float:
    """Seconds of the app's time limit that exploring leaves to the stages after it."""
    later = evaluation.quality.selected() or evaluation.uitests.enabled
    return LATER_SHARE * evaluation.exploration.app_timeout_s if later else 0.0


def _save_exploration(doing: _Exploring, explored: exploring.Exploration) -> evidence.InstrumentationReport:
    """Store what exploring made; the instrumentation report as exploring left it."""
    files = doing.files
    report = _explored_report(doing.prepared.report, explored, doing.prepared.instrumented)
    if report is not doing.prepared.report:
        files.save(artifacts.INSTRUMENT, report)
    files.save(artifacts.TRACE, explored.trace)
    files.save(artifacts.ACCESSIBILITY, explored.a11y)
    files.save_json(artifacts.COVERAGE, explored.coverage)
    return report


def _abstract(doing: _Exploring, trace: evidence.Trace) -> evidence.StateGraph:
    graph = abstracting.abstract(trace, lambda rel: doing.files.text(rel) or None)
    doing.files.save(artifacts.GRAPH, graph)
    return graph


def _scores(doing: _Exploring, assistant: AppAssistant | None, report: evidence.InstrumentationReport,
            explored: exploring.Exploration, graph: evidence.StateGraph) -> dict[str, metrics.Score]:
    """The rule scores, and the judges' when the assistant judges this app's task."""
    scores = dict(scoring.score_offline(report, explored.trace, graph, explored.a11y))
    tasks = doing.ctx.tasks
    task_id = doing.prepared.app.task_id
    if assistant is not None and assistant.judging and task_id in tasks:
        scores.update(assistant.judge(tasks[task_id], doing.files))
    return scores


def _quality(doing: _Exploring, trace: evidence.Trace, graph: evidence.StateGraph, mirror: cdn.Mirror,
             tools: quality.Tools) -> dict[str, metrics.Score]:
    """WebCoderBench's rule metrics; their report is stored."""
    evaluation, prepared = doing.ctx.evaluation, doing.prepared
    item = doing.ctx.tasks.get(prepared.app.task_id)
    found, quality_report = quality.measure(quality.Inputs(
        start_url=doing.start_url, files=doing.files, trace=trace, graph=graph, prompt=item.prompt if item else "",
        site=prepared.site, seed=evaluation.exploration.seed,
        load_timeout_s=evaluation.exploration.load_timeout_s, deadline=doing.deadline), evaluation.quality, mirror,
        tools)
    doing.files.save(artifacts.QUALITY, quality_report)
    return found


def _result(doing: _Exploring, report: evidence.InstrumentationReport, trace: evidence.Trace,
            graph: evidence.StateGraph, scores: dict[str, metrics.Score], assistant: AppAssistant | None,
            tested: uitest_run.Tested | None) -> results.AppResult:
    black_box = report.mode == "black_box"
    app = doing.prepared.app
    return results.AppResult(
        model=app.model,
        task_id=app.task_id,
        outcome="black_box" if black_box else "evaluated",
        reason=(f"explored without coverage: {report.reason}" if black_box
                else f"explored {len(trace.steps) - 1} steps; {trace.stop_reason}"),
        instrumentation=preparing.summary(report),
        exploration=_exploration_summary(trace, graph),
        scores=scores,
        evidence=app.key,
        timings=doing.timings,
        llm_usage=assistant.usage() if assistant is not None else None,
        ui_tests=tested.outcomes if tested is not None else (),
    )


def _explored_report(report: evidence.InstrumentationReport, explored: exploring.Exploration,
                     found: instrumented_mod.Instrumented | None = None) -> evidence.InstrumentationReport:
    """The instrumentation report with what exploring found out about it: the load
    times of both builds and each file's coverage, or that the instrumented build did
    not load (black box on the original, with that reason)."""
    if explored.fallback is not None:
        return report.model_copy(update={"mode": "black_box", "reason": explored.fallback})
    update: dict = {}
    if explored.load_time_s is not None or explored.original_load_time_s is not None:
        update = {"load_time_s": explored.load_time_s, "original_load_time_s": explored.original_load_time_s}
    if found is not None and found.coverage_map and explored.coverage and report.files:
        ran = exploring.coverage.per_file(explored.coverage, found.coverage_map, found.sources)
        update["files"] = tuple(f.model_copy(update={"covered": ran[f.path][0], "function_runs": ran[f.path][1]})
                                if f.path in ran else f for f in report.files)
    return report.model_copy(update=update) if update else report


def _blank_reason(prepared: preparing.Prepared, seen: str | None) -> str:
    entry = prepared.site / (prepared.report.entry or "index.html")
    try:
        if entry.is_file() and not entry.read_bytes().strip():
            return f"{prepared.report.entry} is empty ({entry.stat().st_size} bytes)"
    except OSError:
        pass
    return f"the page shows nothing after it loaded: {seen}"


def _served_and_explored(prepared: preparing.Prepared, ctx: Context) -> results.AppResult:
    """Serve the prepared app and explore it; an app whose own server (a server build)
    does not start is start_failed with the server's reason."""
    app = prepared.app
    with contextlib.ExitStack() as stack:
        try:
            served = stack.enter_context(serving.serve(prepared.site))
        except serving.ServerFailed as exc:
            result = preparing.failed_result(app, "start_failed", str(exc), prepared.report,
                                   timings={"instrument": prepared.report.duration_s})
            preparing.save_result(ctx.store, result)
            return result
        assistant = ctx.assistants(prepared) if ctx.assistants is not None else None
        if assistant is not None and assistant.stop_reason:
            # our side's limit, not the app's fault: left out, evaluated again on --resume
            result = preparing.failed_result(app, "error", assistant.stop_reason, prepared.report)
            preparing.save_result(ctx.store, result)
            return result
        result = explore_app(prepared, served.url, ctx, assistant)
        timings = dict(result.timings)
        timings["instrument"] = prepared.report.duration_s
        return result.model_copy(update={"timings": timings})


def evaluate_app(app: evidence.AppRef, ctx: Context, work_root: pathlib.Path | None = None) -> results.AppResult:
    """All stages for one app on this machine. Never raises for an app's defects;
    an unexpected failure of ours is recorded as outcome ``error`` with the reason."""
    started = time.monotonic()
    with telemetry.span("app", model=app.model, task=app.task_id):
        work = pathlib.Path(tempfile.mkdtemp(prefix="iwc-app-", dir=work_root))
        try:
            prepared = preparing.prepare_app(app, work, ctx.store, ctx.evaluation, ctx.quality_tools,
                                   reusing.Origin(ctx.tasks.get(app.task_id), ctx.run))
            if isinstance(prepared, results.AppResult):
                result = prepared
            else:
                result = _served_and_explored(prepared, ctx)
        except Exception as exc:  # the run goes on; the reason is kept
            log.exception("app %s failed", app.key)
            stored.AppEvidence.of(ctx.store, app).put(artifacts.ERROR.key, traceback.format_exc().encode())
            result = preparing.failed_result(app, "error", f"evaluation failed on our side: {type(exc).__name__}: {exc}")
            try:
                preparing.save_result(ctx.store, result)
            except Exception:
                log.exception("could not save the result of %s", app.key)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    total = round(time.monotonic() - started, 3)
    result = result.model_copy(update={"timings": {**result.timings, "total": total}})
    telemetry.record_app(result.outcome, result.exploration.coverage.statements, total)
    record_llm(result, ctx.evaluation)
    return result


def record_llm(result: results.AppResult, evaluation: settings_mod.Evaluation) -> None:
    """One app's LLM tokens and, per purpose, calls, tokens and dollars as metrics
    (``iwc run`` and the app pods alike)."""
    if result.llm_usage is None:
        return
    model = evaluation.judging.model or evaluation.tester_model() or "unknown"
    telemetry.record_tokens(model, result.llm_usage.input_tokens, result.llm_usage.output_tokens)
    telemetry.record_llm(model, result.llm_usage.model_dump())
