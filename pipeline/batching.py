"""A whole run on one machine: discover the apps, evaluate them in a pool of worker
processes, aggregate, write ``results.json`` and the report.

Worker processes (spawned, not forked) keep one app's crash or leak from taking the
run down; a worker that dies is replaced and its app recorded as ``error``. This
module must not implement stage logic: it schedules ``running.evaluate_app``.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import hashlib
import importlib.metadata
import json
import logging
import multiprocessing
import pathlib
import platform
import tempfile
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable

from iwcbench.pipeline import running, settings as settings_mod, telemetry
from iwcbench.pipeline.contracts import evidence, results, task
from iwcbench.pipeline.kits import browser, processes, store as store_mod
from iwcbench.pipeline.stages import aggregating, ingesting, reporting

log = logging.getLogger(__name__)

# Per worker process: set once by the pool initializer.
_WORKER: dict = {}


def _init_worker(config_json: str, tasks_json: str, out_uri: str) -> None:
    logging.basicConfig(level=logging.WARNING)
    telemetry.setup("iwc-worker")
    _WORKER["config"] = settings_mod.RunSettings.model_validate_json(config_json)
    _WORKER["tasks"] = {t.id: t for t in (task.Task.model_validate(d) for d in json.loads(tasks_json))}
    _WORKER["store"] = store_mod.open_store(out_uri)
    _WORKER["assistants"] = assistants_for(_WORKER["config"])


def assistants_for(config: settings_mod.RunSettings) -> running.AssistantFactory | None:
    """Per-app LLM tester and judges, when the run asks for them (else None)."""
    if not (config.scoring.judge or config.exploration.policy == "llm"):
        return None
    from iwcbench.pipeline import llm_wiring  # only when an LLM is asked for

    wiring = llm_wiring.Wiring(config)
    return lambda prepared: wiring.for_app(
        prepared.app.key, prepared.coverage_map, running.sources_of(prepared.work))


def _evaluate(app_json: str) -> str:
    app = evidence.AppRef.model_validate_json(app_json)
    result = running.evaluate_app(
        app,
        _WORKER["store"],
        _WORKER["config"],
        _WORKER["tasks"],
        assistants=_WORKER["assistants"],
    )
    return result.model_dump_json()


def versions() -> dict[str, str | None]:
    """What produced these results, for reproducibility."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("iwc-bench", "playwright", "pydantic", "networkx", "anthropic"):
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[dist] = None
    for name, argv in (("chromium", [_chromium(), "--version"]), ("node", [processes.node_binary(), "--version"])):
        try:
            done = processes.run(argv, timeout_s=20) if argv[0] else None
            found[name] = done.stdout.decode().strip() if done is not None and done.ok else None
        except (OSError, processes.ToolMissing):
            found[name] = None
    tools = pathlib.Path(__file__).parent / "js" / "node_modules"
    for pkg in ("istanbul-lib-instrument", "axe-core"):
        manifest = tools / pkg / "package.json"
        found[pkg] = json.loads(manifest.read_text())["version"] if manifest.is_file() else None
    return found


def _chromium() -> str | None:
    try:
        return browser.chromium_path()
    except RuntimeError:
        return None


def git_commit() -> str | None:
    """The commit of this checkout, read from .git without running git."""
    root = pathlib.Path(__file__).resolve().parent.parent
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            target = root / ".git" / ref[5:]
            if target.is_file():
                return target.read_text().strip()
            packed = root / ".git" / "packed-refs"
            for line in packed.read_text().splitlines():
                if line.endswith(" " + ref[5:]):
                    return line.split()[0]
            return None
        return ref
    except OSError:
        return None


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
        decided.append(running.failed_result(app, "start_failed", "no app submitted for this task"))
    skipped = [results.SkippedInput(path=f"{p.model}/{p.name}" if p.model else p.name, reason=p.reason)
               for p in discovery.problems]
    return tasks, apps, decided, skipped


def _run_pool(
    apps: list[evidence.AppRef],
    config: settings_mod.RunSettings,
    tasks: list[task.Task],
    on_done: Callable[[results.AppResult], None],
) -> list[results.AppResult]:
    """Evaluate apps in worker processes; a dead worker costs only its own app."""
    ctx = multiprocessing.get_context("spawn")
    args = (
        config.model_dump_json(),
        json.dumps([t.model_dump(mode="json") for t in tasks]),
        config.out,
    )
    pending = list(apps)
    done: list[results.AppResult] = []
    while pending:
        with concurrent.futures.ProcessPoolExecutor(
            max_workers=config.workers, mp_context=ctx, initializer=_init_worker, initargs=args
        ) as pool:
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
                        result = running.failed_result(
                            app, "error", "the worker process evaluating this app died "
                            "(out of memory or a crash in the browser)")
                    else:
                        pending.append(app)
                        continue
                except Exception as exc:  # noqa: BLE001
                    result = running.failed_result(app, "error", f"worker failed: {type(exc).__name__}: {exc}")
                done.append(result)
                on_done(result)
    return done


class ResumeMismatch(ValueError):
    """--resume on an output folder written with another configuration."""


RUN_MARKER = "run.json"  # config hash of the run writing this folder, for --resume


def _reusable(store: store_mod.Store, config: settings_mod.RunSettings, apps: list[evidence.AppRef],
              resume: bool) -> dict[str, results.AppResult]:
    """Results a resumed run keeps: apps already recorded by a run with the same
    configuration. An ``error`` (our side failed) is evaluated again."""
    mine = config.config_hash()
    if resume and store.exists(RUN_MARKER):
        theirs = store_mod.get_json(store, RUN_MARKER).get("config_hash")
        if theirs != mine:
            raise ResumeMismatch(
                f"--resume: {config.out} was written with another configuration "
                f"(config hash {theirs}, this run {mine}); use another --out or drop --resume")
    store_mod.put_json(store, RUN_MARKER, {"config_hash": mine})
    kept: dict[str, results.AppResult] = {}
    if not resume:
        return kept
    for app in apps:
        key = f"{app.key}/result.json"
        if store.exists(key):
            result = results.AppResult.model_validate_json(store.get_bytes(key))
            if result.outcome != "error":
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
    with telemetry.span("run", apps=config.apps, tasks=config.tasks):
        tasks, apps, decided, skipped = plan(config)
        kept = _reusable(store, config, apps, resume)
        on_plan(len(apps) + len(decided))
        for result in decided:
            running.save_result(store, result)
        for result in [*decided, *kept.values()]:
            on_done(result)
        todo = [a for a in apps if a.key not in kept]
        evaluated = _run_pool(todo, config, tasks, on_done)
        return finish(config, store, tasks, [*decided, *kept.values(), *evaluated], skipped, started)


def finish(
    config: settings_mod.RunSettings,
    store: store_mod.Store,
    tasks: Iterable[task.Task],
    app_results: list[results.AppResult],
    skipped: list[results.SkippedInput],
    started: datetime.datetime,
) -> results.RunResults:
    """Aggregate per-app results; write results.json and the HTML report (``report/``)
    into the store. A local store gets the report in place; any other store gets it
    rendered in a temporary folder and uploaded."""
    app_results.sort(key=lambda r: (r.model, r.task_id))
    scored, leaderboard = aggregating.aggregate(app_results)
    run_results = results.RunResults(
        run=results.RunInfo(
            configuration=config.model_dump(mode="json"),
            config_hash=config.config_hash(),
            started_at=started.isoformat(timespec="seconds"),
            finished_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            versions=versions(),
            git_commit=git_commit(),
        ),
        apps=scored,
        leaderboard=leaderboard,
        weights=aggregating.weights_for(scored),
        skipped=tuple(skipped),
        llm_usage=_sum_usage([r.llm_usage for r in app_results]),
    )
    data = run_results.model_dump_json(indent=1).encode()
    store.put_bytes("results.json", data, "application/json")

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
    return run_results


def _sum_usage(usages: list[dict]) -> dict:
    """Run totals of the apps' ``llm_usage`` (numbers added)."""
    total: dict = {}
    for usage in usages:
        for key, value in usage.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = round(total.get(key, 0) + value, 6)
    return total


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()
