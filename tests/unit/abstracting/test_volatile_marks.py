"""What changed while nobody acted is not state: marked text, attributes and children
are masked in the normal form, so snapshots that differ only there are one state;
anything unmarked still tells states apart."""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import abstracting

PAGE = """<!DOCTYPE html><html><head><title>Word: {title}</title><script>var x = "<p>";</script></head>
<body><h1>Word of the moment</h1><p>Today's word: <span id="word">{word}</span></p>
<p id="motto" class="{tone}">Stay curious</p><div id="ticker"><em>{tick}</em></div>
<button id="noop">Do nothing</button></body></html>"""
# <html> = "", <head> = "0", <title> = "0.0", <script> = "0.1", <body> = "1", <h1> = "1.0",
# first <p> = "1.1", its <span> = "1.1.0", #motto = "1.2", #ticker = "1.3", <button> = "1.4"
MARKS = (evidence.VolatileMark(path="0.0", text=True), evidence.VolatileMark(path="1.1.0", text=True),
         evidence.VolatileMark(path="1.2", attributes=("class",)),
         evidence.VolatileMark(path="1.3", children=True))


def page(word: str, tone: str = "tone-calm", tick: str = "first", title: str = "alpha", button: str = "Do nothing"):
    return PAGE.format(word=word, tone=tone, tick=tick, title=title).replace("Do nothing", button)


def test_marked_parts_are_masked():
    a = abstracting.normalize_dom(page("alpha k3j9x"), MARKS)
    b = abstracting.normalize_dom(page("golf 0zz1q", tone="tone-loud", tick="<b>echo</b>", title="golf"), MARKS)
    assert a == b
    assert "alpha" not in a and "tone-calm" not in a and "first" not in a
    assert "Stay curious" in a and "Word of the moment" in a


def test_without_marks_the_same_snapshots_are_different_states():
    assert abstracting.normalize_dom(page("alpha k3j9x")) != abstracting.normalize_dom(page("golf 0zz1q"))


def test_unmarked_changes_still_make_new_states():
    assert abstracting.normalize_dom(page("alpha"), MARKS) != abstracting.normalize_dom(
        page("alpha", button="Done"), MARKS)


def test_the_graph_of_a_ticking_page_has_one_state():
    steps, doms = [], {}
    for i, word in enumerate(["alpha 1a2b3", "bravo 9z8y7", "charlie 5c6d7"]):
        doms[f"dom/{i}.html"] = page(word, tick=word.split()[0], title=word.split()[0])
        steps.append(evidence.Step(
            index=i, action=evidence.Action(kind="load" if i == 0 else "click", target="button"),
            url="http://a/", dom=f"dom/{i}.html", volatile=MARKS))
    trace = evidence.Trace(explorer="heuristic", seed=0, max_steps=2, start_url="http://a/", steps=tuple(steps))
    graph = abstracting.abstract(trace, doms.get)
    assert len(graph.nodes) == 1 and len(graph.edges) == 1
