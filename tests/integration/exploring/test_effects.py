"""An action's effect, read in real Chromium (issue 41): what a user can see or the app
keeps. Each page has one button; the explorer clicks it, and the state graph says which
clicks had an effect. A handler that runs and throws changes nothing: no effect, though
its code ran. A click that only stores data, only draws on a canvas, or only sends a
request has one. An effect is read where the action happened (issue 46): beside a canvas
that draws by itself, or a WebGL canvas that reads back blank, the button is read through
the DOM and what the app keeps, and a click that changes none of them has no effect; a
click on such a canvas itself cannot be told."""

from __future__ import annotations


import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import abstracting, exploring

from fakes.apps import pages_served

pytestmark = pytest.mark.browser

BUTTON = "<!doctype html><title>one button</title><h1>One button</h1><button id=go>Go</button>\n"
PAGES = {
    "throws": "<script>go.onclick = () => { console.log('clicked'); throw new TypeError('no basket'); };</script>",
    "stores": "<script>go.onclick = () => { localStorage.n = String(Number(localStorage.n || 0) + 1); };</script>",
    "draws": "<canvas id=c width=64 height=64></canvas><script>let x = 0;"
             "go.onclick = () => { c.getContext('2d').fillRect(x, x, 8, 8); x += 8; };</script>",
    "sends": "<script>go.onclick = () => { navigator.sendBeacon('/ping', 'x'); };</script>",
    "animates": "<canvas id=c width=64 height=64></canvas><script>const g = c.getContext('2d'); let t = 0;"
                "(function f() { g.fillStyle = `hsl(${t++ % 360} 80% 50%)`; g.fillRect(0, 0, 64, 64);"
                " requestAnimationFrame(f); })();"
                "go.onclick = () => { throw new Error('nothing'); };</script>",
    "webgl": "<canvas id=c width=64 height=64></canvas><script>const gl = c.getContext('webgl');"
             "gl.clearColor(0.2, 0.5, 0.8, 1); gl.clear(gl.COLOR_BUFFER_BIT);"
             "go.onclick = () => { throw new Error('nothing'); };</script>",
}


@pytest.fixture(scope="module")
def served():
    with pages_served({name: BUTTON + body for name, body in PAGES.items()}, "iwc-effects-") as url:
        yield url.rstrip("/")


def _clicks(url: str, page: str, steps: int = 4) -> dict[str, list]:
    """The clicks on Go: which had no effect, which cannot tell, which had one; and every
    step that cannot tell ("untold")."""
    files: dict[str, bytes] = {}
    config = settings.Exploration(max_steps=steps, load_timeout_s=5.0)
    result = exploring.explore(f"{url}/{page}/index.html", config, files.__setitem__, None,
                               exploring.Options(accessibility=False))
    trace = result.trace
    graph = abstracting.abstract(trace, lambda key: files[key].decode() if key in files else None)
    idle, unsure = graph.idle, graph.unsure
    clicks = [s for s in trace.steps if s.action.kind == "click" and s.ok and "Go" in s.action.label()]
    assert clicks, [s.action.label() for s in trace.steps]
    return {"idle": [s.index for s in clicks if s.index in idle],
            "unsure": [s.index for s in clicks if s.index in unsure],
            "effect": [s.index for s in clicks if s.index not in idle | unsure],
            "untold": sorted(unsure), "steps": list(trace.steps)}


def test_a_handler_that_throws_has_no_effect_though_its_code_ran(served):
    found = _clicks(served, "throws")
    assert found["effect"] == [] and found["unsure"] == [] and found["idle"], found
    assert any(s.page_errors for s in found["steps"])  # it did run, and threw


@pytest.mark.parametrize("page", ["stores", "draws", "sends"])
def test_what_the_app_keeps_draws_or_sends_is_an_effect(served, page):
    found = _clicks(served, page)
    assert found["idle"] == [] and found["unsure"] == [] and found["effect"], found


@pytest.mark.parametrize("page", ["animates", "webgl"])
def test_a_button_beside_a_canvas_that_cannot_tell_is_read_without_it(served, page):
    found = _clicks(served, page)
    assert found["idle"] and found["unsure"] == [] and found["effect"] == [], found
    assert all(s.on_canvas is False for s in found["steps"] if "Go" in s.action.label()), found


def test_a_click_on_a_canvas_that_draws_by_itself_cannot_be_told(served):
    """The animation's own canvas, pressed: its pixels are where such a click would show,
    and they change whatever it did."""
    found = _clicks(served, "animates", steps=12)
    pressed = [s.index for s in found["steps"] if s.on_canvas and s.ok and s.action.kind in ("click", "drag")]
    assert pressed, [s.action.label() for s in found["steps"]]
    assert set(pressed) <= set(found["untold"]), found
