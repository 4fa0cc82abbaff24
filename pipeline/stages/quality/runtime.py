"""Runtime metrics: 4 console errors (over the trace it is given: the load alone, or the
whole exploration), 15 resource validity
(definitions in contracts/metrics.py).

Pure: the trace, the phone load's requests and the link checks in, scores out.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Iterable, Mapping, Sequence

from iwcbench.pipeline.contracts import evidence, metrics

ERROR_BASE = 0.8
PAGE_ERROR_UNITS = 2  # an uncaught exception stops a handler; a console.error may not
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")
ANSWERED, BROKEN, BLOCKED = "answered", "broken", "blocked"
_RANK = {ANSWERED: 0, BROKEN: 1, BLOCKED: 2}


def fold(message: str) -> str:
    """A message with URLs and numbers folded, so one bug repeated is one error."""
    return " ".join(_NUMBER.sub("N", _URL.sub("URL", message)).split()).lower()


def _distinct(messages: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for m in messages:
        if m.startswith("… and "):
            continue
        seen.setdefault(fold(m), m)
    return list(seen.values())


def console_errors(trace: evidence.Trace | None) -> metrics.Score:
    name = "wcb_console_errors"
    if trace is None or not trace.steps:
        return metrics.score(name, None, "not measured: nothing was loaded")
    page = _distinct(e for s in trace.steps for e in s.page_errors)
    console = _distinct(e for s in trace.steps for e in s.console_errors)
    units = PAGE_ERROR_UNITS * len(page) + len(console)
    value = 100.0 * ERROR_BASE ** units
    steps = [f"step {s.index}" for s in trace.steps if s.page_errors or s.console_errors]
    unlisted = sum(s.unlisted.page_errors + s.unlisted.console_errors for s in trace.steps)
    lines = sum(s.unlisted.console_lines for s in trace.steps)
    more = (f"; {unlisted:,} more errors counted, not listed (not told apart)" if unlisted else "") + (
        f"; the page flooded its console: {lines:,} lines counted, not kept" if lines else "")
    over = "at load (step 0)" if len(trace.steps) == 1 else f"over {len(trace.steps)} steps"
    return metrics.score(
        name, round(value, 2),
        f"{len(page)} distinct uncaught page error{'s' * (len(page) != 1)} and {len(console)} distinct console "
        f"error{'s' * (len(console) != 1)} {over}{more}",
        steps, {"page_errors": page[:20], "console_errors": console[:20], "units": units})


def _key(url: str) -> str:
    return url.split("#", 1)[0]


def outcomes(trace: evidence.Trace | None, requests: Sequence[tuple[str, int | None, str | None]],
             links: Mapping[str, bool]) -> dict[str, str]:
    """URL → answered / broken / blocked; a URL seen more than once keeps its worst."""
    found: dict[str, str] = {}

    def note(url: str, outcome: str) -> None:
        if not url or url.startswith(("data:", "blob:", "about:", "chrome-extension:")) or url.startswith("… and "):
            return
        key = _key(url)
        if key not in found or _RANK[outcome] > _RANK[found[key]]:
            found[key] = outcome

    for step in trace.steps if trace else ():
        for record in step.blocked_requests:
            note(record.rsplit(" (", 1)[0], BLOCKED)
    for record in trace.mirrored_requests if trace else ():
        note(record.split(" -> ", 1)[0], ANSWERED)
    for url, status, failure in requests:
        if failure is not None:
            blocked = "BLOCKED_BY_CLIENT" in failure.upper() or "sandbox" in failure or "guard" in failure
            note(url, BLOCKED if blocked else BROKEN)
        else:
            note(url, ANSWERED if status is not None and status < 400 else BROKEN)
    for url, exists in links.items():
        note(url, ANSWERED if exists else BROKEN)
    return found


def resource_validity(trace: evidence.Trace | None, requests: Sequence[tuple[str, int | None, str | None]],
                      links: Mapping[str, bool], loaded: bool) -> metrics.Score:
    """Share of the resources and links the app requested that were answered, over those
    our sandbox let through: a request it refused (an outside host, a CDN file the mirror
    lacks) is ``blocked_by_sandbox``, left out and listed, never counted as invalid (the
    paper asks whether a resource is valid, which a blocked one may well be)."""
    name = "wcb_resource_validity"
    if not loaded and not (trace and trace.steps):
        return metrics.score(name, None, "not measured: the app was not loaded")
    found = outcomes(trace, requests, links)
    if not found:
        return metrics.score(name, None, "not measured: no request was recorded")
    counts = {o: sum(1 for v in found.values() if v == o) for o in (ANSWERED, BROKEN, BLOCKED)}
    blocked = sorted(u for u, o in found.items() if o == BLOCKED)
    hosts = sorted({urllib.parse.urlsplit(u).netloc for u in blocked})
    left_out = (f"{len(blocked)} blocked by our sandbox left out (to {', '.join(hosts[:3])}"
                f"{' …' if len(hosts) > 3 else ''})" if blocked else "")
    raw = {ANSWERED: counts[ANSWERED], BROKEN: counts[BROKEN], "blocked_by_sandbox": blocked[:30]}
    judged = counts[ANSWERED] + counts[BROKEN]
    if not judged:
        return metrics.score(name, None, f"not measured: every resource the app requested was outside our "
                             f"sandbox ({left_out})", blocked[:8], raw)
    broken = sorted(u for u, o in found.items() if o == BROKEN)
    reason = (f"{counts[ANSWERED]} of {judged} distinct resources and links answered; {counts[BROKEN]} broken"
              + (f"; {left_out}" if left_out else ""))
    return metrics.score(name, round(100.0 * counts[ANSWERED] / judged, 2), reason, broken[:8],
                         {**raw, "bad": {u: BROKEN for u in broken[:30]}})
