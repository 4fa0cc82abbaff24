"""An animated background hides no dead control (issue 46 part 3). One landing page over a
particle field drawn on a canvas (tests/fixtures/animated-background), in four versions:
with its controls working or dead (the script that wires them left out: its tabs call a
function that is not there, its other buttons do nothing), and with the field animated or
drawn once. One offline `iwc run` with the rule suite explores all four.

The buttons are not the canvas: their effect is read through the DOM, the address, the
kept data, requests, dialogs and windows, whatever the field draws meanwhile. So the dead
page's `no_effect_ratio` is the same with the animation as without it (within 10 points),
none of its clicks is left out as untold, and it ranks below its working twin under
`default` and `wcb`. Before, every idle click on the animated page was "unsure": the dead
page scored 0 % no effect ("0 of 2 ...; 8 left out") against 100 % without the animation.

Offline, `wcb` weighs no click's effect (its functional correctness is judged): it ranks the
dead page by what its rule metrics see, the tabs' ReferenceError among its runtime errors.
The field is drawn at a quarter of the window's resolution, as such backgrounds often are:
drawn at full size by Chromium's software renderer, its frames blocked Lighthouse's main
thread for seconds now and then (performance 63 against 100 for the same animation), and
that noise, wcb's largest offline weight, could have decided the order."""

from __future__ import annotations

import json
import pathlib

import pytest

from fakes import runs
from iwcbench.pipeline.contracts import evidence, metrics, results
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages import aggregating, scoring

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = runs.ROOT / "tests" / "fixtures" / "animated-background" / "index.html"
CONTROLS = PAGE.read_text().split('<script id="controls">', 1)[1].split("</script>", 1)[0]
ANIMATION = "  requestAnimationFrame(frame);\n"  # the field's next frame: without it, drawn once
MODELS = ("working", "dead")
TASKS = ("animated", "still")
RANKED = ("default", "wcb")


def _page(model: str, task: str) -> str:
    html = PAGE.read_text()
    if model == "dead":
        html = html.replace(f'<script id="controls">{CONTROLS}</script>\n', "", 1)
    if task == "still":
        html = html.replace(ANIMATION, "", 1)
    return html


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[results.RunResults, pathlib.Path]:
    base = tmp_path_factory.mktemp("animated-background")
    for model in MODELS:
        for task in TASKS:
            folder = base / "apps" / model / task
            folder.mkdir(parents=True)
            (folder / "index.html").write_text(_page(model, task))
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": t, "prompt": "A landing page for a note-taking app."}) + "\n"
                             for t in TASKS))
    out = base / "out"
    config = runs.quick_settings(tasks, base / "apps", out, base / "mirror", quality={},
                                 max_steps=12, app_timeout_s=120)
    return local.execute(config), out


def _app(run, model: str, task: str) -> results.AppResult:
    return next(a for a in run[0].apps if (a.model, a.task_id) == (model, task))


def _trace(run, model: str, task: str) -> evidence.Trace:
    return evidence.Trace.model_validate_json((run[1] / "apps" / model / task / "trace.json").read_text())


def _ratio(run, model: str, task: str) -> metrics.Score:
    return _app(run, model, task).scores["no_effect_ratio"]


def test_the_four_pages_differ_as_meant():
    pages = {(m, t): _page(m, t) for m in MODELS for t in TASKS}
    assert len(set(pages.values())) == 4
    assert "function show" not in pages[("dead", "animated")] and ANIMATION not in pages[("working", "still")]


def test_the_animation_is_seen_drawing_by_itself(run):
    """Else the pages below could not tell the old reading from the new."""
    for model in MODELS:
        animated, still = _trace(run, model, "animated"), _trace(run, model, "still")
        assert any(s.looks and s.looks.drawing for s in animated.steps), model
        assert not any(s.looks and s.looks.drawing for s in still.steps), model


def test_a_dead_page_s_no_effect_ratio_is_the_same_with_the_animation_and_without(run):
    animated, still = _ratio(run, "dead", "animated"), _ratio(run, "dead", "still")
    assert animated.value is not None and still.value is not None, (animated.reason, still.reason)
    assert abs(animated.value - still.value) <= 10, (animated.reason, still.reason)
    assert animated.value >= 90, animated.reason


def test_no_click_on_a_button_is_left_out_beside_the_animation(run):
    """A button is not the canvas: whatever the field drew, its click is told."""
    for model in MODELS:
        trace = _trace(run, model, "animated")
        graph = evidence.StateGraph.model_validate_json(
            (run[1] / "apps" / model / "animated" / "graph.json").read_text())
        clicks = {s.index for s in trace.steps if s.action.kind in scoring.RESPONSIVE_KINDS and s.ok
                  and s.action.selector and s.on_canvas is False}
        assert clicks, [s.action.label() for s in trace.steps]
        assert not clicks & graph.unsure, (model, sorted(clicks & graph.unsure))


def test_working_controls_do_something_with_the_animation_as_without(run):
    for task in TASKS:
        working, dead = _ratio(run, "working", task), _ratio(run, "dead", task)
        assert working.value is not None and dead.value is not None
        assert working.value < dead.value, (task, working.reason, dead.reason)


@pytest.mark.parametrize("weight_set", RANKED)
@pytest.mark.parametrize("task", TASKS)
def test_the_dead_page_ranks_below_its_working_twin(run, task, weight_set):
    apps = run[0].apps
    assert {a.outcome for a in apps} <= {"evaluated", "black_box"}, [(a.model, a.outcome, a.reason) for a in apps]
    scored, _ = aggregating.aggregate(apps, weights=metrics.weights(weight_set), bootstrap=0)
    overall = {(a.model, a.task_id): a.overall for a in scored}
    working, dead = overall[("working", task)], overall[("dead", task)]
    assert working is not None and dead is not None
    assert working > dead, (working, dead, {a.model: {n: s.value for n, s in a.scores.items()
                                                       if n in metrics.weights(weight_set)}
                                            for a in apps if a.task_id == task})
