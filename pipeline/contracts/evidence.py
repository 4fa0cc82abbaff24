"""Evidence: what was observed about one app, stage by stage.

Layout in the store, under ``apps/<model>/<task_id>/``:

    instrument.json     InstrumentationReport
    coverage-map.json   Istanbul's initial file-coverage objects (its own format)
    trace.json          Trace
    coverage.json       final merged Istanbul coverage (its own format)
    a11y.json           AccessibilityReport
    graph.json          StateGraph (networkx node-link form)
    dom/NNNN.html       DOM snapshot after step NNNN
    shots/NNNN.png      screenshot after step NNNN (only when the state changed)
    result.json         AppResult (see results.py)
"""

from __future__ import annotations

from typing import Literal

import pydantic

from iwcbench.pipeline.contracts import base, layout

Framework = Literal["static", "vite", "next", "cra", "astro", "node", "unknown"]
Mode = Literal["instrumented", "black_box"]
# What building a build-framework app came to: built with Istanbul; built only without
# it (evaluated as a black box); not built at all (the app cannot start).
BuildResult = Literal["instrumented", "plain", "failed"]
ActionKind = Literal[
    "load", "click", "type", "select", "check", "hover", "drag", "key",
    "scroll", "back", "wait", "finish",
]


class AppRef(base.Model):
    """Where one generated app comes from."""

    model: str = pydantic.Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    task_id: str
    source: str  # local path or store URI of the folder / archive
    packaging: Literal["folder", "zip", "tar.gz"] = "folder"

    @property
    def key(self) -> str:
        """Store prefix of this app's evidence."""
        return layout.app_prefix(self.model, self.task_id)


class InstrumentedFile(base.Model):
    """One script Istanbul instrumented. ``path`` is relative to the app root;
    inline blocks are named ``index.html#inline-2``."""

    path: str
    kind: Literal["external", "inline", "module", "inline-module", "built"]  # built: by the app's bundler
    statements: int
    functions: int
    branches: int


class SkippedFile(base.Model):
    path: str
    reason: str


class BuildReport(base.Model):
    """How a build-framework app was installed and built. ``reason`` says what happened
    in one sentence (for ``plain`` and ``failed``: what went wrong, and where);
    ``log_tail`` is the end of the log of the first step that failed."""

    framework: Framework
    result: BuildResult
    reason: str
    install_s: float = 0.0  # seconds of npm ci
    build_s: float = 0.0  # seconds of building, every attempt
    log_tail: str = ""
    network_isolated: bool = False  # the builds ran with loopback only


class InstrumentationReport(base.Stored):
    framework: Framework
    mode: Mode
    reason: str  # why this mode; for black_box the cause a user can act on
    entry: str | None = "index.html"  # served path of the start page; None = none found
    files: tuple[InstrumentedFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    duration_s: float = 0.0
    build: BuildReport | None = None  # build frameworks without a prebuilt folder only

    @property
    def files_instrumented(self) -> int:
        return len(self.files)


class Action(base.Model):
    """What the explorer did. ``target`` is a human-readable description of the
    element (role, name, selector); ``intent`` is the LLM tester's stated goal."""

    kind: ActionKind
    target: str | None = None
    selector: str | None = None
    value: str | None = None
    intent: str | None = None

    def label(self) -> str:
        parts = [self.kind]
        if self.target:
            parts.append(self.target)
        if self.value is not None:
            parts.append(repr(self.value))
        return " ".join(parts)


class CoverageSummary(base.Model):
    """Cumulative coverage in percent (0–100); None when not measurable (black box)."""

    statements: float | None = None
    functions: float | None = None
    branches: float | None = None


class VolatileMark(base.Model):
    """An element of a step's DOM snapshot that changed while nobody acted: its own
    text, some attributes, or its children. ``path``: element-child indices from
    ``<html>`` ("" is ``<html>``, "1.0" its second child's first child)."""

    path: str
    text: bool = False
    attributes: tuple[str, ...] = ()
    children: bool = False


class Step(base.Model):
    index: int
    action: Action
    ok: bool = True  # False: the action itself could not be performed
    error: str | None = None  # why the action failed (not an app error)
    url: str
    dom: str | None = None  # store key relative to the app prefix, e.g. dom/0003.html
    screenshot: str | None = None  # shots/0003.png when the state changed
    coverage: CoverageSummary = CoverageSummary()
    coverage_gain: float = 0.0  # statement percentage points gained by this step
    console_errors: tuple[str, ...] = ()
    page_errors: tuple[str, ...] = ()
    blocked_requests: tuple[str, ...] = ()
    dialogs: tuple[str, ...] = ()  # "alert: text", "confirm: text", ...
    notes: tuple[str, ...] = ()  # e.g. "popup closed", "navigated away; returned"
    volatile: tuple[VolatileMark, ...] = ()  # in ``dom``: what changed by itself (not state)
    duration_s: float = 0.0


class Trace(base.Stored):
    explorer: Literal["heuristic", "llm"]
    seed: int
    max_steps: int
    start_url: str
    steps: tuple[Step, ...] = ()
    stop_reason: str = ""
    summary: str | None = None  # the LLM tester's final summary
    load_error: str | None = None  # the app never loaded: why
    duration_s: float = 0.0
    mirrored_requests: tuple[str, ...] = ()  # CDN URLs answered from the local mirror

    @property
    def final_coverage(self) -> CoverageSummary:
        return self.steps[-1].coverage if self.steps else CoverageSummary()


class AxeViolation(base.Model):
    id: str
    impact: Literal["minor", "moderate", "serious", "critical"] | None = None
    help: str = ""
    nodes: int = 0


class AccessibilityReport(base.Stored):
    """axe-core results for each distinct state it was run on (by step index)."""

    engine: str = "axe-core"
    version: str | None = None
    pages: dict[int, tuple[AxeViolation, ...]] = {}
    error: str | None = None


class StateNode(base.Model):
    id: str  # "S0", "S1", ... in order of first visit
    digest: str  # hash of the normalised DOM
    first_step: int
    steps: tuple[int, ...]  # every step that ended in this state
    dom: str | None = None
    screenshot: str | None = None
    title: str = ""
    url: str = ""


class StateEdge(base.Model):
    source: str
    target: str
    key: int = 0
    action: str  # Action.label()
    steps: tuple[int, ...]
    ok: bool = True


class StateGraph(base.Stored):
    """networkx node-link data (``edges="edges"``) of a MultiDiGraph."""

    directed: bool = True
    multigraph: bool = True
    graph: dict = {}
    nodes: tuple[StateNode, ...] = ()
    edges: tuple[StateEdge, ...] = ()
