"""An EvaluationRun read for a person: the short summary ``iwc status`` prints, the exit
code a script reads, and the waiting that ``iwc status --watch`` and ``iwc fetch --wait``
share. The summary is a pure function of the resource; the only I/O is reading the
resource through the cluster kit. It must not write to the API server or the store.
"""

from __future__ import annotations

import datetime
import time
from typing import Any, Callable, Mapping

from iwcbench.operator import api, tracking
from iwcbench.pipeline.kits import cluster as cluster_kit

# Exit codes of `iwc status` and `iwc fetch` (docs/kubernetes.md lists them)
EXIT_SUCCEEDED = 0
EXIT_FAILED = 1  # the run ended Failed
EXIT_USAGE = 2  # a bad flag
EXIT_NOT_ENDED = 3  # Pending, Running, Scoring or Suspended (and no --watch / --wait, or its --timeout passed)
EXIT_NOT_FOUND = 4  # no such EvaluationRun in the namespace
EXIT_DIGEST = 5  # `iwc fetch`: results.json is not the one the status names
EXIT_INFRA = 75  # the API server or the store could not be reached

# conditions worth a line: these when False, the others when True
_FINE_WHEN_TRUE = frozenset({"SpecValid", "AppsListed", "StoreOwned", "Admitted", "WithinBudget", "Complete"})
_TOLD_WHEN_TRUE = frozenset({"Failed", "Suspended", "Retried", "Rescored"})
_LONGEST = 160  # characters of a message shown


class NotFound(Exception):
    """No EvaluationRun of that name in that namespace."""


def read(cluster: cluster_kit.Cluster, namespace: str, name: str) -> dict[str, Any]:
    run = cluster.get(api.GROUP, api.VERSION, api.PLURAL, namespace, name)
    if run is None:
        raise NotFound(f"no EvaluationRun {name} in the namespace {namespace} (kubectl get evaluationruns -n {namespace})")
    return run


def status_of(run: Mapping[str, Any]) -> Mapping[str, Any]:
    return run.get("status") or {}


def phase_of(run: Mapping[str, Any]) -> str:
    return str(status_of(run).get("phase") or "Pending")


def exit_code(run: Mapping[str, Any]) -> int:
    phase = phase_of(run)
    return EXIT_SUCCEEDED if phase == "Succeeded" else EXIT_FAILED if phase == "Failed" else EXIT_NOT_ENDED


def _short(text: str, limit: int = _LONGEST) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def age(created: str | None, now: datetime.datetime) -> str:
    if not created:
        return "?"
    try:
        then = datetime.datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return "?"
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 3 * 3600:
        return f"{seconds // 60}m"
    if seconds < 2 * 86400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d"


def counts_text(status: Mapping[str, Any]) -> str:
    """``412/1200 ended: 409 succeeded, 3 failed; 20 active, 5 queued, 768 pending``."""
    c = status.get("counts") or {}
    total = int(c.get("total", 0))
    ended = int(c.get("succeeded", 0)) + int(c.get("failed", 0))
    waiting = ", ".join(f"{int(c.get(k, 0))} {k}" for k in ("active", "queued", "pending") if c.get(k))
    return (f"{ended}/{total} ended: {int(c.get('succeeded', 0))} succeeded, {int(c.get('failed', 0))} failed"
            + (f"; {waiting}" if waiting else ""))


def summary_line(run: Mapping[str, Any]) -> str:
    """One line per change, for ``--watch``."""
    status = status_of(run)
    cost = status.get("costUsd")
    return (f"{phase_of(run)}  {counts_text(status)}" + (f"  ${float(cost):.2f}" if cost is not None else ""))


def notable_conditions(status: Mapping[str, Any]) -> list[str]:
    found = []
    for c in status.get("conditions") or []:
        kind, state = c.get("type", ""), c.get("status")
        if (kind in _FINE_WHEN_TRUE and state == "False") or (kind in _TOLD_WHEN_TRUE and state == "True"):
            message = f": {_short(c['message'])}" if c.get("message") else ""
            found.append(f"{kind}={state} {c.get('reason', '')}{message}")
    return found


def _results_lines(status: Mapping[str, Any]) -> list[str]:
    lines = []
    summary = status.get("results") or {}
    if status.get("leader"):
        lines.append(f"leader     {status['leader']}")
    if status.get("resultsURI"):
        digest = str(summary.get("digest", ""))
        lines.append(f"results    {status['resultsURI']}" + (f" ({digest[:19]}…)" if digest else ""))
    rows = summary.get("leaderboard") or []
    if rows:
        board = "; ".join(f"{r.get('rank')} {r.get('model')} "
                          + (f"{float(r['overall']):+.3f}" if r.get("overall") is not None else "unranked")
                          for r in rows)
        named = f" ({summary['overallName']})" if summary.get("overallName") else ""
        lines.append(f"top        {board}{named}")
    return lines


def describe(run: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    """The status as a few short lines: phase and age, counts, round, cost, leader and
    results, the conditions that say something is wrong or special, recent failures."""
    meta, status, spec = run.get("metadata") or {}, status_of(run), run.get("spec") or {}
    phase = phase_of(run)
    lines = [f"EvaluationRun {meta.get('namespace', '?')}/{meta.get('name', '?')}: {phase}, "
             f"{age(meta.get('creationTimestamp'), now)} old"
             + ("" if status else " (the operator has not looked at it yet)")]
    lines.append(f"apps       {counts_text(status)}")
    if status.get("round"):
        lines.append(f"round      {status['round']} ({status.get('roundKind') or 'retry'})")
    if status.get("costUsd") is not None or spec.get("maxCost") is not None:
        limit = f" of maxCost ${float(spec['maxCost']):g}" if spec.get("maxCost") is not None else ""
        lines.append(f"cost       ${float(status.get('costUsd') or 0):.2f}{limit}")
    lines += _results_lines(status)
    lines += [f"condition  {c}" for c in notable_conditions(status)]
    failures = status.get("failures") or []
    if failures:
        failed = int((status.get("counts") or {}).get("failed", 0)) or len(failures)
        lines.append(f"failures   {failed} app Job{'' if failed == 1 else 's'} failed; the latest:")
        for f in failures[:5]:
            message = f": {_short(f['message'], 100)}" if f.get("message") else ""
            lines.append(f"  {f.get('app')}  {f.get('reason', 'Failed')}{message}  (job {f.get('job')})")
    return lines


def follow(read_run: Callable[[], dict[str, Any]], on_change: Callable[[dict[str, Any]], None],
           interval_s: float = 5.0, timeout_s: float | None = None,
           sleep: Callable[[float], None] = time.sleep,
           clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
    """Read the run until it ends (Succeeded or Failed) or ``timeout_s`` passes; call
    ``on_change`` whenever its summary line changes. The last run read."""
    deadline = None if timeout_s is None else clock() + timeout_s
    shown = None
    while True:
        run = read_run()
        line = summary_line(run)
        if line != shown:
            on_change(run)
            shown = line
        if phase_of(run) in tracking.TERMINAL or (deadline is not None and clock() >= deadline):
            return run
        sleep(interval_s if deadline is None else max(0.0, min(interval_s, deadline - clock())))
