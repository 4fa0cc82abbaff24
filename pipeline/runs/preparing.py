"""Preparing one app to be served: materialise its files, take a stored result made from
the same inputs (reused), or instrument it into the folder that is served; an app whose
build failed has its source scored here and its result recorded.

The init container of an app pod runs this as ``iwc run`` does (runs.app orders the
stages around it). It must not serve or explore the app, nor implement a stage.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import pathlib
import shutil
import time

from iwcbench.pipeline.contracts import artifacts, evidence, instrumented as instrumented_mod, metrics, results
from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod, telemetry
from iwcbench.pipeline.runs import evidence as stored, reusing
from iwcbench.pipeline.stages import ingesting, instrumenting, quality, scoring

log = logging.getLogger(__name__)

SITE = "site"  # the instrumented copy inside an app's work folder
REPORT = artifacts.INSTRUMENT.key  # in the work folder too: what the other containers read


@dataclasses.dataclass(frozen=True)
class Prepared:
    """An app ready to serve: its instrumented copy and what instrumenting found
    (the report and the files the explorer is given)."""

    app: evidence.AppRef
    work: pathlib.Path
    site: pathlib.Path
    instrumented: instrumented_mod.Instrumented

    @property
    def report(self) -> evidence.InstrumentationReport:
        return self.instrumented.report


def summary(report: evidence.InstrumentationReport | None) -> results.InstrumentationSummary:
    """What an app's result says of its instrumenting (empty before instrumenting ran)."""
    if report is None:
        return results.InstrumentationSummary()
    return results.InstrumentationSummary(
        framework=report.framework,
        mode=report.mode,
        reason=report.reason,
        files_instrumented=report.files_instrumented,
        build=report.build.result if report.build else None,
        build_s=round(report.build.install_s + report.build.build_s, 3) if report.build else None,
        network_isolated=report.build.network_isolated if report.build else None,
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
        instrumentation=summary(report),
        exploration=exploration or results.ExplorationSummary(),
        scores=scoring.failure_scores(outcome, reason),
        evidence=app.key,
        timings=timings or {},
    )


def save_result(store: store_mod.Store, result: results.AppResult) -> None:
    stored.AppEvidence(store, result.evidence).save(artifacts.RESULT, result)


def prepare_app(
    app: evidence.AppRef,
    work: pathlib.Path,
    store: store_mod.Store,
    evaluation: settings_mod.Evaluation,
    tools: quality.Tools | None = None,
    origin: reusing.Origin = reusing.Origin(),
) -> Prepared | results.AppResult:
    """Materialise and instrument one app into ``work/site``.

    Returns the Prepared app, or the recorded result when the app itself is defective
    (the result is also written to the store), or a stored result made from the same
    inputs (``origin``: the app's task and this run; reused). An app whose build failed
    still has its source scored by the metrics that read source alone (``tools``: the
    worker's quality tools; None: its own, for that)."""
    started = time.monotonic()
    files = stored.AppEvidence.of(store, app)
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
    earlier = reusing.take(files, src, evaluation, origin)
    if earlier is not None:
        save_result(store, earlier)
        return earlier
    # the app as submitted, for the code metrics and the static judges (before instrumenting)
    files.save(artifacts.SOURCES, quality.keep_sources(src, evaluation.quality.max_source_bytes))
    site = work / SITE
    done = _instrumented(app, src, work, evaluation)
    report = done.report
    shutil.rmtree(src_root, ignore_errors=True)
    files.save(artifacts.INSTRUMENT, report)
    files.save_json(artifacts.COVERAGE_MAP, done.coverage_map or {})
    (work / REPORT).write_text(report.model_dump_json(indent=1))
    if report.build is not None and report.build.result == "failed":
        result = _score_source(_unbuilt(app, report, started, evaluation), files, evaluation, tools)
        save_result(store, result)
        return result
    if report.entry is None:
        result = failed_result(
            app, "start_failed", f"no start page: {report.reason}", report,
            timings={"instrument": round(time.monotonic() - started, 3)},
        )
        save_result(store, result)
        return result
    return Prepared(app=app, work=work, site=site, instrumented=done)


def _instrumented(app: evidence.AppRef, src: pathlib.Path, work: pathlib.Path,
                  evaluation: settings_mod.Evaluation) -> instrumented_mod.Instrumented:
    """The app at ``src`` instrumented into ``work/site``, with Istanbul's maps and the
    original sources moved out of the served folder: the app (and a curious page) must
    not be able to fetch them."""
    site = work / SITE
    shutil.rmtree(site, ignore_errors=True)
    with telemetry.span("stage.instrument", model=app.model, task=app.task_id):
        done = instrumenting.instrument(src, site, evaluation.instrumentation, evaluation.build)
    telemetry.record_stage("instrument", done.report.duration_s)
    meta = work / instrumented_mod.FOLDER
    shutil.rmtree(meta, ignore_errors=True)
    if (site / instrumented_mod.FOLDER).is_dir():
        shutil.move(str(site / instrumented_mod.FOLDER), str(meta))
    return done


def _unbuilt(app: evidence.AppRef, report: evidence.InstrumentationReport, started: float,
             evaluation: settings_mod.Evaluation) -> results.AppResult:
    """The result of an app whose build failed: start_failed when the app is at fault
    (floors come in aggregation), not_runnable when this environment is (its build needs
    the network, a git dependency): then every metric the run measures is unscored with
    the reason, until its source is scored."""
    assert report.build is not None
    timings = {"instrument": round(time.monotonic() - started, 3)}
    if report.build.cause != "environment":
        return failed_result(app, "start_failed", f"the app could not be built: {report.build.reason}", report,
                             timings=timings)
    result = failed_result(app, "not_runnable", f"not runnable here: {report.build.reason}", report, timings=timings)
    measured = [*evaluation.quality.selected(), *(metrics.names("judging") if evaluation.judging.model else ())]
    lacking = metrics.unscored([n for n in measured if n not in result.scores], f"not scored: {result.reason}")
    return result.model_copy(update={"scores": {**result.scores, **lacking}})


def _score_source(result: results.AppResult, files: stored.AppEvidence, evaluation: settings_mod.Evaluation,
                  tools: quality.Tools | None) -> results.AppResult:
    """A never-built app's result with what its source scores on (quality.SOURCE_ONLY):
    WebCoderBench's static metrics need no server; the rest stays at the floor
    (start_failed) or unscored (not_runnable)."""
    if not set(quality.SOURCE_ONLY) & set(evaluation.quality.selected()):
        return result
    try:
        with contextlib.ExitStack() as own:
            chosen = tools if tools is not None else own.enter_context(quality.Tools())
            found, report = quality.measure_source(files, evaluation.quality, chosen)
    except Exception:  # our tools failing leaves the app's outcome as it was
        log.exception("scoring the source of %s failed", result.model + "/" + result.task_id)
        return result
    if not found:
        return result
    files.save(artifacts.QUALITY, report)
    scored = [n for n, s in found.items() if s.value is not None]
    reason = f"{result.reason}; its source as submitted was scored on {', '.join(scored) or 'nothing'}"
    return result.model_copy(update={"reason": reason, "scores": {**result.scores, **found}})


def load_prepared(app: evidence.AppRef, work: pathlib.Path) -> Prepared:
    """Read back what ``prepare_app`` left in a work folder (another container's)."""
    report = evidence.InstrumentationReport.model_validate_json((work / REPORT).read_text())
    return Prepared(app=app, work=work, site=work / SITE,
                    instrumented=instrumenting.load(work / instrumented_mod.FOLDER, report))
