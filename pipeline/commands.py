"""What each ``iwc`` command does, given parsed arguments. One function a command;
the heavy lifting is in batching / running / the stages."""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import pathlib
import sys
import tempfile
from typing import Callable

from iwcbench.pipeline import batching, progress, running, settings as settings_mod, telemetry
from iwcbench.pipeline.contracts import evidence, results, task
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.stages import ingesting, serving

log = logging.getLogger(__name__)

SettingsBuilder = Callable[..., settings_mod.RunSettings]


class UsageError(Exception):
    """A bad argument or input file; the message says which and why."""


def dispatch(args: argparse.Namespace, build: SettingsBuilder) -> int:
    handler = {
        "run": cmd_run,
        "app": lambda a, b: {"instrument": cmd_app_instrument, "serve": cmd_app_serve,
                             "explore": cmd_app_explore}[a.app_command](a, b),
        "score": cmd_score,
        "rescore": cmd_rescore,
        "checklist": cmd_checklist,
        "robustness": cmd_robustness,
        "import": cmd_import,
        "schema": cmd_schema,
    }[args.command]
    return handler(args, build)


def _load_tasks(uri: str) -> list[task.Task]:
    """Tasks from a local path or an s3:// URI, with a clear error for a bad file."""
    try:
        if uri.startswith("s3://"):
            data = store_mod.read_uri(uri)
            with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as fh:
                fh.write(data)
            return ingesting.load_tasks(pathlib.Path(fh.name))
        path = pathlib.Path(uri)
        if not path.is_file():
            raise UsageError(f"--tasks: no such file: {uri}")
        return ingesting.load_tasks(path)
    except ingesting.TaskFileError as exc:
        raise UsageError(str(exc)) from None


def cmd_run(args: argparse.Namespace, build: SettingsBuilder) -> int:
    config = build(args, tasks=args.tasks, apps=args.apps, out=args.out,
                   workers=args.workers, models=tuple(args.models))
    if not pathlib.Path(config.apps).is_dir():
        raise UsageError(f"--apps: no such folder: {config.apps}")
    if not pathlib.Path(config.tasks).is_file():
        raise UsageError(f"--tasks: no such file: {config.tasks}")
    telemetry.setup("iwc")
    display = progress.Display(stream=sys.stderr)
    try:
        run_results = batching.execute(config, on_plan=display.plan, on_done=display.done,
                                       resume=args.resume)
    except (ingesting.TaskFileError, batching.ResumeMismatch) as exc:
        raise UsageError(str(exc)) from None
    finally:
        display.close()
    progress.print_leaderboard(run_results, pathlib.Path(config.out), stream=sys.stdout)
    return 0


def _app_ref(apps_uri: str, model: str, task_id: str, into: pathlib.Path) -> evidence.AppRef:
    """Find one app under a local folder or an s3:// prefix (downloaded into ``into``)."""
    if not apps_uri.startswith("s3://"):
        found = ingesting.discover_apps(pathlib.Path(apps_uri), [task_id])
        for app in found.apps:
            if app.model == model and app.task_id == task_id:
                return app
        return evidence.AppRef(model=model, task_id=task_id,
                               source=str(pathlib.Path(apps_uri) / model / task_id))
    store = store_mod.open_store(apps_uri)
    for suffix, packaging in ((".zip", "zip"), (".tar.gz", "tar.gz"), (".tgz", "tar.gz")):
        key = f"{model}/{task_id}{suffix}"
        if store.exists(key):
            target = into / f"{task_id}{suffix}"
            target.write_bytes(store.get_bytes(key))
            return evidence.AppRef(model=model, task_id=task_id, source=str(target), packaging=packaging)
    folder = into / task_id
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"{model}/{task_id}/"
    for key in store.list(prefix):
        target = folder / key[len(prefix):]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(store.get_bytes(key))
    return evidence.AppRef(model=model, task_id=task_id, source=str(folder))


BUILD_ENV = {"IWC_NPM_REGISTRY": "registry", "IWC_NPM_CACHE": "npm_cache_dir",
             "IWC_NPM_CACHE_SEED": "npm_cache_seed"}  # set in the pod by the chart and the operator


def build_settings_from(environ: dict[str, str]) -> settings_mod.Build:
    """The build section of a pod's settings: the registry and npm cache it was given."""
    return settings_mod.Build(**{field: environ[var] for var, field in BUILD_ENV.items() if environ.get(var)})


def cmd_app_instrument(args: argparse.Namespace, build: SettingsBuilder) -> int:
    config = settings_mod.RunSettings(tasks="-", apps=args.apps, out=args.store,
                                      build=build_settings_from(dict(os.environ)))
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        store = store_mod.open_store(args.store)
        with tempfile.TemporaryDirectory() as tmp:
            app = _app_ref(args.apps, args.model, args.task, pathlib.Path(tmp))
            prepared = running.prepare_app(app, work, store, config)
    except Exception as exc:  # noqa: BLE001 - app defects never reach here
        log.exception("instrumenting failed on our side")
        print(f"iwc app instrument: infrastructure failure: {exc}", file=sys.stderr)
        return 75
    if isinstance(prepared, results.AppResult):
        # The defect is recorded; mark the work folder so the explorer does not run.
        (work / "outcome.json").write_text(prepared.model_dump_json())
        print(f"{args.model}/{args.task}: {prepared.outcome}: {prepared.reason}")
    else:
        print(f"{args.model}/{args.task}: {prepared.report.mode}: {prepared.report.reason}")
    return 0


def cmd_app_serve(args: argparse.Namespace, build: SettingsBuilder) -> int:
    serving.serve_forever(pathlib.Path(args.root), args.host, args.port)
    return 0


def cmd_app_explore(args: argparse.Namespace, build: SettingsBuilder) -> int:
    config = build(args, tasks=args.tasks, apps="-", out=args.store)
    work = pathlib.Path(args.work)
    app = evidence.AppRef(model=args.model, task_id=args.task, source=str(work))
    if (work / "outcome.json").is_file():
        print(f"{app.key}: already decided at instrumentation; nothing to explore")
        return 0
    try:
        store = store_mod.open_store(args.store)
        tasks = {t.id: t for t in _load_tasks(args.tasks)}
        prepared = running.load_prepared(app, work)
        assistants = batching.assistants_for(config)
        assistant = assistants(prepared) if assistants is not None else None
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001
        log.exception("explorer set-up failed")
        print(f"iwc app explore: infrastructure failure: {exc}", file=sys.stderr)
        return 75
    try:
        result = running.explore_app(prepared, args.url, store, config, tasks, assistant)
    except Exception as exc:  # noqa: BLE001
        log.exception("exploring failed on our side")
        print(f"iwc app explore: infrastructure failure: {exc}", file=sys.stderr)
        return 75
    print(f"{app.key}: {result.outcome}: {result.reason}")
    return 0


def collect_results(store: store_mod.Store) -> list[results.AppResult]:
    found = []
    for key in store.list("apps/"):
        if key.endswith("/result.json") and key.count("/") == 3:
            found.append(results.AppResult.model_validate_json(store.get_bytes(key)))
    return found


def expected_apps(apps_uri: str, models: tuple[str, ...], task_ids: list[str]) -> list[tuple[str, str]]:
    """(model, task_id) of every app submitted for a known task under a folder or an
    s3:// prefix."""
    if apps_uri.startswith("s3://"):
        known = set(task_ids)
        pairs = ingesting.pairs_from_keys(store_mod.open_store(apps_uri).list(), models)
        return [p for p in pairs if p[1] in known]
    found = ingesting.discover_apps(pathlib.Path(apps_uri), task_ids)
    return sorted((a.model, a.task_id) for a in found.apps if not models or a.model in models)


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
                added.append(running.failed_result(
                    app, "error", "no result was recorded: the app's evaluation failed on our side "
                    "(see the EvaluationRun's status.failures)"))
            else:
                added.append(running.failed_result(app, "start_failed", "no app submitted for this task"))
    return [*found, *added]


def cmd_score(args: argparse.Namespace, build: SettingsBuilder) -> int:
    store = store_mod.open_store(args.store)
    tasks = _load_tasks(args.tasks)
    app_results = collect_results(store)
    if args.apps:
        task_ids = [t.id for t in tasks]
        app_results = complete_results(app_results, expected_apps(args.apps, tuple(args.models), task_ids),
                                       task_ids)
    config = settings_mod.RunSettings(tasks=args.tasks, apps="-", out=args.store)
    started = datetime.datetime.now(datetime.timezone.utc)
    run_results = batching.finish(config, store, tasks, app_results, [], started)
    data = store.get_bytes("results.json")
    print(json.dumps({"results": f"{store.uri}/results.json", "digest": batching.digest(data),
                      "apps": len(run_results.apps)}))
    return 0


def cmd_rescore(args: argparse.Namespace, build: SettingsBuilder) -> int:
    from iwcbench.pipeline import llm_wiring

    return llm_wiring.rescore_command(args)


def cmd_checklist(args: argparse.Namespace, build: SettingsBuilder) -> int:
    from iwcbench.pipeline import llm_wiring

    return llm_wiring.checklist_command(args)


def cmd_robustness(args: argparse.Namespace, build: SettingsBuilder) -> int:
    from iwcbench.pipeline import llm_wiring

    return llm_wiring.robustness_command(args)


def cmd_import(args: argparse.Namespace, build: SettingsBuilder) -> int:
    path = pathlib.Path(args.file)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        tasks = ingesting.load_tasks(path)
    except ingesting.TaskFileError as exc:
        raise UsageError(str(exc)) from None
    out = pathlib.Path(args.out)
    out.write_text("".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in tasks))
    print(f"wrote {len(tasks)} tasks to {out}")
    return 0


def cmd_schema(args: argparse.Namespace, build: SettingsBuilder) -> int:
    print(json.dumps(results.RunResults.model_json_schema(), indent=2))
    return 0
