"""The state graph is drawn as SVG: one node per state, one arrow per transition;
a graph too big to read keeps its most visited states and says what it left out."""

from __future__ import annotations

import html
import re

from iwcbench.pipeline.contracts import artifacts, evidence
from iwcbench.pipeline.stages import reporting
from iwcbench.pipeline.stages.reporting import graphing


def _graph(read, model, task) -> evidence.StateGraph:
    return evidence.StateGraph.model_validate_json(read(f"apps/{model}/{task}/graph.json"))


def test_one_node_per_state_and_one_arrow_per_edge(written):
    for model, task in (("aurora-7b", "todomvc"), ("aurora-7b", "canvas-snake")):
        graph = _graph(written.read, model, task)
        page = written.page(model, task)
        svg = re.search(r'<svg class="stategraph".*?</svg>', page, re.S).group(0)
        assert svg.count('<g class="node"') == len(graph.nodes)
        assert len(re.findall(r'<path class="edge [a-z]+"[^>]*marker-end=', svg)) == len(graph.edges)
        for node in graph.nodes:
            assert f'data-state="{node.id}"' in svg


def test_states_link_to_their_screenshots_and_errors_are_marked(written):
    page = written.page("aurora-7b", "canvas-snake")
    svg = re.search(r'<svg class="stategraph".*?</svg>', page, re.S).group(0)
    assert '<a href="#state-S3">' in svg and 'id="state-S3"' in page
    s3 = re.search(r'<g class="node" data-state="S3">.*?</g>', svg, re.S).group(0)
    assert 'stroke="#cf222e"' in s3 and "errors" in s3  # the page error at step 6 ended in S3
    failed = re.search(r'<path class="edge self"[^>]*stroke-dasharray[^>]*>', written.page("aurora-7b", "todomvc"))
    assert failed, "the failed click (step 10) is drawn dashed"


def _big_graph(states: int) -> evidence.StateGraph:
    nodes = [evidence.StateNode(id=f"S{i}", digest=str(i), first_step=i, steps=(i,) * (1 + (i % 7 == 0)),
                                title=f"page {i}") for i in range(states)]
    edges = [evidence.StateEdge(source=f"S{(i - 1) // 3}", target=f"S{i}", action=f"click item {i}", steps=(i,))
             for i in range(1, states)]
    edges += [evidence.StateEdge(source=f"S{i}", target="S0", action="back", steps=(states + i,))
              for i in range(1, states, 5)]
    return evidence.StateGraph(nodes=tuple(nodes), edges=tuple(edges))


def test_a_large_graph_keeps_the_most_visited_states_and_says_what_is_left_out():
    graph = _big_graph(150)
    picture = graphing.draw(graph)
    assert picture.shown_nodes == graphing.MAX_NODES
    assert picture.omitted_nodes == 150 - graphing.MAX_NODES
    assert picture.svg.count('<g class="node"') == graphing.MAX_NODES
    assert 'data-state="S0"' in picture.svg  # the start state is always kept
    for i in range(0, 150, 7):  # visited twice: kept before the rest
        assert f'data-state="S{i}"' in picture.svg
    drawn = len(re.findall(r'<path class="edge', picture.svg))
    assert drawn == picture.shown_edges and picture.omitted_edges == len(graph.edges) - drawn


def test_the_app_page_says_how_many_states_were_left_out(written, tmp_path):
    graph = _big_graph(150)
    def read(key: str) -> bytes | None:
        if key == "apps/aurora-7b/todomvc/graph.json":
            return graph.model_dump_json().encode()
        return written.read(key)

    index = reporting.write_report(written.run, artifacts.Reader(read), tmp_path / "r")
    page = (index.parent / "apps/aurora-7b/todomvc.html").read_text(encoding="utf-8")
    assert f"Showing the {graphing.MAX_NODES} most visited of 150 states; 90 states" in page


def test_tooltips_keep_the_full_label_that_the_picture_shortens():
    long = "click button 'Add a very long task name to the list of things'"
    graph = evidence.StateGraph(
        nodes=(evidence.StateNode(id="S0", digest="a", first_step=0, steps=(0,)),
               evidence.StateNode(id="S1", digest="b", first_step=1, steps=(1,))),
        edges=(evidence.StateEdge(source="S0", target="S1", action=long, steps=(1,)),))
    svg = graphing.draw(graph).svg
    shown = re.search(r'<text class="elabel"[^>]*><title>.*?</title>(.*?)</text>', svg, re.S).group(1)
    assert shown == html.escape(long[: graphing.LABEL_CHARS - 1]) + "…"  # shortened in the picture
    assert f"<title>S0 → S1: {long.replace(chr(39), '&#x27;')} (step 1)</title>" in svg


def test_an_edge_whose_steps_had_no_effect_is_dotted_and_says_so_and_the_trace_marks_them():
    nodes = (evidence.StateNode(id="S0", digest="a", first_step=0, steps=(0, 1, 2)),)
    graph = evidence.StateGraph(graph={"effects": "1"}, nodes=nodes, edges=(
        evidence.StateEdge(source="S0", target="S0", action="click 'Buy'", steps=(1,), idle=(1,)),
        evidence.StateEdge(source="S0", target="S0", action="key Space", steps=(2,), unsure=(2,))))
    svg = graphing.draw(graph).svg
    buy = re.search(r"<path[^>]*>(?:(?!</path>).)*click &#x27;Buy&#x27;.*?</path>", svg, re.S).group(0)
    assert 'stroke-dasharray="1.5 2.5"' in buy and "no effect at step 1" in buy
    space = re.search(r"<path[^>]*>(?:(?!</path>).)*key Space.*?</path>", svg, re.S).group(0)
    assert "stroke-dasharray" not in space
    url = "http://127.0.0.1:8000/"
    trace = evidence.Trace(explorer="heuristic", seed=0, max_steps=2, start_url=url, steps=tuple(
        evidence.Step(index=i, action=evidence.Action(kind=k, target=t), url=url)
        for i, k, t in ((0, "load", url), (1, "click", "Buy"), (2, "key", "Space"))))
    table = reporting.sections.trace_table(trace, {0: "S0", 1: "S0", 2: "S0"}, {}, {}, graph)
    rows = re.findall(r'<tr id="step-(\d)".*?</tr>', table, re.S)
    assert rows == ["0", "1", "2"]
    row = {i: re.search(rf'<tr id="step-{i}".*?</tr>', table, re.S).group(0) for i in (0, 1, 2)}
    assert "no effect" in row[1] and "no effect" not in row[0] and "effect untold" in row[2]
