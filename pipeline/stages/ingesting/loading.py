"""Reading ``tasks.jsonl``: one task per line, native or imported.

Each non-blank line is one JSON object: a native ``task.Task``, a WebGen-Bench record
or an ArtifactsBench record (recognised by their fields and converted by
``importing``). Any problem stops the load with a ``TaskFileError`` that names the
file, the line and the field, because a wrong task set would make every later number
wrong. This module only reads the task file; it must not touch apps.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pydantic

from iwcbench.pipeline.contracts import task
from iwcbench.pipeline.stages.ingesting import importing


class TaskFileError(ValueError):
    """The task file cannot be used; the message says where and why."""


def describe(error: pydantic.ValidationError) -> str:
    """"checklist.2.kind: Input should be ..." — one entry per problem, ``; `` between."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(record)"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_record(record: dict[str, Any]) -> task.Task:
    """One decoded line → a task, converting benchmark formats by their fields."""
    if importing.is_webgen(record):
        return importing.from_webgen(record)
    if importing.is_artifactsbench(record):
        return importing.from_artifactsbench(record)
    return task.Task.model_validate(record)


def load_tasks(path: pathlib.Path) -> list[task.Task]:
    """All tasks of a JSON lines file, in file order. Blank lines are skipped.

    Raises ``TaskFileError`` for an unreadable file, a line that is not a JSON object,
    a record that does not validate (the message names the line and the field path),
    a task id used twice, or a file without tasks.
    """
    name = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise TaskFileError(f"{path}: no such task file") from None
    except UnicodeDecodeError as error:
        raise TaskFileError(f"{name}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise TaskFileError(f"{path}: cannot read: {error.strerror}") from None

    tasks: list[task.Task] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise TaskFileError(
                f"{where}: not valid JSON: {error.msg} (column {error.colno})") from None
        if not isinstance(record, dict):
            raise TaskFileError(
                f"{where}: expected a JSON object, got {type(record).__name__}")
        try:
            item = parse_record(record)
        except pydantic.ValidationError as error:
            raise TaskFileError(f"{where}: {describe(error)}") from None
        if item.id in first_line:
            raise TaskFileError(
                f"{where}: duplicate task id {item.id!r} (first on line {first_line[item.id]})")
        first_line[item.id] = number
        tasks.append(item)
    if not tasks:
        raise TaskFileError(f"{name}: no tasks (the file is empty)")
    return tasks
