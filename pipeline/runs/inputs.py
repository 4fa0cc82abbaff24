"""A run's inputs wherever they live: the task file and the apps, in a local folder or
under an s3:// prefix. Composes the input stage with the store; reads, never writes
anything but the temporary copies it is asked to make.
"""

from __future__ import annotations

import pathlib
import tempfile

from iwcbench.pipeline.contracts import artifacts, evidence, layout, results, task
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import provenance
from iwcbench.pipeline.stages import ingesting


class BadInput(Exception):
    """A missing or unreadable input file or folder; the message names it."""


def load_tasks(uri: str, option: str = "--tasks") -> list[task.Task]:
    """Tasks from a local path or an s3:// URI, with a clear error for a bad file."""
    try:
        if uri.startswith("s3://"):
            data = store_mod.read_uri(uri)
            with tempfile.TemporaryDirectory() as tmp:
                path = pathlib.Path(tmp) / "tasks.jsonl"
                path.write_bytes(data)
                return ingesting.load_tasks(path)
        path = pathlib.Path(uri)
        if not path.is_file():
            raise BadInput(f"{option}: no such file: {uri}")
        return ingesting.load_tasks(path)
    except ingesting.TaskFileError as exc:
        raise BadInput(str(exc)) from None


def locate_app(apps_uri: str, model: str, task_id: str, into: pathlib.Path) -> evidence.AppRef:
    """Find one app under a local folder or an s3:// prefix (downloaded into ``into``)."""
    if not apps_uri.startswith("s3://"):
        found = ingesting.discover_apps(pathlib.Path(apps_uri), [task_id])
        for app in found.apps:
            if app.model == model and app.task_id == task_id:
                return app
        return evidence.AppRef(model=model, task_id=task_id,
                               source=str(pathlib.Path(apps_uri) / model / task_id))
    store = store_mod.open_store(apps_uri)
    # a .zip first, as the input stage prefers it when a task is submitted twice
    for suffix, packaging in sorted(layout.ARCHIVES, key=lambda a: a[1] != "zip"):
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


def expected_apps(apps_uri: str, models: tuple[str, ...], task_ids: list[str]) -> list[tuple[str, str]]:
    """(model, task_id) of every app submitted for a known task under a folder or an
    s3:// prefix."""
    if apps_uri.startswith("s3://"):
        known = set(task_ids)
        pairs = layout.pairs_from_keys(store_mod.open_store(apps_uri).list(), models)
        return [p for p in pairs if p[1] in known]
    found = ingesting.discover_apps(pathlib.Path(apps_uri), task_ids)
    return sorted((a.model, a.task_id) for a in found.apps if not models or a.model in models)


def results_location(uri: str) -> tuple[store_mod.Store, str]:
    """A run (its folder or store URI) or a results.json file → (its store, the key of
    its results.json)."""
    name = uri.rstrip("/").rpartition("/")[2]
    if name.endswith(".json"):
        parent = uri.rstrip("/").rpartition("/")[0] or "."
        return store_mod.open_store(parent), name
    return store_mod.open_store(uri), artifacts.RESULTS.key


def load_results(uri: str, option: str = "RESULTS") -> tuple[results.RunResults, str]:
    """The results of a finished run, and their digest; a clear error if there are none."""
    store, key = results_location(uri)
    try:
        data = store.get_bytes(key)
    except (store_mod.NotFound, OSError):
        raise BadInput(f"{option}: no results.json at {uri}") from None
    try:
        return results.RunResults.model_validate_json(data), provenance.digest(data)
    except ValueError as exc:
        raise BadInput(f"{option}: {uri} is not a results.json of this version: "
                       f"{str(exc).splitlines()[0]}") from None
