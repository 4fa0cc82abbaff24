"""Coverage math on Istanbul's own data: merging snapshots, percentages, what is left.

Everything here is pure (no I/O, no clock) and works on plain dicts in Istanbul's
format: ``{key: {"path", "statementMap", "fnMap", "branchMap", "s", "f", "b", ...}}``,
as read from ``window.__coverage__`` or from instrumenting's ``coverage-map.json``.
Counter ids may be strings ("0") as in JSON. Inputs are never mutated; merged results
share the (read-only) location maps with their inputs instead of copying them.
"""

from __future__ import annotations

from typing import Any, Iterable

from iwcbench.pipeline.contracts import evidence

SNIPPET_LINES = 8  # lines of source shown for one uncovered item
SNIPPET_CHARS = 600  # characters of source shown for one uncovered item


def merge(total: dict, snapshot: dict) -> dict:
    """``total`` combined with ``snapshot`` counter by counter, keeping the larger count.

    Counts restart when a page is reloaded, so summing would double-count; the
    maximum keeps "covered" exact across page loads. Files only the snapshot knows
    are added."""
    merged = dict(total)
    for key, fresh in snapshot.items():
        if not isinstance(fresh, dict):
            continue
        old = merged.get(key)
        if not isinstance(old, dict):
            merged[key] = fresh
            continue
        combined = dict(old)
        combined["s"] = _max_counts(old.get("s", {}), fresh.get("s", {}))
        combined["f"] = _max_counts(old.get("f", {}), fresh.get("f", {}))
        combined["b"] = _max_arms(old.get("b", {}), fresh.get("b", {}))
        merged[key] = combined
    return merged


def with_counts(coverage_map: dict, counters: dict) -> dict:
    """Istanbul's full format again: each file of ``coverage_map`` (and any file only
    the counters know) with the counters read from the page (``s``, ``f``, ``b``)."""
    full = {}
    for key, initial in coverage_map.items():
        counts = counters.get(key)
        full[key] = {**initial, **{m: counts[m] for m in ("s", "f", "b") if isinstance(counts, dict) and m in counts}}
    for key, counts in counters.items():
        if key not in full and isinstance(counts, dict):
            full[key] = counts
    return full


def own_code(coverage_map: dict, vendored: dict) -> dict:
    """``coverage_map`` without the library code instrumenting recognised
    (``vendored``: key -> {"s", "f", "b"}: vendored counter ids); a file that is all
    library code is left out."""
    own = {}
    for key, initial in coverage_map.items():
        found = vendored.get(key)
        if not found:
            own[key] = initial
            continue
        drop = {metric: {str(i) for i in found.get(metric, ())} for metric in ("s", "f", "b")}
        kept = dict(initial)
        for metric, field in (("s", "statementMap"), ("f", "fnMap"), ("b", "branchMap")):
            kept[field] = {i: v for i, v in (initial.get(field) or {}).items() if str(i) not in drop[metric]}
            kept[metric] = {i: v for i, v in (initial.get(metric) or {}).items() if str(i) not in drop[metric]}
        if kept["statementMap"] or kept["fnMap"] or kept["branchMap"]:
            own[key] = kept
    return own


def summarize(coverage: dict, coverage_map: dict) -> evidence.CoverageSummary:
    """Percent of statements, functions and branch arms covered over every file of
    ``coverage_map`` (a file never loaded counts as wholly uncovered); None for a
    metric with nothing to cover."""
    totals = {"s": [0, 0], "f": [0, 0], "b": [0, 0]}  # metric -> [covered, total]
    for key, initial in coverage_map.items():
        seen = coverage.get(key) or {}
        for metric, where in (("s", "statementMap"), ("f", "fnMap")):
            counts = seen.get(metric) or {}
            ids = initial.get(where) or {}
            totals[metric][1] += len(ids)
            totals[metric][0] += sum(1 for i in ids if _count(counts, i) > 0)
        arms_seen = seen.get("b") or {}
        for bid, arms in (initial.get("b") or {}).items():
            hits = _lookup(arms_seen, bid) or []
            totals["b"][1] += len(arms)
            totals["b"][0] += sum(1 for i in range(len(arms)) if i < len(hits) and _number(hits[i]) > 0)

    def percent(metric: str) -> float | None:
        covered, total = totals[metric]
        return 100.0 * covered / total if total else None

    return evidence.CoverageSummary(statements=percent("s"), functions=percent("f"), branches=percent("b"))


def summarize_both(coverage: dict, coverage_map: dict, own_map: dict) -> evidence.CoverageSummary:
    """Totals over ``coverage_map`` and own-code figures over ``own_map``."""
    total = summarize(coverage, coverage_map)
    own = total if own_map is coverage_map else summarize(coverage, own_map)
    return total.model_copy(update={"own_statements": own.statements, "own_functions": own.functions,
                                    "own_branches": own.branches})


FUNCTION_TEXT_CHARS = 120  # of a function's first line, shown beside it


def per_file(coverage: dict, coverage_map: dict, sources: dict[str, str]
             ) -> dict[str, tuple[evidence.CoverageSummary, tuple[evidence.FunctionRun, ...]]]:
    """Each file of ``coverage_map``: the percent of its statements, functions and
    branch arms that ran, and each of its functions in source order with its lines in
    the source as written (a component's template handler on its template line) and
    how often it ran."""
    found = {}
    for key, initial in coverage_map.items():
        summary = summarize({key: coverage.get(key) or {}}, {key: initial})
        calls = (coverage.get(key) or {}).get("f") or {}
        lines = sources.get(key, "").splitlines()
        runs = []
        for fid, fn in _by_position((initial.get("fnMap") or {}).items(), "loc"):
            start, end = _lines(fn.get("loc"))
            text = lines[start - 1].strip() if 1 <= start <= len(lines) else ""
            if len(text) > FUNCTION_TEXT_CHARS:
                text = text[:FUNCTION_TEXT_CHARS] + "…"
            runs.append(evidence.FunctionRun(name=fn.get("name") or "(anonymous)", line=start, end_line=end,
                                             calls=int(_count(calls, fid)), text=text))
        found[key] = (summary, tuple(runs))
    return found


def uncovered(coverage: dict, coverage_map: dict, sources: dict[str, str], limit: int) -> list[dict]:
    """Up to ``limit`` uncovered functions and statements, for a reader of the code.

    Each item: ``{"file", "kind": "function" | "statement", "name", "start_line",
    "end_line", "snippet"}`` (lines are 1-based; ``snippet`` is the source text of
    those lines, shortened, or "" when the source is unknown). Files the app loaded
    come first; statements inside an uncovered function are not listed again."""
    if limit <= 0:
        return []
    loaded = [k for k in coverage_map if k in coverage]
    order = loaded + [k for k in coverage_map if k not in coverage]
    found: list[dict] = []
    for key in order:
        initial = coverage_map[key]
        seen = coverage.get(key) or {}
        lines = sources.get(key, "").splitlines()
        dead_functions: list[tuple[int, int]] = []
        items: list[dict] = []
        for fid, fn in _by_position((initial.get("fnMap") or {}).items(), "loc"):
            if _count(seen.get("f") or {}, fid) > 0:
                continue
            start, end = _lines(fn.get("loc"))
            dead_functions.append((start, end))
            items.append(_item(key, "function", fn.get("name") or "(anonymous)", start, end, lines))
        for sid, loc in _by_position((initial.get("statementMap") or {}).items(), None):
            if _count(seen.get("s") or {}, sid) > 0:
                continue
            start, end = _lines(loc)
            if any(a <= start and end <= b for a, b in dead_functions):
                continue
            items.append(_item(key, "statement", None, start, end, lines))
        items.sort(key=lambda item: (item["start_line"], item["kind"] != "function"))
        found.extend(items)
        if len(found) >= limit:
            break
    return found[:limit]


def _item(key: str, kind: str, name: str | None, start: int, end: int, lines: list[str]) -> dict:
    shown = lines[start - 1:min(end, start - 1 + SNIPPET_LINES)] if start >= 1 else []
    snippet = "\n".join(shown).strip("\n")
    if end - start + 1 > SNIPPET_LINES and shown:
        snippet += "\n…"
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[:SNIPPET_CHARS] + "…"
    return {"file": key, "kind": kind, "name": name, "start_line": start, "end_line": end, "snippet": snippet}


def _by_position(entries: Iterable[tuple[str, dict]], field: str | None) -> list[tuple[str, dict]]:
    def where(entry: tuple[str, dict]) -> tuple[int, int]:
        loc = entry[1].get(field) if field else entry[1]
        start = (loc or {}).get("start") or {}
        return (start.get("line") or 0, start.get("column") or 0)

    return sorted(entries, key=where)


def _lines(loc: dict | None) -> tuple[int, int]:
    loc = loc or {}
    start = (loc.get("start") or {}).get("line") or 0
    end = (loc.get("end") or {}).get("line") or start
    return start, max(start, end)


def _max_counts(old: dict, fresh: dict) -> dict:
    combined = dict(old)
    for cid, value in fresh.items():
        combined[cid] = max(_number(combined.get(cid)), _number(value))
    return combined


def _max_arms(old: dict, fresh: dict) -> dict:
    combined = dict(old)
    for bid, arms in fresh.items():
        before = combined.get(bid) or []
        if not isinstance(arms, list):
            continue
        width = max(len(before), len(arms))
        combined[bid] = [
            max(_number(before[i]) if i < len(before) else 0, _number(arms[i]) if i < len(arms) else 0)
            for i in range(width)
        ]
    return combined


def _lookup(counts: dict, cid: str | int) -> Any:
    # JSON gives string ids; data built in Python may use ints.
    if cid in counts:
        return counts[cid]
    other = str(cid) if not isinstance(cid, str) else (int(cid) if cid.isdigit() else None)
    return counts.get(other) if other is not None else None


def _count(counts: dict, cid: str | int) -> float:
    return _number(_lookup(counts, cid))


def _number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
