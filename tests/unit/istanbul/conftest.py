"""Small hand-made Istanbul file-coverage objects (the shape window.__coverage__ has)."""

from __future__ import annotations

import copy

import pytest


def _loc(line: int, end_line: int | None = None) -> dict:
    return {"start": {"line": line, "column": 0}, "end": {"line": end_line or line, "column": 10}}


def file_coverage(path: str, statements: int, functions: int, arms: list[int]) -> dict:
    """Initial (all-zero) coverage: statement i on line i+1, function i spanning
    lines 10i+1..10i+3, branch i with ``arms[i]`` arms."""
    return {
        "path": path,
        "statementMap": {str(i): _loc(i + 1) for i in range(statements)},
        "fnMap": {
            str(i): {"name": f"fn{i}", "decl": _loc(10 * i + 1), "loc": _loc(10 * i + 1, 10 * i + 3), "line": 10 * i + 1}
            for i in range(functions)
        },
        "branchMap": {
            str(i): {"loc": _loc(1), "type": "if", "locations": [_loc(1)] * n, "line": 1}
            for i, n in enumerate(arms)
        },
        "s": {str(i): 0 for i in range(statements)},
        "f": {str(i): 0 for i in range(functions)},
        "b": {str(i): [0] * n for i, n in enumerate(arms)},
    }


def hit(coverage: dict, key: str, s: dict | None = None, f: dict | None = None, b: dict | None = None) -> dict:
    """A copy of ``coverage`` with some counters of one file set."""
    out = copy.deepcopy(coverage)
    fc = out[key]
    for cid, n in (s or {}).items():
        fc["s"][str(cid)] = n
    for cid, n in (f or {}).items():
        fc["f"][str(cid)] = n
    for cid, counts in (b or {}).items():
        fc["b"][str(cid)] = list(counts)
    return out


@pytest.fixture(name="file_coverage")
def file_coverage_fixture():
    return file_coverage


@pytest.fixture(name="hit")
def hit_fixture():
    return hit


@pytest.fixture()
def coverage_map() -> dict:
    return {
        "app.js": file_coverage("app.js", statements=4, functions=2, arms=[2, 2]),
        "index.html#inline-1": file_coverage("index.html#inline-1", statements=4, functions=0, arms=[]),
        "never.js": file_coverage("never.js", statements=2, functions=2, arms=[2]),
    }
