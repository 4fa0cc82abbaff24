"""The end of a run, wherever its apps ran: complete the per-app results (every
(model, task) gets one), aggregate, write ``results.json`` and the HTML report.

``iwc run``, ``iwc score`` (the Kubernetes scoring Job) and ``iwc rescore`` all finish
here, so a run ranks the same inputs alike on one machine and on a cluster.
"""

from __future__ import annotations

import datetime
import logging
import pathlib
import tempfile
import time
from typing import Sequence

from iwcbench.pipeline.contracts import artifacts, evidence, metrics, results, settings as settings_mod, task
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import evidence as stored, inputs, preparing, provenance, uitests
from iwcbench.pipeline.stages import aggregating, reporting
from iwcbench.pipeline.stages.aggregating import intervals, summaries, webcoder, webgen

log = logging.getLogger(__name__)


def collect_results(store: store_mod.Store) -> list[results.AppResult]:
    """Every per-app result stored under ``apps/``."""
    return stored.RunFiles(store).app_results()


def complete_results(found: list[results.AppResult], expected: list[tuple[str, str]],
                     task_ids: list[str]) -> list[results.AppResult]:
    """Every (model, task) gets a result: an app submitted but never finished is
    ``error`` (its evaluation failed on our side); a task a model has no app for is
    ``start_failed`` (no app submitted) — the same rule as ``iwc run``."""
    have = {(r.model, r.task_id) for r in found}
    submitted = set(expected)
    added = []
    for model in sorted({m for m, _ in expected}):
        for task_id in task_ids:
            if (model, task_id) in have:
                continue
            app = evidence.AppRef(model=model, task_id=task_id, source="")
            if (model, task_id) in submitted:
                added.append(preparing.failed_result(
                    app, "error", "no result was recorded: the app's evaluation failed on our side "
                    "(see the EvaluationRun's status.failures)"))
            else:
                added.append(preparing.failed_result(app, "start_failed", results.NOT_SUBMITTED))
    return [*found, *added]


def finish(
    config: settings_mod.Evaluation,
    started: datetime.datetime,
    store: store_mod.Store,
    app_results: list[results.AppResult],
    skipped: list[results.SkippedInput],
    tasks: Sequence[task.Task] = (),
    copier: reporting.Assets | None = None,
) -> results.RunResults:
    """Aggregate per-app results; write results.json (recording ``config``, a run's
    settings or, where only they are known, the evaluation's) and the HTML report (``report/``)
    into the store. A local store gets the report in place; any other store gets it
    rendered in a temporary folder and uploaded. ``tasks`` say which apps have UI test
    cases (WebGen-Bench's Accuracy is computed over them) and give the labels of
    WebCoderBench's breakdowns. ``copier``: the report's assets copied while the run
    went on (a local store's; reporting.early)."""
    app_results = uitests.with_start_failures(app_results, {t.id: t for t in tasks}, config)
    app_results.sort(key=lambda r: (r.model, r.task_id))
    chosen = config.scoring.chosen_weights()
    reference = None
    if config.scoring.reference:
        ref_run, ref_digest = inputs.load_results(config.scoring.reference, "scoring.reference")
        reference = aggregating.reference_stats(ref_run, config.scoring.reference, ref_digest)
    ui_tests = uitests.accuracy(app_results, tasks, config)  # WebGen-Bench's, pooled over test cases
    policy = config.scoring.not_runnable
    scored, leaderboard = aggregating.aggregate(app_results, chosen, reference=reference,
                                                pooled_values=webgen.model_values(ui_tests), not_runnable=policy)
    weights = chosen if chosen is not None else aggregating.weights_for(scored)
    aside = aggregating.left_out(app_results, policy)
    compared = [a for a in scored if a.task_id not in aside]  # what every ranking of the run reads
    ranking = results.Ranking.of(aggregating.overall_kind(compared, weights), policy,
                                 len({a.task_id for a in compared}), aside)
    # WebCoderBench's own table: the leaderboard's weights when they are WebCoderBench's (the
    # leaderboard then ranks by this very table), else a weights file's, else the wcb set
    if chosen is not None and metrics.ranks_as_table4(chosen):
        wcb_weights = dict(chosen)
    else:
        wcb_weights = dict(config.scoring.custom_weights) or metrics.weights("wcb")
    run_results = results.RunResults(
        run=_run_info(config, started),
        apps=scored,
        leaderboard=leaderboard,
        weights=weights,
        skipped=tuple(skipped),
        llm_usage=results.LLMUsage.total(r.llm_usage for r in app_results),
        instrumentation=summaries.reliability(scored),
        judge_scores=summaries.judge_scores(scored),
        reference=reference,
        ui_tests=ui_tests,
        webcoder=webcoder.summarise(compared, wcb_weights, {t.id: t for t in tasks},
                                    reference.app_stats if reference is not None else None),
        ranking=ranking,
        noise=intervals.noise(compared, weights, intervals.shipped()),  # what the rows' intervals hold
    )
    stored.RunFiles(store).save(artifacts.RESULTS, run_results)
    render_report(store, run_results, copier)
    return run_results


def _run_info(config: settings_mod.Evaluation, started: datetime.datetime) -> results.RunInfo:
    """What the run used, when it ran and with which versions."""
    return results.RunInfo(
        configuration=config.evaluation(),
        local=config.local() if isinstance(config, settings_mod.RunSettings) else None,
        config_hash=config.config_hash(),
        started_at=started.isoformat(timespec="seconds"),
        finished_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        versions=provenance.versions(),
        git_commit=provenance.git_commit(),
    )


def render_report(store: store_mod.Store, run_results: results.RunResults,
                  copier: reporting.Assets | None = None) -> None:
    """The HTML report of a run (with the analyses stored beside it) into ``report/``;
    ``copier`` (a local store's) may hold its screenshots already."""

    files = stored.RunFiles(store)
    started_report = time.monotonic()
    if isinstance(store, store_mod.LocalStore):
        reporting.write_report(run_results, files, store.root / artifacts.REPORT.key, copier)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report_dir = pathlib.Path(tmp) / "report"
            reporting.write_report(run_results, files, report_dir)
            for path in sorted(p for p in report_dir.rglob("*") if p.is_file()):
                files.put(f"{artifacts.REPORT.key}{path.relative_to(report_dir).as_posix()}", path.read_bytes())
    log.info("report written in %.1f s", time.monotonic() - started_report)
