"""What counts as an action's effect (abstracting.effects, issue 41): what a user can see
or the app keeps, never the code that ran."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import abstracting

URL = "http://127.0.0.1:8000/index.html"
PAGE = "<html><body><button>Buy</button><canvas></canvas></body></html>"


def step(index: int, looks: evidence.Looks | None = evidence.Looks(), **extra) -> evidence.Step:
    fields = {"url": URL, "dom": f"dom/{index:04d}.html", "looks": looks, **extra}
    return evidence.Step(index=index, action=evidence.Action(kind="load" if index == 0 else "click",
                                                             target=f"t{index}"), **fields)


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


def test_a_canvas_that_draws_by_itself_cannot_tell_and_one_unread_neither():
    drawing = step(0, evidence.Looks(pixels="p0", drawing=True))
    assert abstracting.effects(drawing, step(1, evidence.Looks(pixels="p1")), False) is None
    assert abstracting.effects(drawing, step(1, evidence.Looks(pixels="p1")), True) == ("page",)
    webgl = step(0, evidence.Looks(unread=1))
    assert abstracting.effects(webgl, step(1, evidence.Looks(unread=1)), False) is None
    assert abstracting.effects(webgl, step(1, evidence.Looks(unread=1, kept="k")), False) == ("kept data",)
    # a canvas that stopped drawing: the next change is the action's
    still = step(0, evidence.Looks(pixels="p0"))
    assert abstracting.effects(still, step(1, evidence.Looks(pixels="p1", drawing=True)), False) == ("canvas",)


def test_the_graph_lists_each_edge_s_steps_without_an_effect():
    looks = evidence.Looks(kept="k0")
    t = evidence.Trace(explorer="heuristic", seed=0, max_steps=4, start_url=URL, steps=(
        step(0, looks), step(1, looks, page_errors=("TypeError: x",)),
        step(2, evidence.Looks(kept="k1")), step(3, evidence.Looks(kept="k1", drawing=True)),
        step(4, evidence.Looks(kept="k1", pixels="p9"))))
    g = abstracting.abstract(t, lambda key: PAGE)
    assert g.graph["effects"] == abstracting.EFFECTS_VERSION
    assert len(g.nodes) == 1 and len(g.edges) == 4  # one state; one self-loop per action label
    assert g.idle == {1, 3} and g.unsure == {4}
