"""A whole run on one machine: plan (discover the apps), resume, evaluate them in a
pool of worker processes, judge what was left for later (runs/judging_pass: batch mode,
the budget), then finish (aggregate, results.json, the report).

The run's LLM budget is one number shared by the worker processes (a
``multiprocessing.Value``), starting at what the apps kept by ``--resume`` already cost.

Worker processes (spawned, not forked) keep one app's crash or leak from taking the
run down; a worker that dies is replaced and its app recorded as ``error``. This
module must not implement stage logic: it schedules ``runs.app.evaluate_app``.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import logging
import multiprocessing
import multiprocessing.util
import pathlib
import threading
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

from iwcbench.pipeline.contracts import artifacts, evidence, results, settings as settings_mod, task
from iwcbench.pipeline.kits import browser, store as store_mod, telemetry
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.runs import app as app_run, assistants, evidence as stored, finishing, judging_pass, preparing, reusing
from iwcbench.pipeline.stages import ingesting, quality, reporting

log = logging.getLogger(__name__)

# Per worker process: set once by the pool initializer.
_WORKER: dict[str, app_run.Context] = {}


def context(config: settings_mod.RunSettings, tasks: list[task.Task], spent: Any = None,
            quality_tools: quality.Tools | None = None, chromium: browser.Browser | None = None,
            run: str = "") -> app_run.Context:
    """What every app of this run shares, the LLM side included when asked for.
    ``spent``: the run's shared spending counter (a ``multiprocessing.Value("d")``);
    ``quality_tools`` and ``chromium``: the worker's, kept from app to app; ``run``: this
    run in a user's words (``run_label``)."""
    budget = llm_accounting.Budget(config.spending.max_cost_usd, spent)
    return app_run.Context(
        evaluation=config.evaluation(),
        store=store_mod.open_store(config.out),
        tasks={t.id: t for t in tasks},
        mirror_dir=config.mirror_dir,
        assistants=assistants.factory(config.evaluation(), assistants.cache_dir(config.out, config.llm_cache_dir),
                                      config.spending, budget),
        quality_tools=quality_tools,
        browser=chromium,
        run=run,
    )


def run_label(config: settings_mod.RunSettings, started: datetime.datetime) -> str:
    """This run as a result reused later names it: its folder and when it started."""
    return f"{config.out} (started {started.isoformat(timespec='seconds')})"


def _init_worker(config_json: str, tasks_json: str, spent: Any, run: str) -> None:
    logging.basicConfig(level=logging.WARNING)
    telemetry.setup("iwc-worker")
    config = settings_mod.RunSettings.model_validate_json(config_json)
    tasks = [task.Task.model_validate(d) for d in json.loads(tasks_json)]
    # The quality stage's Node tools live as long as this worker; a pool worker ends
    # through os._exit, past atexit, so multiprocessing's own finalizer closes them.
    tools = quality.Tools()
    multiprocessing.util.Finalize(None, tools.close, exitpriority=10)
    # So is its Chromium: started by the first app, a fresh context for each.
    chromium = browser.Browser()
    multiprocessing.util.Finalize(None, chromium.close, exitpriority=10)
    _WORKER["context"] = context(config, tasks, spent, tools, chromium, run)


def _evaluate(app_json: str) -> str:
    app = evidence.AppRef.model_validate_json(app_json)
    return app_run.evaluate_app(app, _WORKER["context"]).model_dump_json()


def plan(config: settings_mod.RunSettings) -> tuple[list[task.Task], list[evidence.AppRef], list[results.AppResult], list[results.SkippedInput]]:
    """Tasks, apps to evaluate, results already decided (missing apps), and input
    entries that cannot be evaluated at all (with reasons)."""
    tasks = ingesting.load_tasks(pathlib.Path(config.tasks))
    discovery = ingesting.discover_apps(pathlib.Path(config.apps), [t.id for t in tasks])
    wanted = set(config.models)
    apps = [a for a in discovery.apps if not wanted or a.model in wanted]
    decided = []
    for model, task_id in discovery.missing:
        if wanted and model not in wanted:
            continue
        app = evidence.AppRef(model=model, task_id=task_id, source="", packaging="folder")
        decided.append(preparing.failed_result(app, "start_failed", results.NOT_SUBMITTED))
    skipped = [results.SkippedInput(path=f"{p.model}/{p.name}" if p.model else p.name, reason=p.reason)
               for p in discovery.problems]
    return tasks, apps, decided, skipped


def _run_pool(
    apps: list[evidence.AppRef],
    config: settings_mod.RunSettings,
    tasks: list[task.Task],
    on_done: Callable[[results.AppResult], None],
    spent: Any,
    closing: list[threading.Thread] | None = None,
    run: str = "",
) -> list[results.AppResult]:
    """Evaluate apps in worker processes; a dead worker costs only its own app. With
    ``closing``, the last pool's workers close their browsers and tools in a thread
    put there (the caller joins it), while the caller goes on to the results."""
    ctx = multiprocessing.get_context("spawn")
    args = (config.model_dump_json(), json.dumps([t.model_dump(mode="json") for t in tasks]), spent, run)
    pending = list(apps)
    done: list[results.AppResult] = []
    while pending:
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=config.workers, mp_context=ctx, initializer=_init_worker, initargs=args)
        try:
            futures = {pool.submit(_evaluate, a.model_dump_json()): a for a in pending}
            pending = []
            broken = False
            for future in concurrent.futures.as_completed(futures):
                app = futures[future]
                try:
                    result = results.AppResult.model_validate_json(future.result())
                except BrokenProcessPool:
                    if not broken:
                        # The first casualty is the app that killed its worker; the
                        # others never ran and go round again.
                        broken = True
                        result = preparing.failed_result(
                            app, "error", "the worker process evaluating this app died "
                            "(out of memory or a crash in the browser)")
                    else:
                        pending.append(app)
                        continue
                except Exception as exc:  # noqa: BLE001 - a worker that failed costs its app (recorded as error), not the run
                    result = preparing.failed_result(app, "error", f"worker failed: {type(exc).__name__}: {exc}")
                done.append(result)
                on_done(result)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        if pending or closing is None:  # (a broken pool is gone before the next one starts)
            pool.shutdown(wait=True)
        else:
            closing.append(threading.Thread(target=pool.shutdown, name="iwc-workers-closing"))
            closing[-1].start()
    return done


class _Done:
    """``on_done`` that first copies the app's screenshots into the report's assets
    (reporting.early: this process waits on the workers meanwhile); a copy that fails
    is left to the report."""

    def __init__(self, store: store_mod.LocalStore, on_done: Callable[[results.AppResult], None]) -> None:
        self.files = stored.RunFiles(store)
        self.copier = reporting.copier_for(self.files, store.root / artifacts.REPORT.key)
        self.on_done = on_done

    def __call__(self, result: results.AppResult) -> None:
        try:
            reporting.early(result, self.files, self.copier)
        except Exception:  # the report copies what is missing itself
            log.debug("early copy of %s/%s's screenshots failed", result.model, result.task_id, exc_info=True)
        self.on_done(result)


class ResumeMismatch(ValueError):
    """--resume on an output folder written with another configuration."""


def _reusable(store: store_mod.Store, config: settings_mod.RunSettings, apps: list[evidence.AppRef],
              tasks: list[task.Task], resume: bool) -> dict[str, results.AppResult]:
    """Results a resumed run keeps: apps already recorded by a run with the same
    configuration, from the same inputs (the app's files, its task, the tools: ReuseKey).
    An ``error`` (our side failed) is evaluated again."""
    mine = config.config_hash()
    files = stored.RunFiles(store)
    marker = files.load(artifacts.RUN_MARKER) if resume else None
    if marker is not None and marker.config_hash != mine:
        raise ResumeMismatch(
            f"--resume: {config.out} was written with another configuration "
            f"(config hash {marker.config_hash}, this run {mine}); use another --out or drop --resume")
    files.save(artifacts.RUN_MARKER, results.RunMarker(config_hash=mine))
    kept: dict[str, results.AppResult] = {}
    if not resume:
        return kept
    by_id = {t.id: t for t in tasks}
    for app in apps:
        evidence_files = files.app(app.key)
        result = evidence_files.result()
        if result is None or result.outcome == "error":
            continue
        if reusing.current(evidence_files, app, config.evaluation(), reusing.Origin(by_id.get(app.task_id))):
            kept[app.key] = result
    return kept


def execute(
    config: settings_mod.RunSettings,
    on_plan: Callable[[int], None] = lambda total: None,
    on_done: Callable[[results.AppResult], None] = lambda r: None,
    resume: bool = False,
) -> results.RunResults:
    """Run everything; write results.json and the report into ``config.out``.
    ``resume`` keeps the apps a previous, interrupted run of the same configuration
    already recorded, and evaluates only the rest."""
    started = datetime.datetime.now(datetime.timezone.utc)
    out = pathlib.Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    store = store_mod.LocalStore(out)
    on_done = _Done(store, on_done)
    with telemetry.span("run", apps=config.apps, tasks=config.tasks):
        assistants.check_prices(config, config.spending)
        tasks, apps, decided, skipped = plan(config)
        kept = _reusable(store, config, apps, tasks, resume)
        on_plan(len(apps) + len(decided))
        for result in decided:
            preparing.save_result(store, result)
        for result in [*decided, *kept.values()]:
            on_done(result)
        todo = [a for a in apps if a.key not in kept]
        if config.spending.max_cost_usd is not None:
            # task by task, every model's app of one task before the next task's: when the
            # budget runs out, as few tasks as possible are judged for some models only
            # (aggregating.whole_tasks sets those aside)
            order = {t.id: i for i, t in enumerate(tasks)}
            todo.sort(key=lambda a: (order.get(a.task_id, len(order)), a.model))
        # what the kept apps cost counts against --max-cost: it caps the run, not one sitting
        spent = multiprocessing.get_context("spawn").Value(
            "d", sum((r.llm_usage.cost_usd or 0.0) for r in kept.values() if r.llm_usage))
        closing: list[threading.Thread] = []
        evaluated = _run_pool(todo, config, tasks, on_done, spent, closing, run_label(config, started))
        try:
            found = judging_pass.judge_waiting(config, store, {t.id: t for t in tasks}, [*kept.values(), *evaluated],
                                               llm_accounting.Budget(config.spending.max_cost_usd, spent))
            return finishing.finish(config, started, store, [*decided, *found], skipped, tasks,
                                    on_done.copier)
        finally:
            for thread in closing:  # the workers, closing their browsers meanwhile
                thread.join()
