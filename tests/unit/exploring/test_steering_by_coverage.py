"""Steering by what has not run: values from Istanbul maps, live counters, code facts
and handler sources (no browser)."""

from __future__ import annotations

import dataclasses

from iwcbench.pipeline.contracts import evidence, instrumented
from iwcbench.pipeline.kits import inspecting
from iwcbench.pipeline.stages.exploring import heuristic, memory, offering, observing, policy, reaching

KEY = "app.js"


def _typed(facts: dict) -> dict[str, instrumented.CodeFacts]:
    """Code facts as instrumenting hands them to the explorer: validated models."""
    return instrumented.FACTS.schema.validate_python(facts)


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
RAW_FACTS = {KEY: {
    "fns": {"0": {"name": "start", "calls": ["reset"], "inner": []},
            "1": {"name": "reset", "calls": [], "inner": []},
            "2": {"name": "win", "calls": [], "inner": []},
            "3": {"name": "onKey", "calls": ["win"], "inner": []}},
    "keys": [{"key": "x", "mods": [], "hold": False, "fn": "3", "guards": [["0", 0]]},
             {"key": "z", "mods": ["Control"], "hold": False, "fn": "3", "guards": [["0", 1]]}],
    "sequences": [{"keys": ["ArrowUp", "ArrowUp", "b", "a"], "users": ["3"]}],
    "timers": [{"fn": "0", "callback": None, "callee": "win", "delay": 1500}],
}}
FACTS = _typed(RAW_FACTS)


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
    assert plays["x"] > 1 and plays["Control+z"] > 1
    assert plays["x Control+z"] > 1  # one handler's open keys, in a row
    assert plays["ArrowUp ArrowUp b a"] > 1  # the key array, as a sequence
    later = {p.value: p.weight for p in _reach(ran_functions={"3"}, arms=(2, 0), ran_statements={"4", "5", "7"}
                                               ).key_plays()}
    assert later["x"] < 1 < later["Control+z"]


def test_a_pause_key_waits_until_the_rest_is_played_out():
    # star-fighter-grok3 held "p" at step 9 and its pause could not be undone (the check
    # sits in the update a paused game no longer calls): 71 % instead of 84 %
    facts = _typed({KEY: {**RAW_FACTS[KEY], "keys": [
        {"key": "p", "mods": [], "hold": True, "fn": "3", "guards": [["0", 0]]},
        {"key": "ArrowLeft", "mods": [], "hold": True, "fn": "3", "guards": [["0", 1]]}]}})
    reach = reaching.Reach(reaching.Code(MAP, facts), _counts())
    plays = {p.value: p.weight for p in reach.key_plays()}
    assert plays[f"hold:p:{reaching.HOLD_MS}"] == reaching.PAUSE_WEIGHT
    assert plays[f"hold:ArrowLeft:{reaching.HOLD_MS}"] > 1
    assert not [v for v in plays if "+p" in v or v.startswith("hold:p+")]  # never held with a move


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
    chooser.memory.names_seen["#c4"].add("🐶")  # card 4 showed the dog earlier
    chooser._commit(board(), "click|#c1", evidence.Action(kind="click", target="card", selector="#c1"))
    now = board(c1="🐶")
    chooser.observe(evidence.Step(index=2, action=evidence.Action(kind="click", selector="#c1"), url=now.url), now)
    assert chooser.choose(now).selector == "#c4"


# A second file for what nothing calls: used() (1-3) with a helper inside it (2);
# orphan() (5-8), which no code mentions, with a callback inside it (6); onKey's
# window handler names boot() (10-12) only in an inline onclick.
DEAD_KEY = "dead.js"
DEAD_MAP = {DEAD_KEY: {
    "path": DEAD_KEY,
    "fnMap": {
        "0": {"name": "used", "decl": _loc(1), "loc": _loc(1, 3), "line": 1},
        "1": {"name": "(anonymous_1)", "decl": _loc(2), "loc": {"start": {"line": 2, "column": 10},
                                                                "end": {"line": 2, "column": 40}}, "line": 2},
        "2": {"name": "orphan", "decl": _loc(5), "loc": _loc(5, 8), "line": 5},
        "3": {"name": "(anonymous_3)", "decl": _loc(6), "loc": {"start": {"line": 6, "column": 10},
                                                                "end": {"line": 6, "column": 40}}, "line": 6},
        "4": {"name": "boot", "decl": _loc(10), "loc": _loc(10, 12), "line": 10},
    },
    "statementMap": {"0": {"start": {"line": 2, "column": 2}, "end": {"line": 2, "column": 5}},
                     "1": {"start": {"line": 2, "column": 20}, "end": {"line": 2, "column": 30}},
                     "2": {"start": {"line": 7, "column": 2}, "end": {"line": 7, "column": 9}},
                     "3": {"start": {"line": 11, "column": 2}, "end": {"line": 11, "column": 9}},
                     "4": {"start": {"line": 14, "column": 0}, "end": {"line": 14, "column": 9}}},
    "branchMap": {}, "s": {}, "f": {}, "b": {},
}}
RAW_DEAD_FACTS = {DEAD_KEY: {
    "fns": {"0": {"name": "used", "calls": [], "inner": ["1"]}, "1": {"name": None, "calls": [], "inner": []},
            "2": {"name": "orphan", "calls": [], "inner": ["3"]}, "3": {"name": None, "calls": [], "inner": []},
            "4": {"name": "boot", "calls": [], "inner": []}},
    "keys": [], "sequences": [], "timers": [],
    "named": {"0": "used", "2": "orphan", "4": "boot"},
    "mentions": ["used", "document", "addEventListener"],
}}
DEAD_FACTS = _typed(RAW_DEAD_FACTS)


def _dead_reach(ran_functions=(), ran_statements=()) -> reaching.Reach:
    counts = {DEAD_KEY: {"f": {str(i): int(str(i) in ran_functions) for i in range(5)},
                         "s": {str(i): int(str(i) in ran_statements) for i in range(5)}, "b": {}}}
    return reaching.Reach(reaching.Code(DEAD_MAP, DEAD_FACTS), counts)


def test_what_nothing_mentions_cannot_run_and_neither_can_what_it_holds():
    fresh = _dead_reach().open_code()
    assert set(fresh.functions) == {(DEAD_KEY, "0"), (DEAD_KEY, "1")}
    assert {(k, f) for k, f, _ in fresh.dead} == {(DEAD_KEY, "2"), (DEAD_KEY, "3"), (DEAD_KEY, "4")}
    assert dict(((k, f), why) for k, f, why in fresh.dead)[(DEAD_KEY, "3")] == "inside orphan, which nothing mentions"
    # an inline handler the page attached names boot(): it may run
    assert (DEAD_KEY, "4") in _dead_reach().open_code(frozenset({"boot"})).functions


def test_statements_left_in_a_function_that_ran_keep_it_open_and_top_level_ones_do_not():
    ran = _dead_reach(ran_functions={"0", "1"}, ran_statements={"1"}).open_code()
    assert ran.functions == () and ran.statements == 1  # statement 0, in used(); 4 is top level
    done = _dead_reach(ran_functions={"0", "1"}, ran_statements={"0", "1"}).open_code()
    assert not done.reachable


def _measured_chooser(counts: dict) -> heuristic.HeuristicPolicy:
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3, idle_steps=3,
                                 coverage=lambda: counts, coverage_map=DEAD_MAP, facts=DEAD_FACTS))
    return chooser


def test_measured_it_spends_the_budget_while_code_that_can_run_never_ran():
    counts = {DEAD_KEY: {"f": {"0": 1, "1": 0}, "s": {"0": 1}, "b": {}}}
    chooser = _measured_chooser(counts)
    page = observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=(_button("e0", "#b0", "B0"),), tree="", keyboard=False, canvases=0,
                                 scrollable=False)
    chooser.memory.idle = 40  # long past every idle limit
    assert chooser.choose(page).kind != "finish"
    counts[DEAD_KEY]["f"]["1"] = 1
    counts[DEAD_KEY]["s"]["1"] = 1
    action = chooser.choose(page)
    assert action.kind == "finish"
    assert action.intent.startswith("every function and statement of the app that can run ran")
    assert "(never called, as no code mentions them: boot, orphan, and 1 function inside them)" in action.intent


def test_an_app_that_keeps_things_in_storage_is_reloaded_a_few_times_apart():
    facts = _typed({DEAD_KEY: {**RAW_DEAD_FACTS[DEAD_KEY],
                               "mentions": [*RAW_DEAD_FACTS[DEAD_KEY]["mentions"], "localStorage"]}})
    counts = {DEAD_KEY: {"f": {}, "s": {}, "b": {}}}
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3,
                                 coverage=lambda: counts, coverage_map=DEAD_MAP, facts=facts))
    reach = chooser._reach()

    def page(step: int) -> observing.Observation:
        return observing.Observation(step=step, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                     candidates=(), tree="", keyboard=False, canvases=0, scrollable=False)

    assert offering.reload_option(chooser.memory, page(3), reach) == []  # too soon
    assert offering.reload_option(chooser.memory, page(9), reach) == []  # the app is getting somewhere (nothing idle yet)
    chooser.memory.idle = 1
    offered = []
    for step in range(1, 60):
        if offering.reload_option(chooser.memory, page(step), reach):
            offered.append(step)
            action = evidence.Action(kind="load", target="page")
            chooser._commit(page(step), heuristic.RELOAD, action)
            chooser.observe(evidence.Step(index=step, action=action, url="http://127.0.0.1:1/"), page(step))
            chooser.memory.idle = 1  # the steps between find nothing new
    assert len(offered) == heuristic.RELOADS and offered[1] - offered[0] >= heuristic.RELOAD_EVERY, offered
    plain = heuristic.HeuristicPolicy()
    plain.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                               max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3,
                               coverage=lambda: counts, coverage_map=DEAD_MAP, facts=DEAD_FACTS))
    assert offering.reload_option(plain.memory, page(20), plain._reach()) == []  # it stores nothing


def test_no_reload_throws_away_a_timer_the_app_set_that_is_still_to_fire():
    # a game's "GET READY" briefing: startLevel() ran and set a 4 s timer whose callback
    # never ran; reloading now would start the game over instead of letting it begin
    facts = _typed({DEAD_KEY: {**RAW_DEAD_FACTS[DEAD_KEY],
                               "mentions": [*RAW_DEAD_FACTS[DEAD_KEY]["mentions"], "localStorage"],
                               "timers": [{"fn": "4", "callback": "2", "callee": None, "delay": 4000}]}})
    ran = {DEAD_KEY: {"f": {"0": 1, "1": 0, "2": 0, "3": 0, "4": 1}, "s": {}, "b": {}}}
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3,
                                 coverage=lambda: ran, coverage_map=DEAD_MAP, facts=facts))
    chooser.memory.idle = 2
    page = observing.Observation(step=20, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=(), tree="", keyboard=False, canvases=0, scrollable=False)
    assert chooser._reach().pending_timers() == [4000.0]
    assert offering.reload_option(chooser.memory, page, chooser._reach()) == []
    ran[DEAD_KEY] = {"f": {str(i): 1 for i in range(5)}, "s": {str(i): 1 for i in range(5)}, "b": {}}
    assert chooser._reach().pending_timers() == []  # the timer fired: now a reload may bring back what was stored
    assert offering.reload_option(chooser.memory, page, chooser._reach()) != []


def test_a_page_that_listens_to_resize_is_shown_on_a_phone_then_back_on_the_desktop():
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=0,
                                 max_steps=50, instrumented=False, step_timeout_s=10, plateau_steps=3,
                                 viewport="1024x700"))
    page = observing.Observation(step=1, url="http://127.0.0.1:1/", title="t", doc=1.0, state="s", visual="s",
                                 candidates=(), tree="", keyboard=False, canvases=0, scrollable=False,
                                 page_listeners=(inspecting.Listener("resize", "function handleResize() {}"),))
    sizes = []
    for _ in range(3):
        options = offering.resize_options(chooser.memory, page, chooser.desktop)
        sizes.append([o.action.value for o in options])
        for option in options:
            chooser.memory.tried_family[option.sig] += 1
    assert sizes == [["390x844"], ["1024x700"], []]
    quiet = dataclasses.replace(page, page_listeners=())
    assert offering.resize_options(memory.Memory(), quiet, "1280x800") == []
