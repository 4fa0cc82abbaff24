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

from iwcbench.pipeline.contracts import evidence, layout, results, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import app as app_run, inputs, provenance
from iwcbench.pipeline.stages import aggregating, reporting
from iwcbench.pipeline.stages.aggregating import summaries

log = logging.getLogger(__name__)


def collect_results(store: store_mod.Store) -> list[results.AppResult]:
    """Every per-app result stored under ``apps/``."""
    return [results.AppResult.model_validate_json(store.get_bytes(key))
            for key in store.list("apps/") if layout.is_result_key(key)]


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
                added.append(app_run.failed_result(
                    app, "error", "no result was recorded: the app's evaluation failed on our side "
                    "(see the EvaluationRun's status.failures)"))
            else:
                added.append(app_run.failed_result(app, "start_failed", results.NOT_SUBMITTED))
    return [*found, *added]


def finish(
    config: settings_mod.Evaluation,
    started: datetime.datetime,
    store: store_mod.Store,
    app_results: list[results.AppResult],
    skipped: list[results.SkippedInput],
) -> results.RunResults:
    """Aggregate per-app results; write results.json (recording ``config``, a run's
    settings or, where only they are known, the evaluation's) and the HTML report (``report/``)
    into the store. A local store gets the report in place; any other store gets it
    rendered in a temporary folder and uploaded."""
    app_results.sort(key=lambda r: (r.model, r.task_id))
    reference = None
    if config.scoring.reference:
        ref_run, ref_digest = inputs.load_results(config.scoring.reference, "scoring.reference")
        reference = aggregating.reference_stats(ref_run, config.scoring.reference, ref_digest)
    scored, leaderboard = aggregating.aggregate(app_results, reference=reference)
    run_results = results.RunResults(
        run=results.RunInfo(
            configuration=config.model_dump(mode="json"),
            config_hash=config.config_hash(),
            started_at=started.isoformat(timespec="seconds"),
            finished_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            versions=provenance.versions(),
            git_commit=provenance.git_commit(),
        ),
        apps=scored,
        leaderboard=leaderboard,
        weights=aggregating.weights_for(scored),
        skipped=tuple(skipped),
        llm_usage=results.LLMUsage.total(r.llm_usage for r in app_results),
        instrumentation=summaries.reliability(scored),
        judge_scores=summaries.judge_scores(scored),
        reference=reference,
    )
    data = run_results.model_dump_json(indent=1).encode()
    store.put_bytes("results.json", data, "application/json")
    render_report(store, run_results)
    return run_results


def render_report(store: store_mod.Store, run_results: results.RunResults) -> None:
    """The HTML report of a run (with the analyses stored beside it) into ``report/``."""

    def read(key: str) -> bytes | None:
        try:
            return store.get_bytes(key)
        except store_mod.NotFound:
            return None

    started_report = time.monotonic()
    if isinstance(store, store_mod.LocalStore):
        reporting.write_report(run_results, read, store.root / "report")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report_dir = pathlib.Path(tmp) / "report"
            reporting.write_report(run_results, read, report_dir)
            for path in sorted(p for p in report_dir.rglob("*") if p.is_file()):
                store.put_bytes(f"report/{path.relative_to(report_dir).as_posix()}", path.read_bytes())
    log.info("report written in %.1f s", time.monotonic() - started_report)
