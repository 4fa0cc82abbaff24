"""``iwc fetch``: a finished run's results.json and report (and, when asked, every app's
evidence) from the store its status names, into a local folder laid out as ``iwc run``'s
output folder (results.json, report/, apps/), so the local commands read it as they read
a local run.

results.json is checked against the digest the scoring Job published into the status
before anything is written; it is written last, so a folder holding it holds the rest.
It must not write to the API server or the store.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any, Callable, Mapping

from iwcbench.operator import publishing, syncing, watching
from iwcbench.pipeline.contracts import artifacts
from iwcbench.pipeline.kits import store as store_mod

REPORT = "report"
EVIDENCE = "apps"


class NotReady(Exception):
    """The run has no results to fetch (yet); ``code`` is the exit code that says why."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class DigestMismatch(Exception):
    """The store's results.json is not the one the status names."""


@dataclasses.dataclass(frozen=True)
class Fetched:
    results: pathlib.Path
    copied: syncing.Tally


def _who(run: Mapping[str, Any]) -> str:
    meta = run.get("metadata") or {}
    return f"EvaluationRun {meta.get('namespace', '?')}/{meta.get('name', '?')}"


def _failure(status: Mapping[str, Any]) -> str:
    for c in status.get("conditions") or []:
        if c.get("type") == "Failed" and c.get("status") == "True":
            return f"{c.get('reason', '')}: {c.get('message', '')}".strip(": ")
    return "no Failed condition says why"


def results_location(run: Mapping[str, Any]) -> tuple[str, str, str]:
    """(the run's store URI, the key of results.json in it, the digest) of a run that
    ended with results; NotReady naming why not."""
    status, phase, meta = watching.status_of(run), watching.phase_of(run), run.get("metadata") or {}
    if phase == "Failed":
        raise NotReady(f"{_who(run)} ended Failed ({_failure(status)}): there are no results to fetch",
                       watching.EXIT_FAILED)
    if phase != "Succeeded":
        name, ns = meta.get("name", "RUN"), meta.get("namespace", "NS")
        raise NotReady(f"{_who(run)} has not finished: {phase}, {watching.counts_text(status)}. "
                       f"Wait for it with `iwc fetch {name} -n {ns} --wait` (or `iwc status {name} -n {ns} --watch`)",
                       watching.EXIT_NOT_ENDED)
    uri, digest = status.get("resultsURI"), (status.get("results") or {}).get("digest")
    if not uri or not digest:
        raise NotReady(f"{_who(run)} Succeeded but its status names no results (resultsURI, results.digest)",
                       watching.EXIT_FAILED)
    base, _, key = str(uri).rpartition("/")
    if not base.startswith("s3://") or not key:
        raise NotReady(f"{_who(run)}: status.resultsURI {uri!r} is not an s3:// object", watching.EXIT_FAILED)
    return base, key, str(digest)


def fetch(run: Mapping[str, Any], out: pathlib.Path, evidence: bool = False,
          open_s3: Callable[[str], store_mod.S3Store] = store_mod.S3Store) -> Fetched:
    """Download results.json (checked), the report and, with ``evidence``, apps/."""
    base, key, digest = results_location(run)
    s3 = open_s3(base)
    data = s3.get_bytes(key)
    found = publishing.digest(data)
    if found != digest:
        raise DigestMismatch(f"{base}/{key} is {found}, but {_who(run)}'s status.results.digest is {digest}: "
                             "the store's copy changed after the run published it (a rescore under way, or "
                             "another writer); nothing was written")
    copied = syncing.download_tree(s3, REPORT, out / REPORT)
    if evidence:
        copied = copied.add(syncing.download_tree(s3, EVIDENCE, out / EVIDENCE))
    target = out / artifacts.RESULTS.key
    if target.is_file() and target.read_bytes() == data:
        return Fetched(results=target, copied=copied.add(syncing.Tally(kept=1)))
    store_mod.LocalStore(out).put_bytes(artifacts.RESULTS.key, data)  # last, and atomic
    return Fetched(results=target, copied=copied.add(syncing.Tally(sent=1, bytes=len(data))))
