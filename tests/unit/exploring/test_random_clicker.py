"""The seeded random clicker, the baseline the heuristic is measured against."""

from __future__ import annotations

import collections

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import exploring
from iwcbench.pipeline.stages.exploring import clicker, heuristic, observing, policy


def _c(ref: str, selector: str, kinds: tuple[str, ...], **extra) -> observing.Candidate:
    return observing.Candidate(ref=ref, selector=selector, tag=extra.pop("tag", "button"), role="button",
                               name=ref, kinds=kinds, **extra)


def _page(*candidates: observing.Candidate, **extra) -> observing.Observation:
    return observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=candidates, tree="", keyboard=extra.pop("keyboard", False), canvases=0,
                                 scrollable=False, **extra)


def _clicker(seed: int) -> clicker.RandomClicker:
    chosen = clicker.RandomClicker()
    chosen.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=seed,
                                max_steps=100, instrumented=True, step_timeout_s=10, plateau_steps=3))
    return chosen


PAGE = _page(_c("a", "#a", ("click",)), _c("b", "#b", ("click", "hover")),
             _c("f", "#f", ("type",), tag="input", type="text"), _c("x", "#x", ("click",), external=True),
             _c("s", "#s", ("select",), tag="select", options=("1", "2")), keyboard=True)


def _labels(seed: int, steps: int) -> list[str]:
    chosen = _clicker(seed)
    return [chosen.choose(PAGE).label() for _ in range(steps)]


def test_the_same_seed_clicks_the_same_way_and_another_seed_differently():
    assert _labels(3, 30) == _labels(3, 30)
    assert _labels(3, 30) != _labels(4, 30)


def test_it_picks_uniformly_among_what_the_page_offers_and_never_an_external_link():
    chosen = _clicker(0)
    picks = collections.Counter()
    for _ in range(6000):
        action = chosen.choose(PAGE)
        picks[(action.kind, action.selector)] += 1
    offered = {("click", "#a"), ("click", "#b"), ("hover", "#b"), ("type", "#f"), ("select", "#s"), ("key", None)}
    assert set(picks) == offered
    assert all(800 < n < 1200 for n in picks.values()), picks  # 1000 each, give or take


def test_it_never_stops_early_and_waits_when_nothing_is_offered():
    chosen = _clicker(0)
    for _ in range(50):
        assert chosen.choose(_page()).kind == "wait"
    behind = _page(_c("a", "#a", ("click",), covered=True), _c("ok", "#ok", ("click",)))
    assert {chosen.choose(behind).selector for _ in range(40)} == {"#ok"}  # nothing behind a dialog


def test_the_settings_name_chooses_the_policy():
    assert isinstance(exploring.offline_policy("random"), clicker.RandomClicker)
    assert isinstance(exploring.offline_policy("heuristic"), heuristic.HeuristicPolicy)
    assert exploring.offline_policy("random").name == "random"
    assert evidence.Trace(explorer="random", seed=0, max_steps=1, start_url="u").explorer == "random"
