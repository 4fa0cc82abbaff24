"""Finding the submitted apps under ``apps/<model>/<task_id>``.

An app is a folder ``<task_id>/``, an archive ``<task_id>.zip`` or
``<task_id>.tar.gz`` / ``<task_id>.tgz``. Everything that cannot be evaluated is
listed as a problem with its reason (a stray file, an unknown task id, a badly named
or empty model folder, a second submission for the same task) and every task a model
did not submit is listed as missing, so that the run can record it. This module only
looks at names and file types: it must not open, copy or extract anything.

Hidden entries (names starting with ".", e.g. ``.DS_Store``, ``.git``) are ignored:
they are tool droppings, not submissions.
"""

from __future__ import annotations

import pathlib
from collections.abc import Collection

from iwcbench.pipeline.contracts import base, evidence, layout

# When one task is submitted twice, this one is used and the others are problems.
_PREFERENCE = {"folder": 0, "zip": 1, "tar.gz": 2}


class Problem(base.Model):
    """An entry under the apps folder that will not be evaluated, and why.
    ``name`` is the task id when one could be read, else the entry's file name."""

    model: str
    name: str
    reason: str


class Discovery(base.Model):
    apps: tuple[evidence.AppRef, ...] = ()
    problems: tuple[Problem, ...] = ()
    missing: tuple[tuple[str, str], ...] = ()  # (model, task_id): no app submitted


def _app_entry(entry: pathlib.Path) -> tuple[str, str] | None:
    """(task_id, packaging) of a folder or archive entry; None for anything else."""
    if entry.is_dir():
        return entry.name, "folder"
    if entry.is_file():
        return layout.archive_task(entry.name)
    return None


def _scan_model(
    model: str, folder: pathlib.Path, task_ids: Collection[str]
) -> tuple[list[evidence.AppRef], list[Problem]]:
    found: dict[str, list[evidence.AppRef]] = {}
    problems: list[Problem] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        parsed = _app_entry(entry)
        if parsed is None:
            kind = "file" if entry.is_file() else "entry"
            problems.append(Problem(
                model=model, name=entry.name,
                reason=f"stray {kind}: an app is a folder, .zip, .tar.gz or .tgz"))
            continue
        task_id, packaging = parsed
        if task_id not in task_ids:
            problems.append(Problem(
                model=model, name=task_id,
                reason=f"unknown task id (no task {task_id!r} in the task file): {entry.name}"))
            continue
        found.setdefault(task_id, []).append(evidence.AppRef(
            model=model, task_id=task_id, source=str(entry), packaging=packaging))
    apps = []
    for task_id, refs in found.items():
        refs.sort(key=lambda ref: _PREFERENCE[ref.packaging])
        apps.append(refs[0])
        for extra in refs[1:]:
            problems.append(Problem(
                model=model, name=task_id,
                reason=(f"second submission ignored: {pathlib.Path(extra.source).name} "
                        f"(the {refs[0].packaging} is used)")))
    if not apps and not problems:
        problems.append(Problem(model=model, name=model, reason="model folder is empty"))
    return apps, problems


def discover_apps(apps_dir: pathlib.Path, task_ids: Collection[str]) -> Discovery:
    """Every app under ``apps_dir/<model>/``, what cannot be evaluated, and what is
    missing. A model folder holding no app at all (empty, or only problems) adds no
    missing pairs: it is reported once as a problem rather than as N failures.
    Raises ``FileNotFoundError`` when ``apps_dir`` is not a folder (a usage error)."""
    if not apps_dir.is_dir():
        raise FileNotFoundError(f"apps folder not found: {apps_dir}")
    wanted = set(task_ids)
    apps: list[evidence.AppRef] = []
    problems: list[Problem] = []
    missing: list[tuple[str, str]] = []
    for entry in sorted(apps_dir.iterdir()):
        if entry.name.startswith("."):
            continue
        if not entry.is_dir():
            problems.append(Problem(
                model="", name=entry.name,
                reason="stray file: expected one folder per model (apps/<model>/<task_id>)"))
            continue
        if not layout.NAME.match(entry.name):
            problems.append(Problem(
                model=entry.name, name=entry.name,
                reason="bad model name: use letters, digits, '.', '_' or '-' (at most 128)"))
            continue
        found, trouble = _scan_model(entry.name, entry, wanted)
        apps.extend(found)
        problems.extend(trouble)
        if found:
            submitted = {ref.task_id for ref in found}
            missing.extend((entry.name, t) for t in sorted(wanted - submitted))
    return Discovery(apps=tuple(apps), problems=tuple(problems), missing=tuple(missing))
