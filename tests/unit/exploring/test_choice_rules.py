"""The heuristic builds state up before tearing it down, as a tester would: fill and
submit, act on what just appeared, hold back deletes, rebuild after them
(hand-made observations, no browser)."""

from __future__ import annotations

import dataclasses

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import heuristic, observing, offering, policy, rules


def _c(ref: str, selector: str, role: str, name: str, kinds: tuple[str, ...], **extra) -> observing.Candidate:
    tag = extra.pop("tag", {"button": "button", "link": "a", "textbox": "input", "checkbox": "input"}.get(role, "div"))
    return observing.Candidate(ref=ref, selector=selector, tag=tag, role=role, name=name, kinds=kinds, **extra)


def _page(*candidates: observing.Candidate, state: str = "s0", step: int = 1, tree: str | None = None
          ) -> observing.Observation:
    # (a state's tree names the state unless given: different states are different places)
    return observing.Observation(step=step, url="http://127.0.0.1:1/", title="t", doc=1.0, state=state,
                                 visual=state, candidates=candidates, tree=f"- text: {state}" if tree is None else tree,
                                 keyboard=False, canvases=0, scrollable=False)


def _policy(seed: int = 0) -> heuristic.HeuristicPolicy:
    chosen = heuristic.HeuristicPolicy()
    chosen.begin(policy.Context(start_url="http://127.0.0.1:1/", app_origin="http://127.0.0.1:1", seed=seed,
                                max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3))
    return chosen


def _step(action: evidence.Action, gain: float = 0.0) -> evidence.Step:
    return evidence.Step(index=1, action=action, ok=True, url="http://127.0.0.1:1/", coverage_gain=gain)


def _no_random_picks(chooser: heuristic.HeuristicPolicy, monkeypatch) -> None:
    monkeypatch.setattr(heuristic, "EPSILON", 0.0)


# A todo page: a free-standing field, filter links, a bulk delete; items come later.
FIELD = _c("e1", "#new", "textbox", "What needs to be done?", ("type",), type="text", parents=("p1", "p0"))
FILTERS = (_c("e2", "#all", "link", "All", ("click",), parents=("p2", "p1")),
           _c("e3", "#active", "link", "Active", ("click",), parents=("p2", "p1")))
CLEAR = _c("e4", "#clear", "button", "Clear completed", ("click",), parents=("p3", "p1"))


def _item(n: int, text: str, done: bool = False) -> tuple[observing.Candidate, ...]:
    li = f"#list > li:nth-of-type({n})"
    return (_c(f"c{n}", f"{li} > input", "checkbox", text, ("check",), type="checkbox", item=f"li{n}",
               context=f"{text} x", checked=done, parents=(f"li{n}", "ul")),
            _c(f"x{n}", f"{li} > button", "button", "x", ("click",), item=f"li{n}", context=f"{text} x",
               parents=(f"li{n}", "ul")))


def test_destructive_names_are_recognised():
    assert rules.destructive(_c("e", "#d", "button", "x", ("click",)))
    assert rules.destructive(_c("e", "#d", "button", "Delete Buy milk", ("click",)))
    assert rules.destructive(CLEAR)
    assert rules.destructive(_c("e", "#d", "button", "", ("click",), hint=" destroy"))
    assert not rules.destructive(_c("e", "#d", "button", "Add", ("click",)))
    assert not rules.destructive(_c("e", "#d", "button", "Export PNG", ("click",)))


def test_free_standing_field_is_typed_then_submitted_with_enter_and_its_own_button():
    add = _c("e9", "#add", "button", "Add", ("click",), parents=("p1", "p0"))
    chooser = _policy()
    page = _page(FIELD, *_item(1, "Old"), add)
    typed = chooser.choose(page)
    assert (typed.kind, typed.selector) == ("type", "#new") and typed.value
    chooser.observe(_step(typed), page)
    enter = chooser.choose(page)
    assert (enter.kind, enter.selector, enter.value) == ("key", "#new", "Enter")
    still_filled = _page(dataclasses.replace(FIELD, value=typed.value), *_item(1, "Old"), add, state="s1")
    chooser.observe(_step(enter), still_filled)
    assert (chooser.choose(still_filled).kind, chooser.memory.pending[2].selector) == ("click", "#add")


def test_the_button_after_a_consumed_field_is_not_pressed_and_list_buttons_never_count(monkeypatch):
    chooser = _policy()
    _no_random_picks(chooser, monkeypatch)
    page = _page(FIELD, *_item(1, "Old"), *FILTERS, CLEAR)
    assert rules.adjacent_button(FIELD, page) is None  # not the item's "x", not "Clear completed"
    typed = chooser.choose(page)
    chooser.observe(_step(typed), page)
    enter = chooser.choose(page)
    assert enter.value == "Enter"
    cleared = _page(FIELD, *_item(1, "Old"), *_item(2, typed.value), *FILTERS, CLEAR, state="s1", step=3)
    chooser.observe(_step(enter, gain=5.0), cleared)
    following = chooser.choose(cleared)
    assert following.kind != "key" and following.selector not in ("#clear", "#list > li:nth-of-type(1) > button")


def test_a_new_items_checkbox_comes_before_the_filters_again(monkeypatch):
    for seed in range(10):
        chooser = _policy(seed)
        _no_random_picks(chooser, monkeypatch)
        empty = _page(FIELD, *FILTERS, CLEAR, step=1)
        for index in range(3):  # the filters and the field are tried once on the empty page
            action = chooser.choose(_page(FIELD, *FILTERS, CLEAR, step=1 + index))
            chooser.observe(_step(action), empty)
            if chooser.memory.followups:
                chooser.memory.followups.clear()
        grown = _page(FIELD, *_item(1, "Buy milk"), *FILTERS, CLEAR, state="s1", step=5)
        chosen = chooser.choose(grown)
        assert (chosen.kind, chosen.selector) == ("check", "#list > li:nth-of-type(1) > input"), seed


def test_destructive_actions_wait_until_constructive_ones_were_tried(monkeypatch):
    for seed in range(10):
        chooser = _policy(seed)
        _no_random_picks(chooser, monkeypatch)
        page = _page(*_item(1, "Buy milk"), *FILTERS, CLEAR)
        order = []
        for _ in range(5):
            action = chooser.choose(page)
            order.append(action.selector)
            chooser.observe(_step(action), page)
        harmful = {"#clear", "#list > li:nth-of-type(1) > button"}
        assert set(order[:3]) & harmful == set(), (seed, order)
        assert set(order[3:]) == harmful, (seed, order)


def test_after_a_delete_emptied_the_list_typing_a_real_value_is_next(monkeypatch):
    chooser = _policy(2)
    _no_random_picks(chooser, monkeypatch)
    for kind, selector in (("type", "#new"), ("click", "#all"), ("click", "#active"),
                           ("check", "#list > li:nth-of-type(1) > input")):
        chooser.memory.tried_family[rules.family(rules.signature(kind, selector))] += 1  # all constructive tried
    chooser.memory.rotation[rules.signature("type", "#new")] = 2  # the next values in turn: "" and "   "
    full = _page(FIELD, *_item(1, "Buy milk"), *FILTERS, step=5)
    chooser.choose(full)
    delete = evidence.Action(kind="click", target='button "x"', selector="#list > li:nth-of-type(1) > button")
    chooser._commit(full, rules.signature("click", delete.selector), delete)
    empty = _page(FIELD, *FILTERS, CLEAR, state="s-empty", step=6)  # "Clear completed" is untried
    chooser.memory.followups.clear()
    chooser.observe(_step(delete), empty)
    rebuild = chooser.choose(empty)
    assert rebuild.kind == "type" and rebuild.selector == "#new"
    assert rebuild.value.strip()


def test_one_control_keeps_its_signature_when_its_list_grows():
    alone = rules.signature("check", "#list > li > input")
    assert alone == rules.signature("check", "#list > li:nth-of-type(1) > input")
    assert rules.family(alone) == rules.family(rules.signature("check", "#list > li:nth-of-type(2) > input"))
    assert alone != rules.signature("check", "#list > li:nth-of-type(2) > input")


def test_unlabeled_checkbox_is_named_by_its_item():
    box = _c("c1", "#list > li > input", "checkbox", "", ("check",), item="li1", context="Buy milk x")
    assert box.describe() == 'checkbox in "Buy milk x"'


def test_a_choice_in_a_form_is_submitted(monkeypatch):
    chooser = _policy()
    _no_random_picks(chooser, monkeypatch)
    radio = _c("r1", "#r1", "radio", "Cats", ("check",), type="radio", form=0, tag="input")
    submit = _c("s", "#vote", "button", "Vote", ("click",), form=0, submit=True)
    page = _page(radio, submit)
    vote = rules.signature("click", "#vote")
    chooser.memory.tried_family[vote] += 1  # the button alone was tried before
    chooser.memory.tried[("s0", vote)] += 1
    first = chooser.choose(page)
    assert first.selector == "#r1"
    chooser.observe(_step(first), page)
    assert chooser.choose(page).selector == "#vote"


def test_the_idle_stop_waits_for_untried_actions_in_the_current_state(monkeypatch):
    chooser = _policy()
    _no_random_picks(chooser, monkeypatch)
    page = _page(FIELD, *FILTERS)
    chooser.memory.idle = 50  # long idle: only what is left untried here keeps it going
    seen = set()
    for _ in range(8):
        action = chooser.choose(page)
        if action.kind == "finish":
            break
        seen.add(action.selector)
        chooser.observe(_step(action), page)
    assert action.kind == "finish" and action.intent.startswith("nothing new reachable after")
    assert {"#new", "#all", "#active"} <= seen  # all of them before it gave up
    other_view = _page(FIELD, *FILTERS, state="s1", tree='- heading "Archive"')
    assert chooser.choose(other_view).kind != "finish"  # another place: untried again


def test_a_ticking_counter_does_not_make_a_new_place_but_new_text_does():
    one = _page(FIELD, state="a", tree="- text: Moves: 3 · 00:12")
    later = _page(FIELD, state="b", tree="- text: Moves: 14 · 01:07")
    question = _page(FIELD, state="c", tree="- text: Moves: 3 · What is the capital of Peru?")
    assert heuristic.place(one) == heuristic.place(later)
    assert heuristic.place(one) != heuristic.place(question)


def test_a_forms_button_pressed_again_is_pressed_after_filling_the_form(monkeypatch):
    chooser = _policy()
    _no_random_picks(chooser, monkeypatch)
    email = _c("f1", "#email", "textbox", "Email", ("type",), type="email", form=0, value="a", tag="input")
    country = _c("f2", "#country", "combobox", "Country", ("select",), form=0, value="", options=("", "us", "de"),
                 tag="select")
    terms = _c("f3", "#terms", "checkbox", "I agree to the Terms", ("check",), type="checkbox", form=0,
               checked=False, tag="input")
    radio_a = _c("f4", "#goal-a", "radio", "Lose weight", ("check",), type="radio", form=0, checked=False,
                 input_name="goal", tag="input")
    radio_b = _c("f5", "#goal-b", "radio", "Stay fit", ("check",), type="radio", form=0, checked=False,
                 input_name="goal", tag="input")
    next_button = _c("b", "#next", "button", "Next", ("click",), form=0)
    fills = rules.form_fill(next_button, _page(email, country, terms, radio_a, radio_b, next_button))
    assert [(kind, c.selector, value) for kind, c, value in fills] == [
        ("type", "#email", "user@example.com"), ("select", "#country", "us"), ("check", "#terms", None),
        ("check", "#goal-a", None)]
    page = _page(email, country, terms, radio_a, radio_b, next_button)
    chooser.memory.tried_family[rules.signature("click", "#next")] += 1  # pressed once already, as it was
    chooser.memory.tried[(heuristic.place(page), rules.signature("type", "#email"))] += 5  # (so Next is chosen)
    chooser.memory.tried[(heuristic.place(page), rules.signature("select", "#country"))] += 5
    chooser.memory.tried[(heuristic.place(page), rules.signature("check", "#terms"))] += 5
    chooser.memory.tried[(heuristic.place(page), rules.signature("check", "#goal-a"))] += 5
    chooser.memory.tried[(heuristic.place(page), rules.signature("check", "#goal-b"))] += 5
    chooser.memory.tried_family["wait|"] += 1
    chooser.memory.tried[(heuristic.place(page), "wait|")] += 5
    done = []
    for _ in range(5):
        action = chooser.choose(page)
        done.append((action.kind, action.selector))
        chooser.observe(_step(action), page)
    assert done == [("type", "#email"), ("select", "#country"), ("check", "#terms"), ("check", "#goal-a"),
                    ("click", "#next")]


def test_a_lists_filters_wait_until_it_has_a_few_items(monkeypatch):
    chooser = _policy()
    _no_random_picks(chooser, monkeypatch)
    assert rules.filtering(FILTERS[1]) and not rules.filtering(FIELD) and not rules.filtering(CLEAR)
    chosen = []
    items: tuple[observing.Candidate, ...] = ()
    def place(n: int) -> str:  # (a place is named without digits: they are blanked)
        return "items " + "x" * n

    for step in range(1, 12):
        page = _page(FIELD, *FILTERS, *items, state=place(len(items)), step=step)
        action = chooser.choose(page)
        chosen.append((action.selector, len(items) // 2))
        if action.kind == "key" and action.value == "Enter" and len(items) < 8:  # the field submitted: one more
            items += _item(len(items) // 2 + 1, f"Chore {len(items) // 2 + 1}")
        chooser.observe(_step(action, gain=1.0), _page(FIELD, *FILTERS, *items, state=place(len(items)), step=step))
    first_filter = next(count for selector, count in chosen if selector in ("#all", "#active"))
    assert first_filter >= rules.FEW_ITEMS, chosen


def test_an_element_with_a_context_menu_handler_is_right_clicked_too():
    chooser = _policy()
    grid = _c("g", "#grid", "grid", "Mines", ("click",), listeners=("click", "contextmenu"))
    plain = _c("b", "#new-game", "button", "New game", ("click",), listeners=("click",))
    actions = offering.element_actions(chooser.memory, _page(grid, plain), None)
    rights = [a for _, a in actions if a.value == "right"]
    assert [a.selector for a in rights] == ["#grid"] and rights[0].kind == "click"


def test_an_element_with_touch_handlers_is_tapped_and_swiped():
    chooser = _policy()
    pad = _c("t", "#pad", "canvas", "", ("click", "drag"), tag="canvas", listeners=("touchstart", "touchmove"))
    values = sorted(a.value for _, a in offering.element_actions(chooser.memory, _page(pad), None) if (a.value or "").startswith("touch:"))
    assert values == ["touch:-120,0", "touch:0,0", "touch:120,0"]
