"""What counts as an action's effect (abstracting.effects, issue 41): what a user can see
or the app keeps, never the code that ran; read where the action happened (issue 46): a
control through the DOM and what the app keeps, a canvas and the page also through pixels."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import abstracting

URL = "http://127.0.0.1:8000/index.html"
PAGE = "<html><body><button>Buy</button><canvas></canvas></body></html>"


def step(index: int, looks: evidence.Looks | None = evidence.Looks(), on_canvas: bool | None = False,
         **extra) -> evidence.Step:
    """Step ``index``: a click on a button (``on_canvas``: on the canvas instead)."""
    fields = {"url": URL, "dom": f"dom/{index:04d}.html", "looks": looks, **extra}
    target = "canvas" if on_canvas else "button"
    return evidence.Step(index=index, action=evidence.Action(kind="load" if index == 0 else "click",
                                                             target=target, selector=target),
                         on_canvas=on_canvas, **fields)


def key(index: int, looks: evidence.Looks) -> evidence.Step:
    """Step ``index``: keys pressed to the page (no element)."""
    return evidence.Step(index=index, action=evidence.Action(kind="key", target="page", value="ArrowUp"),
                         url=URL, dom=f"dom/{index:04d}.html", looks=looks)


BEFORE = step(0, evidence.Looks(kept="k0", pixels="p0"))


@pytest.mark.parametrize(("after", "moved", "effect"), [
    # a handler that throws, or only logs: the page, its data and its pixels as they were
    (step(1, evidence.Looks(kept="k0", pixels="p0"), page_errors=("TypeError: x",),
          coverage_gain=4.0), False, ()),
    (step(1, evidence.Looks(kept="k0", pixels="p0")), True, ("page",)),
    (step(1, evidence.Looks(kept="k0", pixels="p0"), url=URL + "#/done"), False, ("address",)),
    (step(1, evidence.Looks(kept="k1", pixels="p0")), False, ("kept data",)),
    (step(1, evidence.Looks(kept="k0", pixels="p1")), False, ("canvas",)),
    (step(1, evidence.Looks(kept="k0", pixels="p0"), requests=1), False, ("request",)),
    (step(1, evidence.Looks(kept="k0", pixels="p0"), dialogs=("alert: saved",)), False, ("dialog",)),
    (step(1, evidence.Looks(kept="k0", pixels="p0"), notes=("popup closed: http://x/",)), False,
     ("window",)),
    # a trace from before the looks were read: the page, the address, requests, dialogs
    (step(1, None), False, ()),
])
def test_an_effect_is_what_a_user_can_see_or_the_app_keeps(after, moved, effect):
    assert abstracting.effects(BEFORE, after, moved) == effect


def test_for_an_action_on_the_canvas_or_the_page_a_canvas_that_draws_by_itself_cannot_tell():
    drawing = step(0, evidence.Looks(pixels="p0", drawing=True))
    for action in (step(1, evidence.Looks(pixels="p1"), on_canvas=True), key(1, evidence.Looks(pixels="p1"))):
        assert abstracting.effects(drawing, action, False, drawn=True) is None
        assert abstracting.effects(drawing, action, True, drawn=True) == ("page",)
    webgl = step(0, evidence.Looks(unread=1))
    assert abstracting.effects(webgl, step(1, evidence.Looks(unread=1), on_canvas=True), False) is None
    assert abstracting.effects(webgl, key(1, evidence.Looks(unread=1, kept="k")), False) == ("kept data",)
    # a canvas that stopped drawing: the next change is the action's
    still = step(0, evidence.Looks(pixels="p0"))
    assert abstracting.effects(still, step(1, evidence.Looks(pixels="p1", drawing=True), on_canvas=True),
                               False, drawn=True) == ("canvas",)
    # a trace from before the aim was recorded reads every action as it did then
    assert abstracting.effects(drawing, step(1, evidence.Looks(pixels="p1"), on_canvas=None), False) is None


def test_a_control_beside_a_canvas_that_draws_by_itself_is_read_without_the_canvas():
    """A dead button over an animated background has no effect, however the pixels moved;
    a working one has its own, and an unread (WebGL) canvas hides neither."""
    drawing = step(0, evidence.Looks(pixels="p0", drawing=True))
    assert abstracting.effects(drawing, step(1, evidence.Looks(pixels="p1", drawing=True)), False, drawn=True) == ()
    assert abstracting.effects(drawing, step(1, evidence.Looks(pixels="p1")), True, drawn=True) == ("page",)
    # the canvas seen drawing at another step of the trace: a frame an idle window missed is not the click's
    assert abstracting.effects(step(0, evidence.Looks(pixels="p0")), step(1, evidence.Looks(pixels="p1")),
                               False, drawn=True) == ()
    webgl = step(0, evidence.Looks(unread=1))
    assert abstracting.effects(webgl, step(1, evidence.Looks(unread=1)), False) == ()
    assert abstracting.effects(webgl, step(1, evidence.Looks(unread=1, kept="k")), False) == ("kept data",)


def test_a_control_that_draws_on_a_still_canvas_has_an_effect():
    """A canvas that never draws by itself is the baseline: a button that draws a chart on it works."""
    still = step(0, evidence.Looks(pixels="p0"))
    assert abstracting.effects(still, step(1, evidence.Looks(pixels="p1")), False) == ("canvas",)
    assert abstracting.effects(still, step(1, evidence.Looks(pixels="p0")), False) == ()


def test_the_graph_lists_each_edge_s_steps_without_an_effect():
    looks = evidence.Looks(kept="k0")
    t = evidence.Trace(explorer="heuristic", seed=0, max_steps=5, start_url=URL, steps=(
        step(0, looks), step(1, looks, page_errors=("TypeError: x",)),
        step(2, evidence.Looks(kept="k1")), step(3, evidence.Looks(kept="k1", drawing=True), on_canvas=True),
        step(4, evidence.Looks(kept="k1", pixels="p9"), on_canvas=True),
        step(5, evidence.Looks(kept="k1", pixels="p8"))))
    g = abstracting.abstract(t, lambda key: PAGE)
    assert g.graph["effects"] == abstracting.EFFECTS_VERSION
    assert len(g.nodes) == 1 and len(g.edges) == 2  # one state; one self-loop per action label
    # 4: on the canvas that drew by itself at 3; 5: the button, read without that canvas
    assert g.idle == {1, 3, 5} and g.unsure == {4}


def test_a_canvas_seen_drawing_anywhere_in_the_trace_credits_no_control_with_its_frames():
    """Step 1's idle window missed the animation, step 2's saw it: step 1's click has no
    effect all the same. Without step 2, the canvas is still and step 1 drew on it."""
    steps = (step(0, evidence.Looks(pixels="p0")), step(1, evidence.Looks(pixels="p1")),
             step(2, evidence.Looks(pixels="p2", drawing=True)))
    t = evidence.Trace(explorer="heuristic", seed=0, max_steps=2, start_url=URL, steps=steps)
    assert abstracting.abstract(t, lambda key: PAGE).idle == {1, 2}
    still = t.model_copy(update={"steps": steps[:2]})
    assert abstracting.abstract(still, lambda key: PAGE).idle == set()
