"""Reusing an app's stored result: an app whose stored result was made from the same
inputs (its files, its task's record, the evaluation settings, this project's version
and the tools' versions: ``results.ReuseKey``) is not evaluated again; its result is
taken, marked ``reused`` and names the run that made it (``iwc run`` and the cluster's
app pods alike, both through ``runs.app``).

``take(files, src, evaluation, origin)`` gives that result or None; then (``begin``),
before the app is evaluated afresh, a result made from anything else is removed first,
so a result.json is only ever paired with the key it was made from (an evaluation that
dies half-way leaves the key and no result: nothing to reuse). An ``error`` (our side
failed) is never reused. It must not decide anything else about the app.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import pathlib
import tempfile

from iwcbench.pipeline.contracts import artifacts, evidence, results, settings, task
from iwcbench.pipeline.runs import evidence as stored, provenance
from iwcbench.pipeline.stages import ingesting

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Origin:
    """What an app is evaluated for, beyond its files and the settings: its task's record
    (None: not known where it is prepared, which then never reuses) and the run, in a
    user's words ("out/run1, started 2026-12-06T19:50:00+00:00", "EvaluationRun ns/name")."""

    task: task.Task | None = None
    run: str = ""


def input_hash(folder: pathlib.Path) -> str:
    """sha256 over every file under ``folder``: relative paths and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in pathlib.Path(folder).rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\x00")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()


def task_hash(item: task.Task | None) -> str:
    """sha256 of the task's whole record (prompt, checklist, UI tests, labels, source)."""
    if item is None:
        return ""
    return provenance.digest(item.model_dump_json(exclude={"schema_version"}).encode())


def key(src: pathlib.Path, evaluation: settings.Evaluation, origin: Origin) -> results.ReuseKey:
    return results.ReuseKey(input_hash=input_hash(src), config_hash=evaluation.config_hash(),
                            task_hash=task_hash(origin.task), producer=provenance.producer(), run=origin.run)


def take(files: stored.AppEvidence, src: pathlib.Path, evaluation: settings.Evaluation,
         origin: Origin) -> results.AppResult | None:
    """The stored result to reuse for the app materialised at ``src`` (marked reused);
    else None, and the app's store is ready for a fresh evaluation (``begin``)."""
    mine = key(src, evaluation, origin)
    earlier = reused(files, mine) if origin.task is not None else None
    if earlier is None:
        begin(files, mine)
    return earlier


def current(files: stored.AppEvidence, app: evidence.AppRef, evaluation: settings.Evaluation,
            origin: Origin) -> bool:
    """Whether the app's stored result was made from the inputs it has now (``--resume``
    keeps such results without a worker: the app is materialised here to be hashed)."""
    with tempfile.TemporaryDirectory(prefix="iwc-reuse-") as tmp:
        try:
            src = ingesting.materialize(app, pathlib.Path(tmp) / "src", evaluation.input)
        except ingesting.AppDefect:
            return False  # decided again, by its evaluation
        return origin.task is not None and key(src, evaluation, origin).same_inputs(files.load(artifacts.REUSE_KEY))


def reused(files: stored.AppEvidence, key: results.ReuseKey) -> results.AppResult | None:
    """The stored result, marked reused and naming its run, when it was made from the same
    inputs as ``key``; else None. Its LLM usage is dropped: this run made no call for it."""
    stored_key = files.load(artifacts.REUSE_KEY)
    if not key.same_inputs(stored_key):
        if stored_key is not None and files.exists(artifacts.RESULT):
            log.info("%s: evaluated again, its stored result was made from other inputs: %s",
                     files.prefix, "; ".join(key.differences(stored_key)))
        return None
    assert stored_key is not None  # same_inputs is False without one
    result = files.result()
    if result is None or result.outcome == "error":
        return None
    made_by = result.reused_from if result.reused else stored_key.run
    return result.model_copy(update={"reused": True, "reused_from": made_by or None, "llm_usage": None})


def begin(files: stored.AppEvidence, key: results.ReuseKey) -> None:
    """Before a fresh evaluation: drop a result made from other inputs, record this key."""
    if not key.same_inputs(files.load(artifacts.REUSE_KEY)):
        files.store.delete_prefix(artifacts.RESULT.key)  # the app's own store: keys under its prefix
    files.save(artifacts.REUSE_KEY, key)
