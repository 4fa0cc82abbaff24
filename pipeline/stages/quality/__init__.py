"""Quality: WebCoderBench's 19 rule metrics of one explored app (seed 002, Table 3).

``keep_sources(src)`` picks the app's authored HTML, CSS and JavaScript before it is
instrumented (stored as ``sources.json``). ``measure(inputs, settings, mirror)`` then
computes the rule metrics the settings select from the evidence the exploration
stored (trace, DOM snapshots, screenshots, the probe's facts of its live pages — styles,
icons, text, media and boxes, kits/page/probe.mjs —, state graph, sources) plus a few
page loads of its own: the stored states the explorer did not probe rendered again in
Chromium, the start page on a 375×667 touch screen, in Firefox ESR and under
Lighthouse. Every load follows the sandbox's rules: the app's own
server, the CDN files the exploration was answered with, nothing else.

Metric functions are pure (modules code, runtime, styles, content, visual, pages);
the pages and tools run in one long-lived Node process per worker (server.mjs, through
kits/processes; rendering and tooling build its jobs). A tool that fails leaves its
metrics unscored with the reason; it never fails the app. Scores are
the metric-table rows whose producer is "quality" (contracts/metrics.py). This stage
must not import another stage or read the store except through ``inputs.files``.
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import re
import tempfile
import threading
import time
import urllib.parse
from typing import Callable, TypeVar


from iwcbench.pipeline.contracts import artifacts, evidence, metrics, quality as records, settings as settings_mod
from iwcbench.pipeline.kits import clock, lanes
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.stages.quality import code, content, pages, rendering, runtime, sources, styles, tooling, visual

log = logging.getLogger(__name__)

NAMES = metrics.names("quality")
T = TypeVar("T")
keep_sources = sources.keep
Tools = tooling.Tools  # the worker's Node tools: created and closed by whoever runs this stage
RENDERED = {"wcb_component_consistency", "wcb_icon_consistency", "wcb_layout_consistency", "wcb_visual_harmony",
            "wcb_copywriting", "wcb_media_quality", "wcb_placeholders", "wcb_cross_browser"}
PHONE = {"wcb_mobile", "wcb_resource_validity"}
STATIC = {"wcb_error_handling", "wcb_linting", "wcb_redundancy", "wcb_comments", "wcb_copywriting"}
LIGHTHOUSE = set(pages.LIGHTHOUSE)
# computed from the exploration's evidence and the states alone: while the other tools run
EARLY = {"wcb_console_errors", "wcb_component_consistency", "wcb_icon_consistency", "wcb_layout_consistency",
         "wcb_layout_sparsity", "wcb_visual_harmony", "wcb_media_quality", "wcb_placeholders"}
BROWSER_SERVICES = re.compile(r"[./ ](mozilla\.(com|net|org)|firefox\.com|mozaws\.net)(:\d+)?(/|$)")


@dataclasses.dataclass(frozen=True)
class Inputs:
    """One explored app as this stage sees it."""

    start_url: str  # the start page as served
    files: artifacts.Reader  # the app's evidence ("dom/0003.html", its sources.json, ...)
    trace: evidence.Trace
    graph: evidence.StateGraph | None
    prompt: str = ""  # the requirement (its words are not spelling mistakes)
    site: pathlib.Path | None = None  # the served folder, for link targets
    seed: int = 0
    load_timeout_s: float = 20.0
    deadline: clock.Deadline = clock.Deadline.never()  # the app's: what is left is every tool's limit


@dataclasses.dataclass
class _Run:
    report: dict[str, records.ToolRun] = dataclasses.field(default_factory=dict)

    def timed(self, tool: str, call: Callable[[], T]) -> T:
        started = time.monotonic()
        try:
            return call()
        finally:
            previous = self.report.get(tool, records.ToolRun())
            self.report[tool] = previous.model_copy(update={"seconds": round(time.monotonic() - started, 3)})

    def took(self, tool: str, seconds: float) -> None:
        previous = self.report.get(tool, records.ToolRun())
        self.report[tool] = previous.model_copy(update={"seconds": round(seconds, 3)})

    def failed(self, tool: str, reason: str) -> None:
        self.report[tool] = self.report.get(tool, records.ToolRun()).model_copy(update={"error": reason})


def _cdn_files(trace: evidence.Trace, mirror: cdn.Mirror, folder: pathlib.Path) -> dict[str, dict]:
    """The CDN files the exploration was answered with, written out for Node tools."""
    out = {}
    for i, record in enumerate(dict.fromkeys(trace.mirrored_requests)):
        url = record.split(" -> ", 1)[0]
        found = mirror.lookup(url)
        if isinstance(found, cdn.Miss):
            continue
        path = folder / f"{i:04d}"
        path.write_bytes(found.body)
        out[url] = {"file": str(path), "type": found.content_type}
    return out


def _links(states: dict[str, dict], start_url: str, site: pathlib.Path | None) -> dict[str, bool]:
    """Same-origin links to files: does the served folder hold the target?"""
    if site is None:
        return {}
    origin = routing.origin_of(start_url)
    out = {}
    for facts in states.values():
        for link in facts.get("links", []):
            url = (link.get("resolved") or "").split("#", 1)[0]
            if not url.startswith(origin + "/"):
                continue
            path = urllib.parse.unquote(urllib.parse.urlsplit(url).path).lstrip("/")
            if path.endswith("/") or not path:
                path += "index.html"
            if "." not in pathlib.PurePosixPath(path).name:
                continue  # a route of a single-page app, not a file
            target = (site / path).resolve()
            out[url] = target.is_file() and site.resolve() in target.parents
    return out


def _guard(name: str, compute: Callable[[], metrics.Score]) -> metrics.Score:
    try:
        return compute()
    except Exception as exc:  # one metric's bug must not cost the app its others
        log.exception("quality metric %s failed", name)
        return metrics.score(name, None, f"could not be computed on our side: {type(exc).__name__}: {exc}")


def probes_wanted(settings: settings_mod.Quality, exploration: settings_mod.Exploration) -> int:
    """How many new DOM snapshots the explorer should probe in its live page for this
    stage (exploring.Options.probes): the states it then need not render again."""
    if not set(settings.selected()) & RENDERED:
        return 0
    return rendering.probes_wanted(settings.max_states, (exploration.viewport_width, exploration.viewport_height),
                                   settings.states == "initial")


def warm(settings: settings_mod.Quality, tools: tooling.Tools) -> None:
    """Start, in the background, the tools ``measure`` will use (a no-op once they
    run): call it before exploring, so their start-up overlaps the exploration."""
    wanted = set(settings.selected())
    if wanted & (STATIC | RENDERED | PHONE | LIGHTHOUSE):
        tools.warm(chromium=bool(wanted & (RENDERED | PHONE | LIGHTHOUSE)),
                   firefox="wcb_cross_browser" in wanted and settings.second_engine == "firefox")


Answer = dict | tooling.ToolFailure | None  # a tool's answer; None: not asked


@dataclasses.dataclass
class _Measured:
    """What the pages and tools gave for one app, before any metric is computed."""

    run: _Run
    rendered: rendering.Rendered
    static: Answer = None
    engine: Answer = None  # the second engine (Firefox)
    lighthouse: Answer = None


def _in_time(deadline: clock.Deadline, run: _Run, tool: str, call: Callable[[], Answer]) -> Answer:
    """The tool's answer, timed; or, once the app's time is spent, why it did not run."""
    if deadline.spent():
        return tooling.ToolFailure(f"not run: {deadline.why()}")
    answer = run.timed(tool, call)
    if isinstance(answer, tooling.ToolFailure) and deadline.spent():  # it had only what was left
        return dataclasses.replace(answer, reason=f"{answer.reason} (cut short by the app's time limit, "
                                                  f"app_timeout_s = {deadline.limit_s:g} s)")
    return answer


LANE_WAIT_S = 10.0  # the most Lighthouse waits for the machine to itself (kits/lanes.py)


def _use_tools(inputs: Inputs, settings: settings_mod.Quality, mirror: cdn.Mirror, tools: tooling.Tools,
               nodes: list[evidence.StateNode], units: list[sources.Unit],
               meanwhile: Callable[[_Measured], None] = lambda got: None) -> _Measured:
    """The page loads and tool runs the selected metrics need, each timed: the states
    the explorer did not probe first (the spelling check reads their text), then the
    static tools, the phone and Firefox side by side — and ``meanwhile(got)``, in a
    thread of its own, with the states there —, then Lighthouse alone (what it
    measures is time: nothing of ours competes with its page)."""
    wanted = set(settings.selected())
    got = _Measured(run=_Run(), rendered=rendering.Rendered())
    run, rendered, deadline = got.run, got.rendered, inputs.deadline
    with tempfile.TemporaryDirectory(prefix="iwc-cdn-") as tmp:
        files = _cdn_files(inputs.trace, mirror, pathlib.Path(tmp))
        # (beside another worker's Lighthouse, which measures time: waits while it runs)
        with lanes.beside(lanes.MEASURE, deadline.cap(settings.tool_timeout_s)):
            if wanted & RENDERED and nodes:
                if deadline.spent():
                    rendered.problems["states"] = f"not run: {deadline.why()}"
                else:
                    run.timed("chromium-states", lambda: rendering.render_states(
                        tools, nodes, inputs.files.raw, routing.origin_of(inputs.start_url), files, rendered,
                        deadline.cap(settings.tool_timeout_s)))
                if "states" in rendered.problems:
                    run.failed("chromium-states", rendered.problems["states"])
            beside = threading.Thread(target=meanwhile, args=(got,), daemon=True, name="iwc-quality-metrics")
            beside.start()
            _side_by_side(inputs, settings, tools, got, files, units)
            beside.join()
        if wanted & LIGHTHOUSE and settings.lighthouse:
            # Alone on the machine: no worker's exploring step or quality browser runs
            # beside it (kits/lanes.py), so its timings are the page's, not the load's.
            def lighthouse() -> dict | tooling.ToolFailure:
                # (a lane held long by another worker is waited for a little only: the
                # time waited is the app's Lighthouse time)
                with lanes.alone(lanes.MEASURE, min(LANE_WAIT_S, deadline.cap(settings.lighthouse_timeout_s) / 4)):
                    return tools.lighthouse(inputs.start_url, files, deadline.cap(settings.lighthouse_timeout_s))
            got.lighthouse = _in_time(deadline, run, "lighthouse", lighthouse)
    _note_versions(got)
    return got


def _side_by_side(inputs: Inputs, settings: settings_mod.Quality, tools: tooling.Tools, got: _Measured,
                  files: dict[str, dict], units: list[sources.Unit]) -> None:
    """The static tools, the phone load and Firefox, as one job of the server: the
    browsers load their pages while the linters run."""
    wanted, deadline, rendered, run = set(settings.selected()), inputs.deadline, got.rendered, got.run
    origin = routing.origin_of(inputs.start_url)
    late = tooling.ToolFailure(f"not run: {deadline.why()}")
    asked: dict[str, tooling.Job | tooling.ToolFailure] = {}
    if wanted & STATIC and units:
        words = content.spelling_candidates(rendered.states, inputs.prompt) if "wcb_copywriting" in wanted else []
        asked["static-tools"] = late if deadline.spent() else tooling.static_job(
            [u.job() for u in units], words, deadline.cap(settings.tool_timeout_s))
    if wanted & PHONE:
        asked["chromium-phone"] = late if deadline.spent() else rendering.phone_job(
            inputs.start_url, origin, files, inputs.load_timeout_s, deadline.cap(inputs.load_timeout_s + 10))
    if "wcb_cross_browser" in wanted and settings.second_engine == "firefox":
        engine_s = max(clock.MARGIN_S, deadline.cap(settings.tool_timeout_s + 10) - 10)
        asked["firefox"] = late if deadline.spent() else tooling.firefox_job(
            inputs.start_url, origin, files, *rendering.DESKTOP, engine_s)
        # the same page in Chromium, loaded the same way, for Firefox to be compared with
        asked["chromium-desktop"] = late if deadline.spent() else rendering.desktop_job(
            inputs.start_url, origin, files, engine_s)
    jobs = {tool: job for tool, job in asked.items() if isinstance(job, tooling.Job)}
    started = time.monotonic()
    answers = dict(zip(jobs, tools.together(list(jobs.values()))))
    wall = round(time.monotonic() - started, 3)
    for tool, job in asked.items():
        answer = answers[tool] if isinstance(job, tooling.Job) else job  # (every job is answered)
        seconds = answer.pop("_seconds", wall) if isinstance(answer, dict) else (wall if tool in jobs else 0.0)
        run.took(tool, seconds)
        if tool == "static-tools":
            got.static = answer
        elif tool == "firefox":
            got.engine = answer
        elif tool == "chromium-desktop":
            rendering.take_desktop(answer, rendered)
        else:
            rendering.take_phone(answer, rendered)
            if "phone" in rendered.problems:
                run.failed(tool, rendered.problems["phone"])


def _note_versions(got: _Measured) -> None:
    """Each tool's version, or why it failed, in the report."""
    run, static = got.run, got.static
    if isinstance(static, dict):
        run.report["static-tools"] = run.report["static-tools"].model_copy(
            update={"version": ", ".join(f"{k} {v}" for k, v in static.get("versions", {}).items()
                                         if not k.endswith("_ms"))})
        for step, error in (static.get("errors") or {}).items():
            run.failed("static-tools", f"{step}: {error}")
    for tool, answer in (("static-tools", static), ("firefox", got.engine), ("lighthouse", got.lighthouse)):
        if isinstance(answer, tooling.ToolFailure):
            run.failed(tool, answer.reason)
        elif isinstance(answer, dict) and tool != "static-tools":
            run.report[tool] = run.report[tool].model_copy(update={"version": answer.get("version")})


def _metrics(inputs: Inputs, got: _Measured, nodes: list[evidence.StateNode], units: list[sources.Unit],
             kept: records.AppSources | None, used: evidence.Trace | None) -> dict[str, Callable[[], metrics.Score]]:
    """Every rule metric of this stage, as a call on what the tools gave. ``used``: the
    whole exploration's trace, whose errors are the app's runtime errors whatever
    ``inputs.trace`` (the load alone, by default) holds."""
    trace, graph, rendered, static, engine = inputs.trace, inputs.graph, got.rendered, got.static, got.engine
    states = rendered.states
    static_answer = static if isinstance(static, dict) else None
    static_why = static.reason if isinstance(static, tooling.ToolFailure) else (
        "no authored HTML, CSS or JavaScript was kept (no sources.json)" if kept is None else
        "the app has no HTML, CSS or JavaScript of its own")
    shots = [(n.id, data) for n in nodes if n.screenshot and (data := inputs.files.raw(n.screenshot))]
    start_state = states.get(graph.nodes[0].id) if graph and graph.nodes else None

    # the page shows almost nothing (its drawn canvases and videos are something): what
    # measures what it shows gives 0
    drawn = visual.drawn(shots, states)
    thin = content.thin(states, len(drawn))
    start_drawn = [d for d in drawn if graph and graph.nodes and d.startswith(graph.nodes[0].id + ": ")]

    def from_static(name: str, compute: Callable[[dict], metrics.Score]) -> metrics.Score:
        if static_answer is None:
            return metrics.score(name, None, f"not measured: {static_why}")
        return compute(static_answer)

    def rendered_or(name: str, compute: Callable[[], metrics.Score]) -> metrics.Score:
        if not states:
            why = rendered.problems.get("states") or "no explored state has a DOM snapshot"
            return metrics.score(name, None, f"not measured: {why}")
        return metrics.score(name, 0.0, thin) if thin else compute()

    table: dict[str, Callable[[], metrics.Score]] = {
        "wcb_error_handling": lambda: from_static("wcb_error_handling", code.error_handling),
        "wcb_console_errors": lambda: runtime.console_errors(used),
        "wcb_linting": lambda: from_static("wcb_linting", lambda a: code.linting(a, units)),
        "wcb_component_consistency": lambda: rendered_or("wcb_component_consistency",
                                                         lambda: styles.component_consistency(states)),
        "wcb_icon_consistency": lambda: rendered_or("wcb_icon_consistency", lambda: styles.icon_consistency(states)),
        "wcb_layout_consistency": lambda: rendered_or("wcb_layout_consistency",
                                                      lambda: visual.layout_consistency(states)),
        "wcb_layout_sparsity": lambda: visual.layout_sparsity(shots),
        "wcb_visual_harmony": lambda: visual.visual_harmony(shots, states, thin),
        "wcb_copywriting": lambda: rendered_or("wcb_copywriting", lambda: content.copywriting(
            states, static_answer.get("unknown_words") if static_answer else None, inputs.prompt)),
        "wcb_media_quality": lambda: rendered_or("wcb_media_quality", lambda: content.media_quality(
            states, routing.origin_of(inputs.start_url), visual.canvases(shots, states))),
        "wcb_placeholders": lambda: rendered_or("wcb_placeholders", lambda: content.placeholders(states)),
        "wcb_resource_validity": lambda: runtime.resource_validity(
            trace, rendered.phone_requests, _links(states, inputs.start_url, inputs.site), rendered.phone is not None),
        "wcb_cross_browser": lambda: _cross_browser(trace, engine, rendered, start_state, bool(start_drawn)),
        "wcb_mobile": lambda: pages.mobile(rendered.phone, rendered.problems.get("phone"), rendered.phone_hung),
        "wcb_redundancy": lambda: from_static("wcb_redundancy", lambda a: code.redundancy(a, units)),
        "wcb_comments": lambda: from_static("wcb_comments", lambda a: code.comments(a, units)),
    }
    for name, score in _lighthouse(inputs, got.lighthouse, shots).items():
        table[name] = _given(score)
    return table


def _given(score: metrics.Score) -> Callable[[], metrics.Score]:
    """A table entry for a score already computed."""
    return lambda: score


def _lighthouse(inputs: Inputs, lighthouse: Answer, shots: list[tuple[str, bytes]]) -> dict[str, metrics.Score]:
    """The Lighthouse metrics; a page Lighthouse saw paint nothing is 0 only when its start
    state's screenshot shows nothing too (pages.lighthouse)."""
    why = lighthouse.reason if isinstance(lighthouse, tooling.ToolFailure) else "Lighthouse is off (--no-lighthouse)"
    graph = inputs.graph
    start_shot = next((png for node_id, png in shots if graph and graph.nodes and node_id == graph.nodes[0].id), None)
    shows = start_shot is not None and visual.shows_something(start_shot)
    return pages.lighthouse(lighthouse if isinstance(lighthouse, dict) else None, why,
                            routing.origin_of(inputs.start_url), shows)


def _cross_browser(trace: evidence.Trace | None, engine: Answer, rendered: rendering.Rendered,
                   start_state: dict | None, start_drawn: bool = False) -> metrics.Score:
    """Firefox's live load against Chromium's live desktop load; an error only Firefox
    raised is one no Chromium load of the page (exploration, phone, desktop) raised."""
    seen = start_state or rendered.desktop
    return pages.cross_browser(
        engine if isinstance(engine, dict) else None,
        engine.reason if isinstance(engine, tooling.ToolFailure) else
        "no second engine (quality.second_engine is none)", rendered.desktop,
        [*(trace.steps[0].page_errors if trace and trace.steps else ()), *rendered.phone_errors,
         *rendered.desktop_errors],
        content.thin({"start": seen}, int(start_drawn)) if seen else None, rendered.problems.get("desktop"))


def at_load(trace: evidence.Trace) -> evidence.Trace:
    """The trace as WebCoderBench's page metrics see the app: its load alone — step 0,
    the page loaded and left idle until its first DOM snapshot —, so that no explorer,
    seed or step budget changes what the resource metrics count. (Runtime errors are
    not read here: a handler that throws when used is the app's error, so
    wcb_console_errors reads the whole exploration.) The CDN files the
    exploration was answered with are left out too (the phone load, made by this
    stage, lists those the start page asks for)."""
    return trace.model_copy(update={"steps": trace.steps[:1], "mirrored_requests": ()})


def measure(inputs: Inputs, settings: settings_mod.Quality, mirror: cdn.Mirror, tools: tooling.Tools
            ) -> tuple[dict[str, metrics.Score], records.QualityReport]:
    """The selected rule metrics of one explored app, and what the tools did.
    ``tools``: the worker's (see tooling.Tools); this app is admitted to them, and they
    hear when its last job is done (``Tools.app_done``: the server's memory cap)."""
    started = time.monotonic()
    wanted = set(settings.selected())
    initial = settings.states == "initial"
    nodes = rendering.chosen_states(inputs.graph, settings.max_states, initial)
    seen = dataclasses.replace(inputs, trace=at_load(inputs.trace)) if initial else inputs  # what metrics read
    kept = inputs.files.load_or_none(artifacts.SOURCES)
    units = sources.units(kept) if kept is not None else []
    tools.admit(routing.origin_of(inputs.start_url))  # the browsers below reach this app's server only
    early: dict[str, metrics.Score] = {}
    computing = [0.0]  # seconds spent computing metrics

    def meanwhile(got: _Measured) -> None:
        began = time.monotonic()
        table = _metrics(seen, got, nodes, units, kept, inputs.trace)
        early.update({name: _guard(name, table[name]) for name in NAMES if name in wanted & EARLY})
        computing[0] += time.monotonic() - began

    got = _use_tools(inputs, settings, mirror, tools, nodes, units, meanwhile)
    # the app's pages tried to reach something else (Firefox's own services are not the app)
    fenced = [r.rsplit(" (", 1)[0] for r in tools.refused()]
    tools.app_done()  # this app's last job: a server past its memory cap starts afresh for the next
    got.rendered.phone_requests += [(r, None, "refused by the network guard") for r in fenced
                                    if not BROWSER_SERVICES.search(r)]
    began = time.monotonic()
    table = _metrics(seen, got, nodes, units, kept, inputs.trace)
    scores = {name: early[name] if name in early else _guard(name, table[name]) for name in NAMES if name in wanted}
    done = time.monotonic()
    computing[0] += done - began
    reused = got.rendered.reused
    report = records.QualityReport(tools=got.run.report, states_reused=tuple(reused),
                                   states_rendered=tuple(s for s in got.rendered.states if s not in reused),
                                   seconds=round(done - started, 3), metrics_s=round(computing[0], 3))
    return scores, report


# What reads the app's source alone: scored even when the app never ran (its build failed)
SOURCE_ONLY = ("wcb_error_handling", "wcb_linting", "wcb_redundancy", "wcb_comments")


def measure_source(files: artifacts.Reader, settings: settings_mod.Quality, tools: tooling.Tools,
                   deadline: clock.Deadline = clock.Deadline.never()
                   ) -> tuple[dict[str, metrics.Score], records.QualityReport]:
    """The selected ``SOURCE_ONLY`` metrics of an app that could not be built, from its
    sources as submitted (WebCoderBench's static tools need no server), and what the
    tools did; nothing when it kept no source of its own."""
    started = time.monotonic()
    wanted = [name for name in SOURCE_ONLY if name in settings.selected()]
    kept = files.load_or_none(artifacts.SOURCES)
    units = sources.units(kept) if kept is not None else []
    got = _Measured(run=_Run(), rendered=rendering.Rendered())
    if not (wanted and units):
        return {}, records.QualityReport(seconds=round(time.monotonic() - started, 3))
    got.static = _in_time(deadline, got.run, "static-tools", lambda: tools.run(tooling.static_job(
        [u.job() for u in units], [], deadline.cap(settings.tool_timeout_s))))
    tools.app_done()
    if isinstance(got.static, tooling.ToolFailure):
        got.run.failed("static-tools", got.static.reason)
    never_ran = Inputs(start_url="", files=files, trace=evidence.Trace(
        explorer="heuristic", seed=0, max_steps=0, start_url=""), graph=None)
    table = _metrics(never_ran, got, [], units, kept, never_ran.trace)
    scores = {name: _guard(name, table[name]) for name in wanted}
    return scores, records.QualityReport(tools=got.run.report, seconds=round(time.monotonic() - started, 3))
