"""Crediting coverage only where V8 saw the code run.

``window.__coverage__`` lives in the page, so the page can write it: setting every
counter to 1 would claim code that never ran. V8's precise coverage (kits/devtools.py)
cannot be written by the page. Instrumenting records, per coverage key, where each
Istanbul counter is incremented in the served code and that code's SHA-256
(pipeline/js/sites.js, ``sites.json``). A counter is credited when Istanbul counts it
*and* V8 ran its increment site in a script whose hash is the genuine one — a modified
copy the page evals (even one claiming the file's URL) has another hash and proves
nothing. A counter with several sites (the app's source spelled an increment out) is
confirmed only when all of them ran. Keys without sites are not credited. A framework build's bundle holds many keys, each
with the bundle's hash (sites.js, builtSitesOf); a page's handler attributes are one
script each, so that key's sites are a list, one entry per script.

Pure functions on plain data: ``sites`` as in sites.json, V8 coverage as
``Profiler.takePreciseCoverage`` gives ``functions`` (lists of ranges with counts).
"""

from __future__ import annotations

from typing import Any, Iterable

Counter = tuple[str, str, str, int]  # (coverage key, "s" | "f" | "b", id, arm; -1 for s and f)


def _site_list(sites_of_key: dict) -> list[tuple[Counter, list[int]]]:
    """(counter without its key, offsets) pairs of one key's sites."""
    found: list[tuple[Counter, list[int]]] = []
    for kind in ("s", "f"):
        for cid, offsets in (sites_of_key.get(kind) or {}).items():
            found.append((("", kind, str(cid), -1), list(offsets)))
    for bid, arms in (sites_of_key.get("b") or {}).items():
        for arm, offsets in enumerate(arms):
            found.append((("", "b", str(bid), arm), list(offsets)))
    return found


def counts_at(functions: list[dict], offsets: Iterable[int]) -> dict[int, int]:
    """V8's execution count at each offset: that of the innermost range containing it
    (V8's ranges nest; a function it does not list lies in a range whose count says
    whether it could have run)."""
    ranges = sorted(((r["startOffset"], r["endOffset"], r["count"]) for f in functions
                     for r in f.get("ranges", ())), key=lambda r: (r[0], -r[1]))
    result: dict[int, int] = {}
    stack: list[tuple[int, int, int]] = []
    i = 0
    for offset in sorted(set(offsets)):
        while i < len(ranges) and ranges[i][0] <= offset:
            while stack and stack[-1][1] <= ranges[i][0]:
                stack.pop()
            stack.append(ranges[i])
            i += 1
        while stack and stack[-1][1] <= offset:
            stack.pop()
        result[offset] = stack[-1][2] if stack else 0
    return result


def entries(info: Any) -> list[dict]:
    """The scripts one key's sites are in: one dict, or a list of them (a page's
    handler attributes are one script each)."""
    parts = info if isinstance(info, list) else [info]
    return [p for p in parts if isinstance(p, dict) and p.get("sha256")]


def hashes(sites: dict) -> frozenset[str]:
    """Every script hash the sites name: the scripts whose V8 coverage matters."""
    return frozenset(e["sha256"] for info in sites.values() for e in entries(info))


def confirmations(sites: dict, takes: Iterable[tuple[str, list[dict]]]) -> set[Counter]:
    """Counters whose every site in one script ran, from V8 coverage ``takes``:
    (script SHA-256, functions) pairs, several scripts with the same hash each one pair."""
    by_hash: dict[str, list[tuple[str, int, dict]]] = {}  # a framework's bundle holds many keys' counters
    for key, info in sites.items():
        for n, entry in enumerate(entries(info)):
            by_hash.setdefault(entry["sha256"], []).append((key, n, entry))
    ran: dict[tuple[str, int], tuple[dict, set[int]]] = {}
    for digest, functions in takes:
        for key, n, entry in by_hash.get(digest, ()):
            offsets = [o for _, offs in _site_list(entry) for o in offs]
            executed = ran.setdefault((key, n), (entry, set()))[1]
            executed.update(o for o, c in counts_at(functions, offsets).items() if c > 0)
    confirmed: set[Counter] = set()
    for (key, _), (entry, executed) in ran.items():
        for (_, kind, cid, arm), offsets in _site_list(entry):
            if offsets and all(o in executed for o in offsets):
                confirmed.add((key, kind, cid, arm))
    return confirmed


def claims(coverage: dict) -> dict[Counter, float]:
    """Every counter Istanbul reports as run (count > 0), with its count."""
    found: dict[Counter, float] = {}
    for key, data in coverage.items():
        if not isinstance(data, dict):
            continue
        for kind in ("s", "f"):
            for cid, value in (data.get(kind) or {}).items():
                if _number(value) > 0:
                    found[(key, kind, str(cid), -1)] = _number(value)
        for bid, arms in (data.get("b") or {}).items():
            for arm, value in enumerate(arms if isinstance(arms, list) else ()):
                if _number(value) > 0:
                    found[(key, "b", str(bid), arm)] = _number(value)
    return found


def credit(coverage: dict, confirmed: set[Counter]) -> dict:
    """``coverage`` with every counter V8 did not confirm set to 0 (inputs untouched)."""
    credited: dict = {}
    for key, data in coverage.items():
        if not isinstance(data, dict):
            continue
        copy = dict(data)
        for kind in ("s", "f"):
            copy[kind] = {cid: (value if (key, kind, str(cid), -1) in confirmed else 0)
                          for cid, value in (data.get(kind) or {}).items()}
        copy["b"] = {bid: [(value if (key, "b", str(bid), arm) in confirmed else 0)
                           for arm, value in enumerate(arms)]
                     for bid, arms in (data.get("b") or {}).items() if isinstance(arms, list)}
        credited[key] = copy
    return credited


def _number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
