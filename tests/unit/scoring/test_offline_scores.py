"""Offline scores from hand-made evidence: values, reasons, directions, edge cases."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import scoring

URL = "http://127.0.0.1:8000/index.html"
CRASH = "S_crash"


def report(mode: str = "instrumented", statements: int = 57, functions: int = 10, branches: int = 8,
           reason: str = "instrumented 1 script") -> evidence.InstrumentationReport:
    files = (evidence.InstrumentedFile(path="app.js", kind="external", statements=statements,
                                       functions=functions, branches=branches),) if mode == "instrumented" else ()
    return evidence.InstrumentationReport(framework="static", mode=mode, reason=reason, files=files)


def step(index: int, kind: str = "click", ok: bool = True, gain: float = 0.0, statements: float | None = None,
         **extra) -> evidence.Step:
    cov = evidence.CoverageSummary(statements=statements, functions=statements and 50.0, branches=statements and 25.0)
    return evidence.Step(index=index, action=evidence.Action(kind=kind, target=f"t{index}"), ok=ok, url=URL,
                         coverage=cov, coverage_gain=gain, **{"dom": f"dom/{index:04d}.html", **extra})


def trace(*steps: evidence.Step) -> evidence.Trace:
    return evidence.Trace(explorer="heuristic", seed=0, max_steps=10, start_url=URL, steps=steps)


def graph(visits: dict[str, tuple[int, ...]], edges: list[tuple[str, str, tuple[int, ...]]],
          idle: set[int] | None = None, unsure: set[int] = frozenset()) -> evidence.StateGraph:
    """A state graph; with ``idle`` (and ``unsure``), one whose edges list the steps that had
    no effect (and those that cannot tell), as abstracting writes them; without, one from
    before effects were read."""
    nodes = tuple(evidence.StateNode(id=s, digest=s if s != CRASH else "", first_step=v[0], steps=v)
                  for s, v in visits.items())
    return evidence.StateGraph(graph={"effects": "1"} if idle is not None else {}, nodes=nodes, edges=tuple(
        evidence.StateEdge(source=a, target=b, action=f"click {a}->{b}", steps=st,
                           idle=tuple(i for i in st if i in (idle or ())), unsure=tuple(i for i in st if i in unsure))
        for a, b, st in edges))


def a11y(**pages: tuple[tuple[str, str | None], ...]) -> evidence.AccessibilityReport:
    return evidence.AccessibilityReport(version="4.11.0", pages={
        int(k[1:]): tuple(evidence.AxeViolation(id=rule, impact=impact, nodes=2) for rule, impact in v)
        for k, v in pages.items()})


# a small healthy run: S0 --add--> S1 --add--> S2, one idle click in S2, then back to S0
HEALTHY = trace(step(0, "load", statements=40.0), step(1, gain=10.0, statements=50.0),
                step(2, gain=12.0, statements=62.0), step(3, statements=62.0), step(4, "back", statements=62.0))
HEALTHY_GRAPH = graph({"S0": (0, 4), "S1": (1,), "S2": (2, 3)},
                      [("S0", "S1", (1,)), ("S1", "S2", (2,)), ("S2", "S2", (3,)), ("S2", "S0", (4,))])


def test_every_named_score_is_present_with_reason_unit_and_direction():
    scores = scoring.score_offline(report(), HEALTHY, HEALTHY_GRAPH, a11y(s0=()))
    assert tuple(scores) == scoring.NAMES == (
        "coverage_statements", "coverage_functions", "coverage_branches", "runtime_errors",
        "blocked_requests", "states", "transitions", "dead_end_ratio", "no_effect_ratio", "accessibility")
    for name, s in scores.items():
        assert s.reason and s.unit, name
        assert s.higher_is_better is (name not in {"runtime_errors", "blocked_requests", "dead_end_ratio",
                                                   "no_effect_ratio"}), name


def test_coverage_is_the_final_percentage_with_counts_in_the_reason():
    scores = scoring.score_offline(report(statements=50), HEALTHY, HEALTHY_GRAPH, None)
    assert scores["coverage_statements"].value == 62.0
    assert scores["coverage_statements"].reason == "31 of 50 statements executed"
    assert scores["coverage_functions"].value == 50.0 and scores["coverage_branches"].value == 25.0
    assert scores["coverage_branches"].reason == "2 of 8 branches executed"


def test_black_box_apps_have_coverage_unscored_with_the_cause():
    scores = scoring.score_offline(report("black_box", reason="Istanbul could not parse app.js: JSX"),
                                   HEALTHY, HEALTHY_GRAPH, None)
    for metric in ("statements", "functions", "branches"):
        s = scores[f"coverage_{metric}"]
        assert s.value is None and "black-box" in s.reason and "JSX" in s.reason
    assert scores["states"].value == 3.0  # the rest is still measured


def test_an_app_without_javascript_has_coverage_unscored_not_zero():
    scores = scoring.score_offline(report(statements=0, functions=0, branches=0), HEALTHY, HEALTHY_GRAPH, None)
    assert scores["coverage_statements"].value is None
    assert "no statements" in scores["coverage_statements"].reason


def test_graph_counts_states_transitions_and_dead_ends():
    scores = scoring.score_offline(report(), HEALTHY, HEALTHY_GRAPH, None)
    assert scores["states"].value == 3.0
    assert scores["transitions"].value == 3.0  # the self-loop is not a transition
    assert scores["dead_end_ratio"].value == 0.0
    assert scores["no_effect_ratio"].value == 25.0  # step 3 of steps 1-4
    assert scores["no_effect_ratio"].evidence == ("step 3: click t3",)


def test_a_state_the_run_ended_in_is_not_a_dead_end_but_one_whose_actions_only_loop_or_crash_is():
    t = trace(step(0, "load"), step(1), step(2), step(3), step(4), step(5, dom=None))
    g = graph({"S0": (0,), "S1": (1, 2), "S2": (3,), CRASH: (5,), "S3": (4,)},
              [("S0", "S1", (1,)), ("S1", "S1", (2,)), ("S1", "S2", (3,)), ("S2", "S3", (4,)), ("S3", CRASH, (5,))])
    s = scoring.score_offline(report(), t, g, None)
    assert s["states"].value == 4.0  # the crash sentinel is not a state
    # acted in: S0, S1, S2 (lead elsewhere), S3 (only crashed) → 1 of 4
    assert s["dead_end_ratio"].value == 25.0 and s["dead_end_ratio"].evidence == ("S3",)
    g2 = graph({"S0": (0,), "S1": (1,)}, [("S0", "S1", (1,))])
    assert scoring.score_offline(report(), trace(step(0, "load"), step(1)), g2, None)["dead_end_ratio"].value == 0.0


def test_when_no_action_changes_anything_both_ratios_are_at_their_worst():
    t = trace(step(0, "load"), *(step(i) for i in range(1, 6)))
    g = graph({"S0": (0, 1, 2, 3, 4, 5)}, [("S0", "S0", (1, 2, 3, 4, 5))], idle={1, 2, 3, 4, 5})
    s = scoring.score_offline(report(), t, g, None)
    assert s["no_effect_ratio"].value == 100.0
    assert s["no_effect_ratio"].reason.startswith("5 of 5 performed actions changed nothing a user can see")
    assert s["no_effect_ratio"].evidence[0] == "step 1: click t1"
    assert s["dead_end_ratio"].value == 100.0
    assert s["states"].value == 1.0 and s["transitions"].value == 0.0


def test_code_that_ran_is_no_effect_what_it_changed_is():
    """A key whose handler ran (coverage rose) and changed nothing is idle; one that only
    changed stored data, in the same state, is not."""
    t = trace(step(0, "load"), step(1, "key", gain=3.0), step(2, "key"))
    effects_read = graph({"S0": (0, 1, 2)}, [("S0", "S0", (1, 2))], idle={1})
    assert scoring.score_offline(report(), t, effects_read, None)["no_effect_ratio"].value == 50.0
    # a graph from before the other effects were read: the page and its address alone, never coverage
    older = scoring.score_offline(report(), t, graph({"S0": (0, 1, 2)}, [("S0", "S0", (1, 2))]), None)
    assert older["no_effect_ratio"].value == 100.0 and "from before" in older["no_effect_ratio"].reason


def test_steps_a_canvas_cannot_tell_are_left_out_and_counted():
    t = trace(step(0, "load"), step(1, "key"), step(2, "key"), step(3, "key"))
    g = graph({"S0": (0, 1, 2, 3)}, [("S0", "S0", (1, 2, 3))], idle={3}, unsure={1, 2})
    s = scoring.score_offline(report(), t, g, None)["no_effect_ratio"]
    assert s.value == 100.0 and s.raw == {"no_effect": 1, "actions": 1, "unsure": 2}
    assert "2 left out" in s.reason
    none_told = graph({"S0": (0, 1, 2, 3)}, [("S0", "S0", (1, 2, 3))], idle=set(), unsure={1, 2, 3})
    s = scoring.score_offline(report(), t, none_told, None)["no_effect_ratio"]
    assert s.value is None and "3 aimed at a canvas or the page" in s.reason


def test_typing_hovering_scrolling_failed_and_crashed_steps_are_not_counted_as_no_effect():
    t = trace(step(0, "load"), step(1, "type"), step(2, "hover"), step(3, "scroll"), step(4, "wait"),
              step(5, ok=False), step(6, dom=None), step(7), step(8))
    g = graph({"S0": (0, 1, 2, 3, 4, 5, 7), CRASH: (6,), "S1": (8,)},
              [("S0", "S0", (1, 2, 3, 4, 5)), ("S0", CRASH, (6,)), ("S0", "S1", (8,))])
    s = scoring.score_offline(report(), t, g, None)
    assert s["no_effect_ratio"].value == 0.0 and s["no_effect_ratio"].raw == {"no_effect": 0, "actions": 1, "unsure": 0}
    only_typing = trace(step(0, "load"), step(1, "type"))
    unscored = scoring.score_offline(report(), only_typing, graph({"S0": (0, 1)}, [("S0", "S0", (1,))]), None)
    assert unscored["no_effect_ratio"].value is None


def test_runtime_errors_count_page_and_console_errors_with_a_per_step_rate():
    t = trace(step(0, "load", console_errors=("Failed to load resource",)),
              step(1, page_errors=("TypeError: x is undefined",)), step(2),
              step(3, page_errors=("TypeError: a", "TypeError: b"), blocked_requests=("https://cdn.example.com/x.js",)))
    s = scoring.score_offline(report(), t, None, None)
    assert s["runtime_errors"].value == 4.0 and not s["runtime_errors"].higher_is_better
    assert s["runtime_errors"].raw == {"page_errors": 3, "console_errors": 1, "steps": 4, "per_step": 1.0,
                                          "console_lines_unlisted": 0}
    assert s["runtime_errors"].evidence == ("step 0", "step 1", "step 3")
    assert s["blocked_requests"].value == 1.0 and "cdn.example.com" in s["blocked_requests"].reason
    clean = scoring.score_offline(report(), HEALTHY, HEALTHY_GRAPH, None)
    assert clean["runtime_errors"].value == 0.0 and clean["blocked_requests"].value == 0.0


def test_no_steps_means_unscored_not_zero():
    s = scoring.score_offline(report(), trace(), evidence.StateGraph(), evidence.AccessibilityReport())
    assert all(score.value is None for score in s.values()), {n: v.value for n, v in s.items()}
    assert "nothing was explored" in s["runtime_errors"].reason


def test_nothing_at_all_is_unscored_with_reasons():
    s = scoring.score_offline(None, None, None, None)
    assert all(score.value is None and score.reason for score in s.values())


def test_accessibility_is_impact_weighted_and_averaged_per_state():
    g = graph({"S0": (0, 2), "S1": (1,)}, [("S0", "S1", (1,)), ("S1", "S0", (2,))])
    report_ = a11y(s0=(("button-name", "critical"), ("color-contrast", "serious")),  # 100 - 16 = 84
                   s2=(("region", "moderate"),),                                    # 97, same state S0
                   s1=(("landmark-one-main", "minor"), ("odd", None)))              # 100 - 2 = 98
    s = scoring.score_offline(report(), HEALTHY, g, report_)["accessibility"]
    assert s.value == pytest.approx(((84 + 97) / 2 + 98) / 2)
    assert s.evidence[0] == "step 0"  # the worst page first
    assert s.raw["rules"]["button-name"] == 1 and s.raw["weights"]["critical"] == 10.0
    assert "button-name on 1 page" in s.reason and "over 2 states" in s.reason


def test_a_page_with_many_violations_bottoms_out_at_zero():
    bad = a11y(s0=tuple((f"rule-{i}", "critical") for i in range(12)))
    assert scoring.score_offline(None, None, None, bad)["accessibility"].value == 0.0


def test_accessibility_is_unscored_when_axe_did_not_run_or_failed():
    off = scoring.score_offline(report(), HEALTHY, HEALTHY_GRAPH, evidence.AccessibilityReport())
    assert off["accessibility"].value is None and "did not run" in off["accessibility"].reason
    failed = evidence.AccessibilityReport(error="step 0: axe-core took longer than 10000 ms")
    s = scoring.score_offline(report(), HEALTHY, HEALTHY_GRAPH, failed)
    assert s["accessibility"].value is None and "took longer" in s["accessibility"].reason


def test_accessibility_reads_the_same_screens_whatever_the_explorer_found():
    """Two explorations of identical pages: one stopped after the start state and seven
    more, the other wandered on to a worse page. Both read the start state and the first
    seven states after it, so both get the same value."""
    ok = ()
    bad = (evidence.AxeViolation(id="image-alt", impact="critical", nodes=1),)
    nodes = [evidence.StateNode(id=f"S{i}", digest=f"d{i}", first_step=i, steps=(i,)) for i in range(10)]
    short = evidence.AccessibilityReport(pages={i: ok for i in range(8)})
    longer = evidence.AccessibilityReport(pages={**{i: ok for i in range(8)}, 8: bad, 9: bad})
    graph = evidence.StateGraph(nodes=tuple(nodes), edges=())
    first = scoring.score_offline(None, None, evidence.StateGraph(nodes=tuple(nodes[:8]), edges=()), short)
    second = scoring.score_offline(None, None, graph, longer)
    assert first["accessibility"].value == second["accessibility"].value == 100.0
    assert second["accessibility"].raw["screens"] == sorted(f"S{i}" for i in range(8))
    assert scoring.screens(graph) == [f"S{i}" for i in range(8)]
