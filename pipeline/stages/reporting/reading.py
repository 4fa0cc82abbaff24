"""Read one app's stored evidence for its report page.

A missing file is normal (a start failure has no trace); a file that does not parse
is a problem the page shows, never an exception that stops the report. This module
must not build HTML or write files.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, TypeVar

import pydantic

from iwcbench.pipeline.contracts import evidence, results, uitests

Reader = Callable[[str], "bytes | None"]
M = TypeVar("M", bound=pydantic.BaseModel)


@dataclasses.dataclass
class Evidence:
    prefix: str
    trace: evidence.Trace | None = None
    graph: evidence.StateGraph | None = None
    instrumentation: evidence.InstrumentationReport | None = None
    a11y: evidence.AccessibilityReport | None = None
    ui_tests: uitests.UITestReport | None = None
    case_traces: dict[int, evidence.Trace] = dataclasses.field(default_factory=dict)  # by case index
    problems: list[str] = dataclasses.field(default_factory=list)


def prefix_of(app: results.AppResult) -> str:
    return app.evidence.strip("/") or f"apps/{app.model}/{app.task_id}"


def _load(read: Reader, key: str, model: type[M], problems: list[str]) -> M | None:
    try:
        data = read(key)
    except Exception as exc:  # noqa: BLE001 — a store hiccup costs this file, not the report
        problems.append(f"{key} could not be read: {exc}")
        return None
    if data is None:
        return None
    try:
        return model.model_validate_json(data)
    except pydantic.ValidationError as exc:  # bad JSON too
        problems.append(f"{key} is not a valid {model.__name__}: {exc.error_count()} problem(s), "
                        f"first: {exc.errors()[0]['msg']}")
    return None


def read_evidence(app: results.AppResult, read: Reader) -> Evidence:
    prefix = prefix_of(app)
    found = Evidence(prefix=prefix)
    found.trace = _load(read, f"{prefix}/trace.json", evidence.Trace, found.problems)
    found.graph = _load(read, f"{prefix}/graph.json", evidence.StateGraph, found.problems)
    found.instrumentation = _load(read, f"{prefix}/instrument.json", evidence.InstrumentationReport,
                                  found.problems)
    found.a11y = _load(read, f"{prefix}/a11y.json", evidence.AccessibilityReport, found.problems)
    found.ui_tests = _load(read, f"{prefix}/uitests.json", uitests.UITestReport, found.problems)
    for case in found.ui_tests.cases if found.ui_tests else ():
        if case.trace and ".." not in case.trace.split("/"):
            trace = _load(read, f"{prefix}/{case.trace}", evidence.Trace, found.problems)
            if trace is not None:
                found.case_traces[case.index] = trace
    return found


def guarded(read: Reader) -> Reader:
    """``read`` that answers None instead of raising (a bad key, a store error)."""
    def reading(key: str) -> bytes | None:
        try:
            return read(key)
        except Exception:  # noqa: BLE001 — one missing picture must not stop the report
            return None
    return reading
