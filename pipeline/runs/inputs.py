"""A run's inputs wherever they live: the task file and the apps, in a local folder or
under an s3:// prefix. Composes the input stage with the store; reads, never writes
anything but the temporary copies it is asked to make.
"""

from __future__ import annotations

import pathlib
import tempfile

from iwcbench.pipeline.contracts import evidence, layout, task
from iwcbench.pipeline.kits import store as store_mod
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
