"""``iwc app instrument|serve|explore``: one app's pieces, as a Kubernetes app pod runs
them (init container, sidecar, explorer container) — the same code as ``iwc run``."""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.parse

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import evidence, layout, results, settings
from iwcbench.pipeline.kits import store as store_mod, telemetry
from iwcbench.pipeline.runs import app as app_run, assistants, inputs, preparing, reusing
from iwcbench.pipeline.stages import serving

log = logging.getLogger(__name__)

OUTCOME = "outcome.json"  # in the work folder: decided at instrumentation, nothing to explore
# A container told to stop (SIGTERM: the pod evicted, preempted or drained) ends at once
# with this code and records nothing: the Job's podFailurePolicy ignores the disruption
# and a new pod evaluates the app from the start. (As PID 1 of its container the process
# would otherwise ignore SIGTERM, and an evaluation cut off 30 s later could be half
# uploaded, or one that ended in the grace period be kept from a pod being taken away.)
EXIT_STOPPED = 128 + signal.SIGTERM
SERVER_WAIT_S = 90.0  # the app server sidecar listens within this (a server build: its server starts first), or we failed


def add(sub: argparse._SubParsersAction) -> None:
    app = sub.add_parser("app", help="one app's stages (what a Kubernetes app pod runs)")
    app_sub = app.add_subparsers(dest="app_command", required=True)
    ins = app_sub.add_parser("instrument", help="materialise and instrument one app into WORK/site")
    ins.add_argument("--apps", required=True, help="apps folder or s3:// URI")
    ins.add_argument("--model", required=True)
    ins.add_argument("--task", required=True)
    ins.add_argument("--tasks", help="tasks.jsonl (path or s3:// URI): the task's record is part of what a "
                                     "stored result is reused for; without it the app is always evaluated afresh")
    ins.add_argument("--work", required=True, help="work folder shared with the other containers")
    ins.add_argument("--store", required=True, help="evidence store: folder or s3:// URI")
    ins.add_argument("--settings", help="the evaluation settings as one JSON document")
    ins.set_defaults(handler=instrument)
    srv = app_sub.add_parser("serve", help="serve an instrumented app (long-running)")
    srv.add_argument("--root", required=True)
    srv.add_argument("--port", type=int, default=8080)
    srv.add_argument("--host", default="127.0.0.1")
    srv.set_defaults(handler=serve)
    exp = app_sub.add_parser("explore", help="explore a served app, score it, run its UI tests, store the evidence")
    exp.add_argument("--work", required=True)
    exp.add_argument("--url", required=True)
    exp.add_argument("--store", required=True)
    exp.add_argument("--tasks", required=True)
    exp.add_argument("--model", required=True)
    exp.add_argument("--task", required=True)
    exp.add_argument("--llm-cache", help="LLM response cache folder (default: none)")
    exp.add_argument("--batch-judges", action="store_true",
                     help="judge only the interactive dimensions; leave the rest waiting for iwc score --batch-judges")
    options.add_evaluation_options(exp)
    exp.set_defaults(handler=explore)


def _stop_on_sigterm(command: str) -> None:
    def stop(signum: int, _frame: object) -> None:
        print(f"iwc app {command}: stopped by {signal.Signals(signum).name} (the pod is being taken away); "
              "nothing recorded", file=sys.stderr, flush=True)
        os._exit(EXIT_STOPPED)  # no cleanup that could record a half-done evaluation
    if threading.current_thread() is threading.main_thread():  # (only there can a handler be set)
        signal.signal(signal.SIGTERM, stop)


def instrument(args: argparse.Namespace) -> int:
    _stop_on_sigterm("instrument")
    evaluation = options.evaluation(args, dict(os.environ))  # the pod's registry and npm cache
    try:
        item = {t.id: t for t in inputs.load_tasks(args.tasks)}.get(args.task) if args.tasks else None
    except inputs.BadInput as exc:
        raise options.UsageError(str(exc)) from None
    origin = reusing.Origin(item, os.environ.get(layout.RUN_ENV, ""))
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    telemetry.setup("iwc-app")  # a pod's containers join the run's trace (TRACEPARENT)
    try:
        with telemetry.span("app", model=args.model, task=args.task, container="instrument"):
            store = store_mod.open_store(args.store)
            with tempfile.TemporaryDirectory() as tmp:
                app = inputs.locate_app(args.apps, args.model, args.task, pathlib.Path(tmp))
                prepared = preparing.prepare_app(app, work, store, evaluation, origin=origin)
    except Exception as exc:  # app defects never reach here
        log.exception("instrumenting failed on our side")
        print(f"iwc app instrument: infrastructure failure: {exc}", file=sys.stderr)
        return options.EXIT_INFRA
    finally:
        telemetry.flush()
    if isinstance(prepared, results.AppResult):
        # The defect is recorded; mark the work folder so the explorer does not run.
        (work / OUTCOME).write_text(prepared.model_dump_json())
        print(f"{args.model}/{args.task}: {prepared.outcome}: {prepared.reason}")
    else:
        print(f"{args.model}/{args.task}: {prepared.report.mode}: {prepared.report.reason}")
    return 0


def serve(args: argparse.Namespace) -> int:
    serving.serve_forever(pathlib.Path(args.root), args.host, args.port)
    return 0


def explore(args: argparse.Namespace) -> int:
    _stop_on_sigterm("explore")
    evaluation = options.evaluation(args)
    work = pathlib.Path(args.work)
    app = evidence.AppRef(model=args.model, task_id=args.task, source=str(work))
    if (work / OUTCOME).is_file():
        print(f"{app.key}: already decided at instrumentation; nothing to explore")
        return 0
    try:
        tasks = {t.id: t for t in inputs.load_tasks(args.tasks)}
    except inputs.BadInput as exc:
        raise options.UsageError(str(exc)) from None
    try:
        ctx = app_run.Context(evaluation=evaluation, store=store_mod.open_store(args.store), tasks=tasks,
                              mirror_dir=args.mirror_dir,
                              assistants=assistants.factory(evaluation, args.llm_cache,
                                                            settings.Spending(batch_judges=args.batch_judges)))
        prepared = preparing.load_prepared(app, work)
        assistant = ctx.assistants(prepared) if ctx.assistants is not None else None
    except Exception as exc:
        log.exception("explorer set-up failed")
        print(f"iwc app explore: infrastructure failure: {exc}", file=sys.stderr)
        return options.EXIT_INFRA
    if not _server_listens(args.url, SERVER_WAIT_S):
        print(f"iwc app explore: infrastructure failure: the app server at {args.url} did not listen "
              f"within {SERVER_WAIT_S:.0f}s", file=sys.stderr)
        return options.EXIT_INFRA
    telemetry.setup("iwc-app")
    failure = serving.failure_at(args.url)  # a server build whose own server did not start: the app's defect
    if failure is not None:
        result = preparing.failed_result(app, "start_failed", failure, prepared.report)
        preparing.save_result(ctx.store, result)
        print(f"{app.key}: {result.outcome}: {result.reason}")
        return 0
    started = time.monotonic()
    try:
        with telemetry.span("app", model=app.model, task=app.task_id, container="explore"):
            result = app_run.explore_app(prepared, args.url, ctx, assistant)
    except Exception as exc:
        log.exception("exploring failed on our side")
        print(f"iwc app explore: infrastructure failure: {exc}", file=sys.stderr)
        telemetry.flush()
        return options.EXIT_INFRA
    telemetry.record_app(result.outcome, result.exploration.coverage.statements, time.monotonic() - started)
    app_run.record_llm(result, evaluation)
    telemetry.flush()
    print(f"{app.key}: {result.outcome}: {result.reason}")
    return 0


def _server_listens(url: str, timeout: float) -> bool:
    """Wait until the app server sidecar accepts connections. The pod starts the explorer
    right after the sidecar (no startup probe: a kubelet probe goes to the pod's IP from
    the node, which not every network setup routes, while the explorer shares the pod's
    loopback with the server)."""
    parts = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=1):
                return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)
