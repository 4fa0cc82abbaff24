"""Building the state-transition graph from a trace, and its networkx round trip."""

from __future__ import annotations

import networkx

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import abstracting

URL = "http://127.0.0.1:8000/index.html"


def html(items: int, clock: str = "12:00:00", title: str = "Todos") -> str:
    rows = "".join(f"<li>task {i}</li>" for i in range(items))
    return f"<html><head><title>{title}</title></head><body><p>{clock}</p><ul>{rows}</ul></body></html>"


def step(index: int, kind: str, target: str | None = None, dom: str | None = "auto", ok: bool = True,
         shot: str | None = None, value: str | None = None) -> evidence.Step:
    return evidence.Step(index=index, action=evidence.Action(kind=kind, target=target, value=value), ok=ok,
                         url=URL, dom=f"dom/{index:04d}.html" if dom == "auto" else dom, screenshot=shot)


def trace(*steps: evidence.Step) -> evidence.Trace:
    return evidence.Trace(explorer="heuristic", seed=0, max_steps=len(steps), start_url=URL, steps=steps)


def reader(pages: dict[int, str]):
    return lambda key: pages.get(int(key[4:8]))


def todo_run() -> tuple[evidence.Trace, dict[int, str]]:
    t = trace(
        step(0, "load", URL, shot="shots/0000.png"),
        step(1, "click", "button 'Add'", shot="shots/0001.png"),
        step(2, "click", "button 'Nothing'"),                      # clock ticked only
        step(3, "click", "button 'Add'"),
        step(4, "click", "button 'Remove'", ok=False),             # could not click
        step(5, "click", "button 'Clear'"),
        step(6, "click", "button 'Add'"),
    )
    pages = {0: html(0), 1: html(1), 2: html(1, "12:00:07"), 3: html(2), 4: html(2), 5: html(0), 6: html(1)}
    return t, pages


def test_states_are_numbered_by_first_visit_and_a_ticking_clock_is_one_state():
    t, pages = todo_run()
    graph = abstracting.abstract(t, reader(pages))
    assert [(n.id, n.steps) for n in graph.nodes] == [("S0", (0, 5)), ("S1", (1, 2, 6)), ("S2", (3, 4))]
    assert graph.nodes[0].first_step == 0 and graph.nodes[0].dom == "dom/0000.html"
    assert graph.nodes[0].title == "Todos" and graph.nodes[0].url == URL
    assert len({n.digest for n in graph.nodes}) == 3


def test_one_edge_per_source_target_and_action_with_every_step():
    t, pages = todo_run()
    graph = abstracting.abstract(t, reader(pages))
    edges = {(e.source, e.target, e.action): e for e in graph.edges}
    assert set(edges) == {
        ("S0", "S1", "click button 'Add'"), ("S1", "S1", "click button 'Nothing'"),
        ("S1", "S2", "click button 'Add'"), ("S2", "S2", "click button 'Remove'"),
        ("S2", "S0", "click button 'Clear'"),
    }
    assert edges["S0", "S1", "click button 'Add'"].steps == (1, 6)  # the load step has no edge
    assert edges["S2", "S2", "click button 'Remove'"].ok is False
    assert edges["S0", "S1", "click button 'Add'"].ok is True


def test_an_edge_is_not_ok_when_any_of_its_steps_failed():
    t = trace(step(0, "load"), step(1, "click", "b"), step(2, "click", "b", ok=False))
    graph = abstracting.abstract(t, reader({0: html(0), 1: html(0), 2: html(0)}))
    assert [(e.steps, e.ok) for e in graph.edges] == [((1, 2), False)]


def test_parallel_edges_between_two_states_get_distinct_keys():
    t = trace(step(0, "load"), step(1, "click", "a"), step(2, "back"), step(3, "key", "body", value="Enter"))
    graph = abstracting.abstract(t, reader({0: html(0), 1: html(1), 2: html(0), 3: html(1)}))
    pairs = [(e.source, e.target, e.key, e.action) for e in graph.edges]
    assert pairs == [("S0", "S1", 0, "click a"), ("S1", "S0", 0, "back"), ("S0", "S1", 1, "key body 'Enter'")]


def test_a_step_without_dom_goes_to_the_crash_state_and_the_next_step_has_no_edge():
    t = trace(step(0, "load"), step(1, "click", "button 'Boom'", dom=None), step(2, "click", "x"),
              step(3, "click", "button 'Add'"), step(4, "click", "y"))
    pages = {0: html(0), 2: html(0), 3: html(1)}  # step 4's file is missing from the store
    graph = abstracting.abstract(t, reader(pages))
    assert [(n.id, n.steps) for n in graph.nodes] == [
        ("S0", (0, 2)), (abstracting.CRASH, (1, 4)), ("S1", (3,))]
    crash = graph.nodes[1]
    assert crash.digest == "" and crash.dom is None
    assert [(e.source, e.target, e.steps) for e in graph.edges] == [
        ("S0", abstracting.CRASH, (1,)), ("S0", "S1", (3,)), ("S1", abstracting.CRASH, (4,))]


def test_a_state_shows_the_first_screenshot_taken_in_it():
    t = trace(step(0, "load", shot="shots/0000.png"), step(1, "click", "a"), step(2, "click", "b"),
              step(3, "click", "c", shot="shots/0003.png"))
    graph = abstracting.abstract(t, reader({0: html(0), 1: html(1), 2: html(0), 3: html(1, "9:41")}))
    assert [(n.id, n.screenshot) for n in graph.nodes] == [("S0", "shots/0000.png"), ("S1", "shots/0003.png")]


def test_an_empty_trace_is_an_empty_graph():
    graph = abstracting.abstract(trace(), lambda key: None)
    assert graph.nodes == () and graph.edges == ()


def test_networkx_round_trip_keeps_everything():
    t, pages = todo_run()
    graph = abstracting.abstract(t, reader(pages))
    g = abstracting.to_networkx(graph)
    assert isinstance(g, networkx.MultiDiGraph)
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 5
    assert g.nodes["S1"]["steps"] == (1, 2, 6)
    assert g.edges["S2", "S2", 0]["ok"] is False
    assert abstracting.from_networkx(g) == graph
    # networkx algorithms work on it: every state is reachable from the start
    assert networkx.descendants(g, "S0") | {"S0"} == {"S0", "S1", "S2"}


def test_stored_json_reads_back_into_the_same_graph():
    t, pages = todo_run()
    graph = abstracting.abstract(t, reader(pages))
    again = evidence.StateGraph.model_validate_json(graph.model_dump_json())
    assert again == graph
    assert abstracting.from_networkx(abstracting.to_networkx(again)) == graph
