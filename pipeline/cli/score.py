"""``iwc score``: aggregate stored per-app results into results.json and the report
(the Kubernetes scoring Job). Every (model, task) gets a result, as in ``iwc run``."""

from __future__ import annotations

import argparse
import datetime
import json

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import artifacts, results, settings as settings_mod, task
from iwcbench.pipeline.kits import store as store_mod, telemetry
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.runs import finishing, inputs, judging_pass, provenance


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="aggregate stored results into results.json and the report")
    p.add_argument("--store", required=True)
    p.add_argument("--tasks", required=True)
    p.add_argument("--apps", help="the apps folder or s3:// URI: apps with no result are recorded too")
    p.add_argument("--models", nargs="*", default=(), help="only these models (with --apps)")
    p.add_argument("--settings", help="the run's evaluation settings (recorded in results.json)")
    options.add_weights_option(p)
    p.add_argument("--reference", help="results.json whose pool fixes μ and σ of the z-scores")
    p.add_argument("--batch-judges", action="store_true",
                   help="first judge what the apps left waiting (iwc app explore --batch-judges) through "
                   "batch APIs at half price (Anthropic's, OpenAI's where the endpoint serves it)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    telemetry.setup("iwc-scoring")  # the scoring Job joins its run's trace (TRACEPARENT)
    try:
        with telemetry.span("score", store=args.store):
            return _score(args)
    finally:
        telemetry.flush()


def _score(args: argparse.Namespace) -> int:
    evaluation = options.evaluation(args)  # --reference is one of its fields (scoring.reference)
    store = store_mod.open_store(args.store)
    tasks = inputs.load_tasks(args.tasks)
    app_results = finishing.collect_results(store)
    if args.batch_judges:
        app_results = _judge_waiting(evaluation, args, store, tasks, app_results)
    if args.apps:
        task_ids = [t.id for t in tasks]
        expected = inputs.expected_apps(args.apps, tuple(args.models), task_ids)
        app_results = finishing.complete_results(app_results, expected, task_ids)
    started = datetime.datetime.now(datetime.timezone.utc)
    run_results = finishing.finish(evaluation, started, store, app_results, [], tasks)
    data = store.get_bytes(artifacts.RESULTS.key)
    print(json.dumps({"results": f"{store.uri}/{artifacts.RESULTS.key}", "digest": provenance.digest(data),
                      "apps": len(run_results.apps)}))
    return 0


def _judge_waiting(evaluation: settings_mod.Evaluation, args: argparse.Namespace, store: store_mod.Store,
                   tasks: list[task.Task], found: list[results.AppResult]) -> list[results.AppResult]:
    """The judging pass ``iwc run --batch-judges`` makes once every app is explored, over
    the stored results (the cluster's scoring Job, after app pods that judged only the
    interactive dimensions)."""
    config = settings_mod.RunSettings.of(evaluation, settings_mod.LocalRun(
        tasks=args.tasks, apps=args.apps or args.store, out=args.store,
        spending=settings_mod.Spending(batch_judges=True)))
    return judging_pass.judge_waiting(config, store, {t.id: t for t in tasks}, found, llm_accounting.Budget(None))
