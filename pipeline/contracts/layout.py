"""The input and store layout: how apps are named and where their evidence lives.

Shared by the input stage (discovering apps in a folder), the runs (finding one app
under a folder or an S3 prefix) and the operator (listing apps from the store), so that
the cluster and ``iwc run`` see the same apps. Pure: names in, names out; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

# What an app pod is told about where it runs (operator/planning.py sets them): the run,
# as a result reused later names it, and the runner image, part of what a result was
# made with (runs.reusing).
RUN_ENV = "IWC_RUN"
IMAGE_ENV = "IWC_IMAGE"

# A model folder's or task id's name.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
# Archive suffix → packaging, longest first, so that "x.tar.gz" is not read as "x.tar" + ".gz".
ARCHIVES: tuple[tuple[str, str], ...] = ((".tar.gz", "tar.gz"), (".tgz", "tar.gz"), (".zip", "zip"))
RESULT = "result.json"  # one app's result, under its evidence prefix (artifacts.RESULT)


def app_prefix(model: str, task_id: str) -> str:
    """Store prefix of one app's evidence: ``apps/<model>/<task_id>``."""
    return f"apps/{model}/{task_id}"


def archive_task(file_name: str) -> tuple[str, str] | None:
    """(task_id, packaging) of an archive's file name, or None when it is not one."""
    lowered = file_name.lower()
    for suffix, packaging in ARCHIVES:
        if lowered.endswith(suffix) and len(file_name) > len(suffix):
            return file_name[: -len(suffix)], packaging
    return None


def is_result_key(key: str) -> bool:
    """``apps/<model>/<task_id>/result.json`` (not a deeper file of the same name)."""
    return key.endswith("/" + RESULT) and key.count("/") == 3 and key.startswith("apps/")


def pairs_from_keys(keys: Iterable[str], models: Collection[str] = ()) -> list[tuple[str, str]]:
    """Object-store keys under an apps prefix → sorted unique (model, task_id) pairs.

    ``model/task/...`` is a folder app, ``model/task.zip`` (.tar.gz, .tgz) an archive.
    Keys at the top level and hidden names are not apps; ``models`` filters. Used where
    the apps live in S3 (the operator's planning, ``iwc score --apps``)."""
    wanted = set(models)
    found: set[tuple[str, str]] = set()
    for key in keys:
        parts = key.split("/")
        if len(parts) < 2 or any(p.startswith(".") or not p for p in parts):
            continue
        model, second = parts[0], parts[1]
        if wanted and model not in wanted:
            continue
        if len(parts) == 2:
            archive = archive_task(second)
            if archive is not None:
                found.add((model, archive[0]))
            continue
        found.add((model, second))
    return sorted(found)
