"""The quality stage never renders a state again whose probe facts the explorer
stored beside its DOM snapshot (taken in the live page at 1280×800): only the other
states go to the tool server, and the metrics see every chosen state in visiting
order. The explorer is asked for probes only when a rendered metric is selected and its
viewport is the one states are measured at."""

from __future__ import annotations

import json

from iwcbench.pipeline.contracts import artifacts, evidence, settings
from iwcbench.pipeline.kits import inspecting
from iwcbench.pipeline.stages import quality
from iwcbench.pipeline.stages.quality import rendering


class _Tools:
    """Stands in for the server: records the states it is asked to render."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def ask(self, kind, job, timeout_s, what, app_errors=False):
        assert kind == "states"
        self.asked.append([s["id"] for s in job["states"]])
        return {"states": {s["id"]: {"rendered": s["id"]} for s in job["states"]}, "problems": {}}


def _node(n: int) -> evidence.StateNode:
    return evidence.StateNode(id=f"S{n}", digest=str(n), first_step=n, steps=(n,), dom=f"dom/{n:04d}.html",
                              url="http://127.0.0.1:1/")


def _store(probed: dict[int, list[int]]) -> dict[str, bytes]:
    files = {f"dom/{n:04d}.html": b"<html><body><p>hi</p></body></html>" for n in range(4)}
    for n, viewport in probed.items():
        files[artifacts.probe_of(f"dom/{n:04d}.html")] = json.dumps({"viewport": viewport, "probed": n}).encode()
    return files


def test_probed_states_are_used_as_stored_and_only_the_others_are_rendered():
    files = _store({0: [1280, 800], 2: [1280, 800], 3: [375, 667]})  # S3's facts are of another viewport
    tools, out = _Tools(), rendering.Rendered()
    nodes = [_node(n) for n in range(4)]
    rendering.render_states(tools, nodes, files.get, "http://127.0.0.1:1", {}, out, 30.0)  # type: ignore[arg-type]
    assert tools.asked == [["S1", "S3"]]
    assert out.reused == ["S0", "S2"]
    assert list(out.states) == ["S0", "S1", "S2", "S3"]
    assert out.states["S0"]["probed"] == 0 and out.states["S1"] == {"rendered": "S1"}


def test_when_every_state_was_probed_nothing_is_loaded():
    tools, out = _Tools(), rendering.Rendered()
    rendering.render_states(tools, [_node(0), _node(1)], _store({0: [1280, 800], 1: [1280, 800]}).get,  # type: ignore[arg-type]
                            "http://127.0.0.1:1", {}, out, 30.0)
    assert tools.asked == [] and out.reused == ["S0", "S1"] and not out.problems


def test_the_probe_key_sits_beside_the_snapshot():
    assert artifacts.probe_of("dom/0012.html") == "probes/0012.json"


def test_the_explorer_probes_only_for_a_rendered_metric_at_the_measured_viewport():
    wanted = settings.Quality()
    assert quality.probes_wanted(wanted, settings.Exploration()) == 1  # the page as loaded
    explored = settings.Quality(states="explored")
    assert quality.probes_wanted(explored, settings.Exploration()) == 4 * explored.max_states
    assert quality.probes_wanted(wanted, settings.Exploration(viewport_width=1024)) == 0
    only_code = settings.Quality(metrics=["wcb_linting"])
    assert quality.probes_wanted(only_code, settings.Exploration()) == 0


class _Tab:
    def __init__(self, facts: dict) -> None:
        self.facts = facts

    def isolated(self, source, arg=None, deadline_s=10.0):
        assert arg == {"max": inspecting.PROBE_MAX, "budget_ms": None}
        return self.facts


def test_a_scrolled_page_is_probed_unless_a_box_moves_with_the_scroll():
    at_top = {"scroll": [0, 0], "pinned": True, "boxes": []}
    scrolled = {"scroll": [0, 300], "pinned": False, "boxes": []}
    assert inspecting.probe(_Tab(at_top)) == at_top  # type: ignore[arg-type]
    assert inspecting.probe(_Tab(scrolled)) == scrolled  # type: ignore[arg-type]
    assert inspecting.probe(_Tab({**scrolled, "pinned": True})) is None  # type: ignore[arg-type]
    assert inspecting.probe(_Tab(None)) is None  # type: ignore[arg-type]
