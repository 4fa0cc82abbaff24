"""Evidence: what was observed about one app, stage by stage.

The models of an app's evidence (instrument.json, trace.json, a11y.json, graph.json);
where each is stored and who makes it is declared in artifacts.py (docs/store.md).
"""

from __future__ import annotations

from typing import Literal

import pydantic

from iwcbench.pipeline.contracts import base, layout, settings

Framework = Literal["static", "vite", "next", "cra", "astro", "sveltekit", "react-router", "remix", "angular", "nuxt", "qwik", "solid-start", "node", "unknown"]
Mode = Literal["instrumented", "black_box"]
# What building a build-framework app came to: built with Istanbul; built only without
# it (evaluated as a black box); not built at all (the app cannot start).
BuildResult = Literal["instrumented", "plain", "failed"]
ActionKind = Literal[
    "load", "click", "type", "select", "check", "hover", "drag", "key",
    "scroll", "back", "wait", "route", "resize", "finish", "upload",
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


class CoverageSummary(base.Model):
    """Cumulative coverage in percent (0–100); None when not measurable (black box).
    ``own_*`` count the app's own code only, without recognised library code
    (InstrumentedFile.vendored); they equal the totals when there is none. Scores
    use the own-code figures."""

    statements: float | None = None
    functions: float | None = None
    branches: float | None = None
    own_statements: float | None = None
    own_functions: float | None = None
    own_branches: float | None = None


class FunctionRun(base.Model):
    """One function of an instrumented file and how often it ran. ``line``..``end_line``
    are lines of the source as written: for a component's template handler
    (``@click="…"``, ``onclick={…}``) the template lines it compiled from, as far as the
    framework's source map goes; ``text`` is its first line there, shortened ("" when
    the source is unknown)."""

    name: str
    line: int
    end_line: int
    calls: int
    text: str = ""


class InstrumentedFile(base.Model):
    """One script Istanbul instrumented. ``path`` is relative to the app root;
    inline blocks are named ``index.html#inline-2``, a page's inline event-handler
    attributes together ``index.html#handlers``."""

    path: str
    kind: Literal["external", "inline", "module", "inline-module", "handlers", "built"]  # built: by the app's bundler
    statements: int
    functions: int
    branches: int
    # Why some or all of it is library code, not the app's own (a source map that
    # points into node_modules, a library banner); None: all the app's own, and the
    # own_* counts are None (they equal the totals).
    vendored: str | None = None
    own_statements: int | None = None
    own_functions: int | None = None
    own_branches: int | None = None
    # After exploring (None before it, or black box): the percent of this file's
    # statements, functions and branch arms that ran, and each of its functions where
    # its author wrote it (runs/app.py, from the final coverage)
    covered: CoverageSummary | None = None
    function_runs: tuple[FunctionRun, ...] = ()
    # "server": only the app's own server runs this file (a load function, a form
    # action, a loader module); its counters came from the server, not the page
    side: Literal["server"] | None = None

    def own(self, metric: str) -> int:
        """How many ``metric`` ("statements", "functions", "branches") are the app's own."""
        count = getattr(self, f"own_{metric}")
        return getattr(self, metric) if count is None else count


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
    # for ``failed``: whose the failure is. "environment": this sandbox's limits (the build
    # needs a network service; a dependency comes from git or another host, and installs
    # reach one registry), so the app is not runnable here (outcome not_runnable); "app":
    # the app's own defect (start_failed)
    cause: Literal["app", "environment"] = "app"


class InstrumentationReport(base.Stored):
    framework: Framework
    mode: Mode
    reason: str  # why this mode; for black_box the cause a user can act on
    entry: str | None = "index.html"  # served path of the start page; None = none found
    files: tuple[InstrumentedFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    duration_s: float = 0.0
    build: BuildReport | None = None  # build frameworks without a prebuilt folder only
    # Seconds to the load event, each build loaded warm after exploring (None: not
    # measured — black box, or a build that did not load). Goal: at most 1.5 × original.
    load_time_s: float | None = None
    original_load_time_s: float | None = None

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
        parts: list[str] = [self.kind]
        if self.target:
            parts.append(self.target)
        if self.value is not None:
            parts.append(repr(self.value))
        return " ".join(parts)


class Choice(base.Model):
    """Why the heuristic policy chose a step's action. ``how``: "scored" (the best
    score among ``options``), "form fill" (scored: the form's button, whose form is
    filled before it is pressed again; this step fills the first field), "random" (the
    seeded EPSILON pick), "stalled" (the random clicker's pick: coverage stopped rising),
    "follow-up" (what completes an earlier action: the form's next field, Enter after
    typing), "llm" (the LLM tester's step: the assisted policy asked it where coverage
    stalled; its reason is the action's intent). A scored choice keeps the chosen option's non-zero
    terms (docs/heuristic.md: name → points, their sum its score) and the runner-up's,
    the best other option, as offered (before its value was chosen)."""

    how: Literal["scored", "form fill", "random", "stalled", "follow-up", "llm"]
    options: int = 0  # options offered (0: not offered, a follow-up)
    score: float | None = None
    terms: dict[str, float] = {}
    runner_up: Action | None = None
    runner_up_score: float | None = None
    runner_up_terms: dict[str, float] = {}


class VolatileMark(base.Model):
    """An element of a step's DOM snapshot that changed while nobody acted: its own
    text, some attributes, or its children. ``path``: element-child indices from
    ``<html>`` ("" is ``<html>``, "1.0" its second child's first child)."""

    path: str
    text: bool = False
    attributes: tuple[str, ...] = ()
    children: bool = False


class Unlisted(base.Model):
    """What a step counted but did not list: errors past the per-step list, and what the
    page said past its bounds (kits/page/quiet.mjs), console lines of any kind included."""

    console_errors: int = 0
    page_errors: int = 0
    console_lines: int = 0

    @classmethod
    def of(cls, counts: dict[str, int]) -> Unlisted:
        return cls(**{k: v for k, v in counts.items() if k in cls.model_fields})


class Looks(base.Model):
    """What a step left beside its DOM, read after it (stages/exploring/effects.mjs):
    fingerprints of the data the app keeps (localStorage, sessionStorage, cookies; ""
    none) and of its canvases' pixels ("" none read); how many
    canvases could not be read (WebGL drawn straight to the screen reads back blank); and
    whether the canvases drew while nobody acted (then a change cannot be told from the
    action's). Abstracting compares them with the step before's (the action's effects)."""

    kept: str = ""
    pixels: str = ""
    unread: int = 0
    drawing: bool = False


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
    unlisted: Unlisted = Unlisted()  # counted past the lists above ("… and N more")
    blocked_requests: tuple[str, ...] = ()
    dialogs: tuple[str, ...] = ()  # "alert: text", "confirm: text", ...
    notes: tuple[str, ...] = ()  # e.g. "popup closed", "navigated away; returned"
    volatile: tuple[VolatileMark, ...] = ()  # in ``dom``: what changed by itself (not state)
    # None: not read (the page was lost, or a trace from before they were recorded)
    looks: Looks | None = None
    requests: int = 0  # requests its pages sent during the step (fetch, XHR, beacon, socket, document)
    # its action's element is a canvas (True: its effect shows in pixels) or another one
    # (False: in the DOM and what the app keeps); None: not known (no element, one the look
    # before did not list, or a trace from before this was recorded)
    on_canvas: bool | None = None
    choice: Choice | None = None  # why the policy chose the action (the heuristic's; None: another policy)
    duration_s: float = 0.0


class Trace(base.Stored):
    explorer: settings.PolicyName  # uitest/replay: a UI test case
    seed: int
    max_steps: int
    start_url: str
    steps: tuple[Step, ...] = ()
    stop_reason: str = ""
    summary: str | None = None  # the LLM tester's final summary
    load_error: str | None = None  # the app never loaded: why
    duration_s: float = 0.0
    mirrored_requests: tuple[str, ...] = ()  # CDN URLs answered from the local mirror
    # the page had Playwright's clock: "fast:ms" waits and holds ran its timers ahead
    virtual_time: bool = False
    # parts of the harness switched off for this app, each with why: the page stopped
    # responding under them while its original build answered the same action
    # ("step 12: crediting and clock off: …"); the steps after ran without them
    lightened: tuple[str, ...] = ()
    # seconds per part of the exploration (launch, start, load, choose, act, settle,
    # observe, coverage, crediting, screenshot, snapshot, axe, load-times), each without
    # the parts inside it: where exploring's time went (hack/bench)
    parts: dict[str, float] = {}
    # how the steps after an action ended their wait for the page: "quiet" (a frame with
    # no DOM mutation and nothing pending) or "cap" (settle_cap_ms of waiting, or of the
    # page's time under Playwright's clock), steps counted
    settled: dict[str, int] = {}
    settle_cap_ms: int | None = None

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
    # of its steps: those whose action changed nothing a user can see or the app keeps,
    # and those for which that cannot be told (abstracting.effects)
    idle: tuple[int, ...] = ()
    unsure: tuple[int, ...] = ()


class StateGraph(base.Stored):
    """networkx node-link data (``edges="edges"``) of a MultiDiGraph."""

    directed: bool = True
    multigraph: bool = True
    graph: dict = {}
    nodes: tuple[StateNode, ...] = ()
    edges: tuple[StateEdge, ...] = ()

    @property
    def effects_read(self) -> bool:
        """Its edges list their steps without an effect (abstracting.effects)."""
        return "effects" in self.graph

    @property
    def idle(self) -> frozenset[int]:
        """The steps whose action changed nothing a user can see or the app keeps."""
        return frozenset(i for e in self.edges for i in e.idle)

    @property
    def unsure(self) -> frozenset[int]:
        """The steps whose effect a canvas cannot tell."""
        return frozenset(i for e in self.edges for i in e.unsure)
