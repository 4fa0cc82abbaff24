"""Reusing an app's stored result: an app whose files and evaluation settings are those
its stored result was made from is not evaluated again; its result is taken and marked
``reused`` (``iwc run`` and the cluster's app pods alike, both through ``runs.app``).

``take(files, src, evaluation)`` gives that result or None; then (``begin``), before the app
is evaluated afresh, a result made from anything else is removed first, so a
result.json is only ever paired with the key it was made from (an evaluation that dies
half-way leaves the key and no result: nothing to reuse). An ``error`` (our side failed)
is never reused. It must not decide anything else about the app.
"""

from __future__ import annotations

import hashlib
import pathlib

from iwcbench.pipeline.contracts import artifacts, results, settings
from iwcbench.pipeline.runs import evidence as stored


def input_hash(folder: pathlib.Path) -> str:
    """sha256 over every file under ``folder``: relative paths and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in pathlib.Path(folder).rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\x00")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()


def take(files: stored.AppEvidence, src: pathlib.Path, evaluation: settings.Evaluation) -> results.AppResult | None:
    """The stored result to reuse for the app materialised at ``src`` (marked reused);
    else None, and the app's store is ready for a fresh evaluation (``begin``)."""
    key = results.ReuseKey(input_hash=input_hash(src), config_hash=evaluation.config_hash())
    earlier = reused(files, key)
    if earlier is None:
        begin(files, key)
    return earlier


def reused(files: stored.AppEvidence, key: results.ReuseKey) -> results.AppResult | None:
    """The stored result, marked reused, when it was made from ``key``; else None. Its
    LLM usage is dropped: this run made no call for it."""
    if files.load(artifacts.REUSE_KEY) != key:
        return None
    result = files.result()
    if result is None or result.outcome == "error":
        return None
    return result.model_copy(update={"reused": True, "llm_usage": None})


def begin(files: stored.AppEvidence, key: results.ReuseKey) -> None:
    """Before a fresh evaluation: drop a result made from another key, record this one."""
    if files.load(artifacts.REUSE_KEY) != key:
        files.store.delete_prefix(artifacts.RESULT.key)  # the app's own store: keys under its prefix
    files.save(artifacts.REUSE_KEY, key)
