"""A small, realistic finished run for report tests and for looking at the report.

``build_sample_run(tmp)`` stores the evidence of 2 models × 2 tasks in a LocalStore
under ``tmp/store`` and returns the run's results and a ``read(key)`` over that store:

* aurora-7b/todomvc — evaluated, 12 steps, 7 states, coverage rising, every score.
* aurora-7b/canvas-snake — evaluated, a page error and a console message carrying
  ``<script>``, a state whose title carries ``<script>``, a dialog, a blocked and a
  mirrored request; its aesthetics score is unscored (with the reason).
* brisk-3b/todomvc — black box (instrumentation failed), no coverage.
* brisk-3b/canvas-snake — start failed: a trace with a load error and no steps.

Screenshots are real PNGs drawn with Pillow. The data follows pipeline/contracts.
"""

from __future__ import annotations

import dataclasses
import io
import pathlib
from typing import Callable

from PIL import Image, ImageDraw, ImageFont

from iwcbench.pipeline.contracts import metrics, settings
from iwcbench.pipeline.contracts import evidence, results
from iwcbench.pipeline.kits import store as store_mod

HOSTILE_TITLE = "<script>alert('title')</script> Settings"
HOSTILE_CONSOLE = 'Uncaught <script>alert("console")</script> in render loop'
SIZE = (960, 600)
URL = "http://127.0.0.1:8731"


def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _png(draw: Callable[[ImageDraw.ImageDraw], None], background: str) -> bytes:
    img = Image.new("RGB", SIZE, background)
    draw(ImageDraw.Draw(img))
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def todo_screen(items: list[tuple[str, bool]], filter_name: str = "All", accent: str = "#b83f45") -> bytes:
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.text((480, 40), "todos", fill=accent, font=_font(64), anchor="mt")
        d.rectangle((230, 130, 730, 190), fill="white", outline="#e6e6e6")
        d.text((290, 148), "What needs to be done?", fill="#b0b0b0", font=_font(22))
        for i, (text, done) in enumerate(items):
            y = 190 + i * 58
            d.rectangle((230, y, 730, y + 58), fill="white", outline="#ededed")
            d.ellipse((245, y + 14, 275, y + 44), outline="#5dc2af" if done else "#d9d9d9", width=2)
            d.text((295, y + 16), text, fill="#d9d9d9" if done else "#484848", font=_font(22))
            if done:
                d.line((295, y + 29, 295 + 11 * len(text), y + 29), fill="#d9d9d9", width=2)
        y = 190 + len(items) * 58
        d.rectangle((230, y, 730, y + 40), fill="white", outline="#ededed")
        left = sum(1 for _, done in items if not done)
        d.text((245, y + 12), f"{left} item{'s' if left != 1 else ''} left", fill="#777", font=_font(15))
        for j, name in enumerate(("All", "Active", "Completed")):
            x = 420 + j * 75
            if name == filter_name:
                d.rectangle((x - 6, y + 8, x + 8 * len(name) + 6, y + 32), outline="#e0b7b7")
            d.text((x, y + 12), name, fill="#777", font=_font(15))
    return _png(draw, "#f5f5f5")


def plain_todo_screen(items: list[str]) -> bytes:
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.rectangle((0, 0, SIZE[0], 70), fill="#2d6cdf")
        d.text((30, 22), "My To-Do List", fill="white", font=_font(28))
        d.rectangle((30, 100, 700, 140), outline="#999", fill="white")
        d.rectangle((710, 100, 820, 140), fill="#2d6cdf")
        d.text((740, 110), "Add", fill="white", font=_font(20))
        for i, text in enumerate(items):
            d.text((40, 170 + i * 36), f"• {text}", fill="#222", font=_font(20))
    return _png(draw, "white")


def snake_screen(snake: list[tuple[int, int]], score: int, banner: str | None = None) -> bytes:
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.text((480, 24), f"SNAKE   score {score}", fill="#9be564", font=_font(28), anchor="mt")
        d.rectangle((180, 80, 780, 560), fill="#10141a", outline="#2f3a46", width=3)
        for gx in range(180, 781, 30):
            d.line((gx, 80, gx, 560), fill="#161c24")
        for gy in range(80, 561, 30):
            d.line((180, gy, 780, gy), fill="#161c24")
        for i, (cx, cy) in enumerate(snake):
            x, y = 180 + cx * 30, 80 + cy * 30
            d.rounded_rectangle((x + 2, y + 2, x + 28, y + 28), 6, fill="#9be564" if i == 0 else "#5fbf3a")
        d.ellipse((180 + 14 * 30 + 6, 80 + 5 * 30 + 6, 180 + 15 * 30 - 6, 80 + 6 * 30 - 6), fill="#ff5d73")
        if banner:
            d.rectangle((300, 260, 660, 380), fill="#1f2630", outline="#9be564", width=2)
            d.text((480, 320), banner, fill="white", font=_font(30), anchor="mm")
    return _png(draw, "#0b0e12")


@dataclasses.dataclass
class Move:
    """One step of a scripted exploration: the action and the state it ends in."""

    action: evidence.Action
    state: str
    ok: bool = True
    error: str | None = None
    page_errors: tuple[str, ...] = ()
    console_errors: tuple[str, ...] = ()
    dialogs: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _explore(store: store_mod.Store, prefix: str, moves: list[Move], screens: dict[str, bytes],
             titles: dict[str, str], coverage: list[tuple[float, float, float]] | None,
             explorer: str = "heuristic") -> tuple[evidence.Trace, evidence.StateGraph]:
    steps, nodes, edges = [], {}, []
    previous = None
    for index, move in enumerate(moves):
        new_state = move.state not in nodes
        shot = f"shots/{index:04d}.png" if new_state else None
        dom = f"dom/{index:04d}.html"
        store.put_bytes(f"{prefix}/{dom}", (f"<html><head><title>{titles[move.state]}</title></head><body>"
                                             f"<main data-state='{move.state}'>step {index}</main></body></html>").encode())
        if shot:
            store.put_bytes(f"{prefix}/{shot}", screens[move.state], "image/png")
        cov = evidence.CoverageSummary() if coverage is None else evidence.CoverageSummary(
            statements=coverage[index][0], functions=coverage[index][1], branches=coverage[index][2])
        gain = 0.0 if coverage is None or index == 0 else round(coverage[index][0] - coverage[index - 1][0], 1)
        path = "/settings.html" if move.state == "S5" and "Settings" in titles[move.state] else "/index.html"
        steps.append(evidence.Step(
            index=index, action=move.action, ok=move.ok, error=move.error, url=URL + path, dom=dom,
            screenshot=shot, coverage=cov, coverage_gain=gain, console_errors=move.console_errors,
            page_errors=move.page_errors, blocked_requests=move.blocked, dialogs=move.dialogs,
            notes=move.notes, duration_s=0.4 + 0.05 * index))
        if new_state:
            nodes[move.state] = dict(id=move.state, digest=f"sha256:{move.state.lower()}{len(prefix)}",
                                     first_step=index, steps=[], dom=dom, screenshot=shot,
                                     title=titles[move.state], url=URL + path)
        nodes[move.state]["steps"].append(index)
        if previous is not None:
            edges.append(evidence.StateEdge(source=previous, target=move.state, action=move.action.label(),
                                            steps=(index,), ok=move.ok,
                                            key=sum(1 for e in edges if (e.source, e.target) == (previous, move.state))))
        previous = move.state
    trace = evidence.Trace(explorer=explorer, seed=7, max_steps=12, start_url=URL + "/index.html",
                           steps=tuple(steps), stop_reason="step budget used (12 of 12)",
                           duration_s=sum(s.duration_s for s in steps))
    graph = evidence.StateGraph(nodes=tuple(evidence.StateNode(**{**n, "steps": tuple(n["steps"])})
                                            for n in nodes.values()), edges=tuple(edges))
    return trace, graph


def _act(kind: str, target: str | None = None, value: str | None = None, intent: str | None = None) -> evidence.Action:
    return evidence.Action(kind=kind, target=target, value=value, intent=intent)


def _score(value: float | None, reason: str, unit: str = "0-100", rationale: str | None = None,
           higher: bool = True, cites: tuple[str, ...] = ()) -> metrics.Score:
    return metrics.Score(value=value, reason=reason, unit=unit, rationale=rationale,
                         higher_is_better=higher, evidence=cites)


def _todomvc(store: store_mod.Store, prefix: str) -> tuple[evidence.Trace, evidence.StateGraph]:
    box = "textbox 'What needs to be done?'"
    moves = [
        Move(_act("load"), "S0"),
        Move(_act("type", box, "buy milk", "add a first task"), "S0"),
        Move(_act("key", box, "Enter"), "S1"),
        Move(_act("type", box, "walk the dog"), "S1"),
        Move(_act("key", box, "Enter"), "S2"),
        Move(_act("check", "checkbox 'Toggle buy milk'", intent="mark a task done"), "S3"),
        Move(_act("click", "link 'Active'"), "S4"),
        Move(_act("click", "link 'Completed'"), "S5"),
        Move(_act("click", "link 'All'"), "S3"),
        Move(_act("click", "button 'Clear completed'", intent="remove finished tasks"), "S6"),
        Move(_act("click", "button 'Delete walk the dog'"), "S6", ok=False,
             error="element is not visible: the delete button only shows on hover"),
        Move(_act("key", "body", "Escape"), "S6"),
    ]
    screens = {"S0": todo_screen([]), "S1": todo_screen([("buy milk", False)]),
               "S2": todo_screen([("buy milk", False), ("walk the dog", False)]),
               "S3": todo_screen([("buy milk", True), ("walk the dog", False)]),
               "S4": todo_screen([("walk the dog", False)], "Active"),
               "S5": todo_screen([("buy milk", True)], "Completed"),
               "S6": todo_screen([("walk the dog", False)])}
    titles = {s: "TodoMVC" for s in screens}
    cov = [(22, 18, 9), (24, 20, 10), (41, 38, 22), (41, 38, 22), (47, 42, 27), (58, 53, 36), (66, 61, 44),
           (70, 64, 49), (71, 64, 51), (79, 72, 60), (79, 72, 60), (81, 74, 62)]
    return _explore(store, prefix, moves, screens, titles, [tuple(map(float, c)) for c in cov], "llm")


def _snake(store: store_mod.Store, prefix: str) -> tuple[evidence.Trace, evidence.StateGraph]:
    moves = [
        Move(_act("load"), "S0", blocked=("https://fonts.googleapis.com/css2?family=Press+Start+2P",)),
        Move(_act("click", "button 'Start'"), "S1"),
        Move(_act("key", "canvas", "ArrowUp"), "S1"),
        Move(_act("key", "canvas", "ArrowLeft"), "S1"),
        Move(_act("wait", value="1500ms"), "S2"),
        Move(_act("key", "canvas", "ArrowDown"), "S2"),
        Move(_act("wait", value="3000ms"), "S3",
             page_errors=("TypeError: Cannot read properties of undefined (reading 'x')",),
             console_errors=(HOSTILE_CONSOLE,)),
        Move(_act("click", "button 'Restart'"), "S1"),
        Move(_act("key", "canvas", "p", "pause the game"), "S4"),
        Move(_act("key", "canvas", "p"), "S1"),
        Move(_act("click", "link 'Settings'"), "S5", dialogs=("alert: Settings saved <b>!</b>",),
             notes=("popup closed: http://127.0.0.1:8731/ad.html",)),
        Move(_act("back"), "S0"),
    ]
    body = [(7, 8), (6, 8), (5, 8)]
    screens = {"S0": snake_screen([], 0, "Press Start"), "S1": snake_screen(body, 0),
               "S2": snake_screen([(9, 6), (9, 7), (9, 8), (8, 8)], 1), "S3": snake_screen(body, 1, "GAME OVER"),
               "S4": snake_screen(body, 0, "PAUSED"), "S5": snake_screen([], 0, "Settings")}
    titles = {s: "Snake" for s in screens} | {"S5": HOSTILE_TITLE}
    cov = [(30, 25, 12), (48, 44, 25), (52, 47, 31), (55, 50, 33), (61, 55, 38), (61, 55, 38), (66, 61, 45),
           (67, 61, 45), (71, 66, 50), (71, 66, 50), (77, 72, 55), (77, 72, 55)]
    trace, graph = _explore(store, prefix, moves, screens, titles, [tuple(map(float, c)) for c in cov])
    trace = trace.model_copy(update={"mirrored_requests": (
        "https://cdn.jsdelivr.net/npm/canvas-confetti@1.9.3/dist/confetti.browser.min.js",)})
    return trace, graph


def _plain_todo(store: store_mod.Store, prefix: str) -> tuple[evidence.Trace, evidence.StateGraph]:
    box = "textbox 'New task'"
    moves = [Move(_act("load"), "S0"), Move(_act("type", box, "buy milk"), "S0"),
             Move(_act("click", "button 'Add'"), "S1"), Move(_act("type", box, "call mum"), "S1"),
             Move(_act("click", "button 'Add'"), "S2"), Move(_act("click", "listitem 'buy milk'"), "S2"),
             Move(_act("type", box, ""), "S2"), Move(_act("click", "button 'Add'"), "S3",
                                                      console_errors=("Empty task added",)),
             Move(_act("scroll", value="down 600px"), "S3"), Move(_act("key", "body", "Tab"), "S3"),
             Move(_act("hover", "button 'Add'"), "S3"), Move(_act("finish"), "S3")]
    screens = {"S0": plain_todo_screen([]), "S1": plain_todo_screen(["buy milk"]),
               "S2": plain_todo_screen(["buy milk", "call mum"]), "S3": plain_todo_screen(["buy milk", "call mum", ""])}
    trace, graph = _explore(store, prefix, moves, screens, {s: "To-Do" for s in screens}, None)
    return trace.model_copy(update={"stop_reason": "the explorer finished"}), graph


def _app(model: str, task_id: str, outcome: str, reason: str, scores: dict[str, metrics.Score],
         trace: evidence.Trace | None, graph: evidence.StateGraph | None,
         report: evidence.InstrumentationReport, overall: float | None) -> results.AppResult:
    ex = results.ExplorationSummary()
    if trace is not None and trace.steps:
        ex = results.ExplorationSummary(
            steps=len(trace.steps), states=len(graph.nodes) if graph else 0,
            transitions=len(graph.edges) if graph else 0, duration_s=trace.duration_s,
            coverage=trace.final_coverage, page_errors=sum(len(s.page_errors) for s in trace.steps),
            console_errors=sum(len(s.console_errors) for s in trace.steps),
            blocked_requests=sum(len(s.blocked_requests) for s in trace.steps))
    return results.AppResult(
        model=model, task_id=task_id, outcome=outcome, reason=reason, overall=overall,
        instrumentation=results.InstrumentationSummary(framework=report.framework, mode=report.mode,
                                                       reason=report.reason,
                                                       files_instrumented=report.files_instrumented),
        exploration=ex, scores=scores, evidence=f"apps/{model}/{task_id}",
        timings={"instrument": report.duration_s, "explore": ex.duration_s, "score": 0.3})


def _instrumented(files: tuple[evidence.InstrumentedFile, ...], skipped=()) -> evidence.InstrumentationReport:
    return evidence.InstrumentationReport(framework="static", mode="instrumented", duration_s=1.2,
                                          reason="static site: Istanbul on every script", files=files,
                                          skipped=skipped)


def build_sample_run(tmp: pathlib.Path) -> tuple[results.RunResults, Callable[[str], bytes | None]]:
    store = store_mod.LocalStore(tmp / "store")
    apps = []
    p = "apps/aurora-7b/todomvc"
    trace, graph = _todomvc(store, p)
    report = _instrumented((
        evidence.InstrumentedFile(path="js/app.js", kind="external", statements=212, functions=41, branches=88,
                                  covered=evidence.CoverageSummary(statements=81.6, functions=75.6, branches=60.2),
                                  function_runs=(
                                      evidence.FunctionRun(name="addTodo", line=12, end_line=20, calls=4,
                                                           text="function addTodo(title) {"),
                                      evidence.FunctionRun(name="(anonymous_7)", line=88, end_line=88, calls=0,
                                                           text='<button class="destroy" @click="remove(todo)">'))),
        evidence.InstrumentedFile(path="js/store.js", kind="external", statements=64, functions=12, branches=18,
                                  covered=evidence.CoverageSummary(statements=100.0, functions=100.0, branches=94.4)),
        evidence.InstrumentedFile(path="index.html#inline-1", kind="inline", statements=6, functions=1, branches=0)),
        (evidence.SkippedFile(path="node_modules/todomvc-common/base.js", reason="vendored library"),))
    for key, model in (("trace.json", trace), ("graph.json", graph), ("instrument.json", report)):
        store_mod.put_model(store, f"{p}/{key}", model)
    store_mod.put_model(store, f"{p}/a11y.json", evidence.AccessibilityReport(version="4.11.0", pages={
        0: (evidence.AxeViolation(id="color-contrast", impact="serious", help="Elements must meet minimum "
                                  "colour contrast ratio thresholds", nodes=3),),
        5: (evidence.AxeViolation(id="label", impact="critical", help="Form elements must have labels", nodes=1),)}))
    apps.append(_app("aurora-7b", "todomvc", "evaluated", "explored and scored", {
        "aesthetics": _score(78.7, "trimmed mean of 5 judge runs ×20", rationale=(
            "Clean, centred layout with the familiar TodoMVC hierarchy; the muted palette and generous "
            "spacing read well. The footer filters are small and low-contrast (step 5 screenshot)."),
            cites=("shots/0000.png", "shots/0005.png")),
        "usability": _score(84.0, "trimmed mean of 5 judge runs ×20", rationale=(
            "Adding, completing and filtering tasks all worked on the first try (steps 2–8). The delete "
            "button only appears on hover, which the tester could not reach (step 10)."), cites=("step 10", "S6")),
        "alignment_functional": _score(83.3, "5 of 6 functional criteria satisfied", "%"),
        "alignment_content": _score(100.0, "2 of 2 content criteria satisfied", "%"),
        "alignment_visual": _score(75.0, "3 of 4 visual criteria satisfied", "%"),
        "console_errors": _score(0.0, "no console errors in 12 steps", "errors", higher=False),
    }, trace, graph, report, 0.97))

    p = "apps/aurora-7b/canvas-snake"
    trace, graph = _snake(store, p)
    report = _instrumented((evidence.InstrumentedFile(path="index.html#inline-1", kind="inline", statements=148,
                                                      functions=23, branches=51),))
    for key, model in (("trace.json", trace), ("graph.json", graph), ("instrument.json", report)):
        store_mod.put_model(store, f"{p}/{key}", model)
    apps.append(_app("aurora-7b", "canvas-snake", "evaluated", "explored and scored", {
        "aesthetics": _score(None, "only 2 of 5 judge runs gave a usable answer (3 needed)"),
        "usability": _score(61.3, "trimmed mean of 5 judge runs ×20", rationale=(
            "The game starts and responds to arrow keys, but it crashes when the snake reaches the wall "
            "(step 6, page error) and the restart loses the settings."), cites=("step 6",)),
        "alignment_functional": _score(66.7, "4 of 6 functional criteria satisfied", "%"),
        "alignment_content": _score(50.0, "1 of 2 content criteria satisfied", "%"),
        "alignment_visual": _score(100.0, "2 of 2 visual criteria satisfied", "%"),
        "console_errors": _score(1.0, "1 console error in 12 steps", "errors", higher=False),
    }, trace, graph, report, 0.12))

    p = "apps/brisk-3b/todomvc"
    trace, graph = _plain_todo(store, p)
    report = evidence.InstrumentationReport(
        framework="static", mode="black_box", duration_s=0.8,
        reason="Istanbul could not parse app.js: Unexpected token (12:4)",
        skipped=(evidence.SkippedFile(path="app.js", reason="SyntaxError: Unexpected token (12:4)"),))
    for key, model in (("trace.json", trace), ("graph.json", graph), ("instrument.json", report)):
        store_mod.put_model(store, f"{p}/{key}", model)
    apps.append(_app("brisk-3b", "todomvc", "black_box", f"explored without coverage: {report.reason}", {
        "aesthetics": _score(52.0, "trimmed mean of 5 judge runs ×20", rationale="Plain list, default fonts."),
        "usability": _score(47.3, "trimmed mean of 5 judge runs ×20", rationale=(
            "Tasks can be added but an empty task is accepted (step 7) and nothing can be completed.")),
        "alignment_functional": _score(33.3, "2 of 6 functional criteria satisfied", "%"),
        "alignment_content": _score(50.0, "1 of 2 content criteria satisfied", "%"),
        "alignment_visual": _score(25.0, "1 of 4 visual criteria satisfied", "%"),
        "console_errors": _score(1.0, "1 console error in 12 steps", "errors", higher=False),
    }, trace, graph, report, -0.74))

    p = "apps/brisk-3b/canvas-snake"
    report = _instrumented((evidence.InstrumentedFile(path="game.js", kind="external", statements=97,
                                                      functions=14, branches=30),))
    failed = evidence.Trace(explorer="heuristic", seed=7, max_steps=12, start_url=URL + "/index.html",
                            load_error="page.goto: net::ERR_EMPTY_RESPONSE at http://127.0.0.1:8731/index.html",
                            stop_reason="the app did not load", duration_s=15.2)
    store_mod.put_model(store, f"{p}/instrument.json", report)
    store_mod.put_model(store, f"{p}/trace.json", failed)
    apps.append(_app("brisk-3b", "canvas-snake", "start_failed", f"the app did not load: {failed.load_error}",
                     {}, failed, None, report, None))

    def row(rank: int, model: str, sign: float, overall: float) -> results.LeaderboardRow:
        mine = [a for a in apps if a.model == model]
        outcomes: dict[str, int] = {}
        for a in mine:
            outcomes[a.outcome] = outcomes.get(a.outcome, 0) + 1
        means = {}
        for name in ("aesthetics", "usability", "alignment_functional", "alignment_content", "alignment_visual"):
            values = [a.scores[name].value for a in mine if name in a.scores and a.scores[name].value is not None]
            means[name] = sum(values) / len(values) if values else None
        return results.LeaderboardRow(rank=rank, model=model, overall=overall, metrics=means,
                                      z={k: sign * 1.0 for k in means}, apps=len(mine), rank_interval=(1, 2),
                                      interval=(overall - 1.0, overall + 1.0), band=1, outcomes=outcomes)

    config = settings.RunSettings(tasks="examples/tasks.jsonl", apps="examples/apps", out="out/sample")
    run = results.RunResults(
        run=results.RunInfo(configuration=config.model_dump(mode="json"), config_hash=config.config_hash(),
                            started_at="2026-03-14T09:26:53+00:00", finished_at="2026-03-14T09:41:10+00:00",
                            versions={"iwc-bench": "0.1.0", "playwright": "1.49.0", "chromium": "131.0.6778.85",
                                      "istanbul-lib-instrument": "6.0.3", "axe-core": "4.11.0", "node": "20.19.2"},
                            git_commit="3ab60e3"),
        apps=tuple(apps),
        leaderboard=(row(1, "aurora-7b", 1, 0.93), row(2, "brisk-3b", -1, -0.93)),
        weights={"aesthetics": 1 / 3, "usability": 1 / 3, "alignment_functional": 1 / 9,
                 "alignment_content": 1 / 9, "alignment_visual": 1 / 9},
        skipped=(results.SkippedInput(path="apps/brisk-3b/notes.txt", reason="not a folder or archive"),))
    store.put_bytes("results.json", run.model_dump_json(indent=1).encode(), "application/json")

    def read(key: str) -> bytes | None:
        try:
            return store.get_bytes(key)
        except store_mod.NotFound:
            return None

    return run, read
