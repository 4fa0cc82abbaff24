"""Read one app's stored evidence for its report page.

A missing file is normal (a start failure has no trace); a file that does not parse
is a problem the page shows, never an exception that stops the report. This module
must not build HTML or write files.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, TypeVar

import pydantic

from iwcbench.pipeline.contracts import artifacts, evidence, results, uitests

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


def _load(files: artifacts.Reader, key: str, artifact: artifacts.Artifact[M], problems: list[str]) -> M | None:
    try:
        return files.load_at(key, artifact)
    except artifacts.Unreadable as exc:  # bad JSON too
        problems.append(str(exc))
    except Exception as exc:  # noqa: BLE001 - a store hiccup costs this file, not the report
        problems.append(f"{files.full(key)} could not be read: {exc}")
    return None


def read_trace(app: results.AppResult, run: artifacts.Reader) -> tuple[str, evidence.Trace | None]:
    """The app's evidence prefix and its trace alone (None when absent or unreadable:
    its page will say which)."""
    prefix = prefix_of(app)
    return prefix, _load(run.under(prefix), artifacts.TRACE.key, artifacts.TRACE, [])


def read_evidence(app: results.AppResult, run: artifacts.Reader) -> Evidence:
    prefix = prefix_of(app)
    files = run.under(prefix)
    found = Evidence(prefix=prefix)
    for field, artifact in (("trace", artifacts.TRACE), ("graph", artifacts.GRAPH),
                            ("instrumentation", artifacts.INSTRUMENT), ("a11y", artifacts.ACCESSIBILITY),
                            ("ui_tests", artifacts.UI_TESTS)):
        setattr(found, field, _load(files, artifact.key, artifact, found.problems))
    for case in found.ui_tests.cases if found.ui_tests else ():
        if case.trace and ".." not in case.trace.split("/"):
            trace = _load(files, case.trace, artifacts.TRACE, found.problems)
            if trace is not None:
                found.case_traces[case.index] = trace
    return found


def guarded(read: Reader) -> Reader:
    """``read`` that answers None instead of raising (a bad key, a store error)."""
    def reading(key: str) -> bytes | None:
        try:
            return read(key)
        except Exception:  # noqa: BLE001 - one missing picture must not stop the report
            return None
    return reading
