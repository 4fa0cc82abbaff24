"""Steering by what has not run: values from Istanbul maps, live counters, code facts
and handler sources (no browser)."""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import inspecting
from iwcbench.pipeline.stages.exploring import heuristic, observing, policy, reaching

KEY = "app.js"


def _loc(line: int, end: int | None = None) -> dict:
    return {"start": {"line": line, "column": 0}, "end": {"line": end or line, "column": 80}}


# app.js: start() (lines 1-5) calls reset(); reset() (7-9); win() (11-13); onKey (15-20)
MAP = {KEY: {
    "path": KEY,
    "fnMap": {
        "0": {"name": "start", "decl": _loc(1), "loc": _loc(1, 5), "line": 1},
        "1": {"name": "reset", "decl": _loc(7), "loc": _loc(7, 9), "line": 7},
        "2": {"name": "win", "decl": _loc(11), "loc": _loc(11, 13), "line": 11},
        "3": {"name": "(anonymous_3)", "decl": _loc(15), "loc": _loc(15, 20), "line": 15},
    },
    "statementMap": {str(i): _loc(line) for i, line in enumerate((2, 3, 8, 12, 16, 17, 18, 19))},
    "branchMap": {"0": {"type": "switch", "loc": _loc(16, 19), "locations": [_loc(17), _loc(18)], "line": 16}},
    "s": {}, "f": {}, "b": {"0": [0, 0]},
}}
FACTS = {KEY: {
    "fns": {"0": {"name": "start", "calls": ["reset"], "inner": []},
            "1": {"name": "reset", "calls": [], "inner": []},
            "2": {"name": "win", "calls": [], "inner": []},
            "3": {"name": "onKey", "calls": ["win"], "inner": []}},
    "keys": [{"key": "p", "mods": [], "hold": False, "fn": "3", "guards": [[0, 0]]},
             {"key": "z", "mods": ["Control"], "hold": False, "fn": "3", "guards": [[0, 1]]}],
    "sequences": [{"keys": ["ArrowUp", "ArrowUp", "b", "a"], "users": ["3"]}],
    "timers": [{"fn": "0", "callback": None, "callee": "win", "delay": 1500}],
}}


def _counts(ran_functions=(), ran_statements=(), arms=(0, 0)) -> dict:
    return {KEY: {"f": {str(i): (1 if str(i) in ran_functions else 0) for i in range(4)},
                  "s": {str(i): (1 if str(i) in ran_statements else 0) for i in range(8)},
                  "b": {"0": list(arms)}}}


def _reach(**counts) -> reaching.Reach:
    return reaching.Reach(reaching.Code(MAP, FACTS), _counts(**counts))


def test_the_coverage_function_name_is_istanbuls():
    # istanbul-lib-instrument names "x.js"'s coverage function cov_vllpstvmv
    assert reaching.coverage_variable("x.js") == "cov_vllpstvmv"


def test_a_function_that_never_ran_is_worth_more_and_its_callees_add_to_it():
    fresh = _reach()
    assert fresh.value(KEY, "1") > 1.0
    assert fresh.value(KEY, "0") > fresh.own(KEY, "0")  # start() leads to reset() too
    after = _reach(ran_functions={"0", "1"}, ran_statements={"0", "1", "2"})
    assert after.value(KEY, "0") == 0.0
    assert after.value(KEY, "2") > 1.0


def test_a_handler_is_known_by_its_first_counter_or_by_the_names_it_calls():
    reach = _reach(ran_functions={"0"}, ran_statements={"0", "1"})
    variable = reaching.coverage_variable(KEY)
    instrumented = f"() => {{{variable}().f[2]++;{variable}().s[3]++;celebrate();}}"
    assert reach.handler_value(instrumented) == reach.value(KEY, "2") > 1.0
    assert reach.handler_value("function onclick(event) { reset() }") == reach.value(KEY, "1")
    assert reach.handler_value("function onclick(event) { unknownThing() }") == 0.0
    assert reach.handler_value("function () { [native code] }") == 0.0


def test_keys_whose_branch_arms_never_ran_come_first_and_drop_once_played():
    plays = {p.value: p.weight for p in _reach().key_plays()}
    assert plays["p"] > 1 and plays["Control+z"] > 1
    assert plays["p Control+z"] > 1  # one handler's open keys, in a row
    assert plays["ArrowUp ArrowUp b a"] > 1  # the key array, as a sequence
    later = {p.value: p.weight for p in _reach(ran_functions={"3"}, arms=(2, 0), ran_statements={"4", "5", "7"}
                                               ).key_plays()}
    assert later["p"] < 1 < later["Control+z"]


def test_waiting_is_worth_it_while_a_scheduled_callback_never_ran():
    assert _reach().pending_timers() == []  # start() never ran: nothing was scheduled
    assert _reach(ran_functions={"0"}).pending_timers() == [1500.0]
    assert _reach(ran_functions={"0", "2"}, ran_statements={"3"}).pending_timers() == []


def _button(ref: str, selector: str, name: str) -> observing.Candidate:
    return observing.Candidate(ref=ref, selector=selector, tag="button", role="button", name=name, kinds=("click",))


def test_the_heuristic_presses_first_what_leads_to_code_that_never_ran():
    variable = reaching.coverage_variable(KEY)
    counts = _counts(ran_functions={"0", "1"}, ran_statements={"0", "1", "2"})
    listeners = {f"#b{i}": (inspecting.Listener("click", f"() => {{{variable}().f[{fid}]++;}}"),)
                 for i, fid in enumerate(("0", "1", "2", "0"))}
    buttons = tuple(_button(f"e{i}", f"#b{i}", f"B{i}") for i in range(4))
    page = observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=buttons, tree="", keyboard=False, canvases=0, scrollable=False,
                                 listeners=listeners)
    for seed in range(10):
        chooser = heuristic.HeuristicPolicy()
        chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=seed,
                                     max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3,
                                     coverage=lambda: counts, coverage_map=MAP, facts=FACTS))
        chooser.rng.random = lambda: 0.5  # no epsilon pick
        assert chooser.choose(page).selector == "#b2", seed


def test_an_app_that_only_animates_is_watched_then_left_when_nothing_comes():
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=False, step_timeout_s=10, plateau_steps=3, idle_steps=4))
    page = observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=(), tree="", keyboard=False, canvases=0, scrollable=False)
    kinds = []
    for _ in range(10):
        action = chooser.choose(page)
        kinds.append(action.kind)
        if action.kind == "finish":
            break
        chooser.observe(evidence.Step(index=1, action=action, url=page.url), page)
    assert kinds[:4] == ["wait"] * 4 and kinds[-1] == "finish"


def test_what_an_action_revealed_is_looked_for_where_it_was_seen_before():
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=False, step_timeout_s=10, plateau_steps=3))
    chooser.rng.random = lambda: 0.5  # no epsilon pick

    def board(**faces) -> observing.Observation:
        cards = tuple(_button(f"e{i}", f"#c{i}", faces.get(f"c{i}", "Hidden card")) for i in range(6))
        return observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state=str(sorted(faces.items())),
                                     visual="v", candidates=cards, tree="", keyboard=False, canvases=0, scrollable=False)

    chooser.choose(board())  # sees every card hidden
    chooser.names_seen["#c4"].add("🐶")  # card 4 showed the dog earlier
    chooser._commit(board(), "click|#c1", evidence.Action(kind="click", target="card", selector="#c1"))
    now = board(c1="🐶")
    chooser.observe(evidence.Step(index=2, action=evidence.Action(kind="click", selector="#c1"), url=now.url), now)
    assert chooser.choose(now).selector == "#c4"
