"""How the heuristic policy chooses, on hand-made observations (no browser)."""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence, instrumented
from iwcbench.pipeline.stages.exploring import heuristic, observing, policy, rules, terms, values


def _candidate(ref: str, selector: str, role: str, name: str, kinds: tuple[str, ...], **extra) -> observing.Candidate:
    tag = extra.pop("tag", {"button": "button", "link": "a", "textbox": "input"}.get(role, "div"))
    return observing.Candidate(ref=ref, selector=selector, tag=tag, role=role, name=name, kinds=kinds, **extra)


def _page(*candidates: observing.Candidate, state: str = "s0", **extra) -> observing.Observation:
    base = dict(step=1, url="http://127.0.0.1:1/index.html", title="t", doc=1.0, state=state, visual=state,
                candidates=candidates, tree="", keyboard=False, canvases=0, scrollable=False)
    return observing.Observation(**{**base, **extra})


def _policy(seed: int = 0) -> heuristic.HeuristicPolicy:
    chosen = heuristic.HeuristicPolicy()
    chosen.begin(policy.Context(start_url="http://127.0.0.1:1/index.html", app_origin="http://127.0.0.1:1",
                                seed=seed, max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3))
    return chosen


def _step(action: evidence.Action, ok: bool = True, gain: float = 0.0, notes: tuple[str, ...] = ()) -> evidence.Step:
    return evidence.Step(index=1, action=action, ok=ok, url="http://127.0.0.1:1/", coverage_gain=gain, notes=notes)


BUTTONS = (
    _candidate("e1", "#a", "button", "A", ("click",)),
    _candidate("e2", "#b", "button", "B", ("click",)),
    _candidate("e3", "#c", "button", "C", ("click",)),
)


def _play(seed: int, rounds: int) -> list[str]:
    chooser, labels = _policy(seed), []
    page = _page(*BUTTONS)
    for _ in range(rounds):
        action = chooser.choose(page)
        labels.append(action.label())
        chooser.observe(_step(action), page)
    return labels


def test_same_seed_same_choices():
    assert _play(5, 12) == _play(5, 12)


def test_untried_actions_come_before_repeats():
    for seed in range(20):
        first_three = _play(seed, 3)
        assert sorted(first_three) == ['click button "A"', 'click button "B"', 'click button "C"'], seed


def test_external_links_are_never_chosen():
    chooser = _policy()
    page = _page(_candidate("e1", "#docs", "link", "Docs", ("click",), href="https://example.org", external=True))
    assert chooser.choose(page).kind == "wait"  # nothing else to do: let time pass


def test_an_action_that_hung_the_page_is_never_chosen_again():
    chooser = _policy()
    page = _page(_candidate("e1", "#freeze", "button", "Freeze", ("click",)))
    action = chooser.choose(page)
    chooser.observe(_step(action, ok=False, notes=("the page stopped responding for 5 s",)), None)
    assert chooser.choose(page).kind == "wait"


def test_actions_that_raised_coverage_are_preferred():
    chooser = _policy(seed=3)
    page = _page(*BUTTONS)
    for _ in range(3):  # try each once; only B pays off
        action = chooser.choose(page)
        chooser.observe(_step(action, gain=4.0 if action.selector == "#b" else 0.0), page)
    picks = []
    for _ in range(10):
        action = chooser.choose(page)
        picks.append(action.selector)
        chooser.observe(_step(action, gain=4.0 if action.selector == "#b" else 0.0), page)
    assert picks.count("#b") > picks.count("#a") + picks.count("#c")


def test_typing_in_a_form_is_followed_by_the_other_fields_and_submit():
    chooser = _policy()
    page = _page(
        _candidate("e1", "#name", "textbox", "Name", ("type",), type="text", form=0),
        _candidate("e2", "#mail", "textbox", "Email", ("type",), type="email", form=0),
        _candidate("e3", "#send", "button", "Send", ("click",), form=0, submit=True),
    )
    kinds = []
    for _ in range(3):
        action = chooser.choose(page)
        kinds.append((action.kind, action.selector))
        chooser.observe(_step(action), page)
    assert kinds[0][0] == "type"
    assert kinds[-1] == ("click", "#send")
    assert {k for k in kinds if k[0] == "type"} == {("type", "#name"), ("type", "#mail")}


def test_a_keyboard_page_gets_key_presses():
    chooser = _policy()
    page = _page(keyboard=True)
    kinds = []
    for _ in range(6):
        action = chooser.choose(page)
        kinds.append(action.kind)
        chooser.observe(_step(action), page)
    assert kinds.count("key") >= 4


def test_number_fields_get_their_boundaries():
    field = _candidate("e1", "#age", "spinbutton", "Age", ("type",), type="number", min="1", max="10")
    found = values.values_for(field)
    assert {"1", "10", "0", "11", "-1"} <= set(found)
    assert found[0] not in ("", "-1")


def test_email_fields_get_a_valid_and_an_invalid_address():
    field = _candidate("e1", "#m", "textbox", "", ("type",), type="email")
    assert values.values_for(field)[:2] == ["user@example.com", "not-an-email"]


def test_elements_listening_for_double_clicks_get_one():
    chooser = _policy()
    page = _page(_candidate("e1", "#list", "list", "Items", ("click",), listeners=("dblclick",)))
    chosen = []
    for _ in range(2):
        action = chooser.choose(page)
        chosen.append((action.kind, action.value))
        chooser.observe(_step(action), page)
    assert sorted(chosen, key=str) == [("click", "double"), ("click", None)]


def test_a_place_with_half_an_emoji_in_its_tree_is_still_a_place():
    """A page's text cut in the middle of an emoji (a lone surrogate) must not crash the
    exploration: the place is hashed all the same (it did, on an app written elsewhere)."""
    page = _page(tree='- button "Score \ud83d"')
    assert len(heuristic.place(page)) == 40


def test_each_choice_is_recorded_as_its_terms_and_the_runner_up_s():
    """A scored step keeps the named terms of the chosen option and of the runner-up:
    each one's points add up to its score, the chosen scores at least as much, and a
    term is named only when it counted."""
    field = _candidate("e1", "#new", "textbox", "New task", ("type",), type="text")
    delete = _candidate("e2", "#clear", "button", "Clear all", ("click",))
    chooser = _policy()
    page = _page(field, delete)
    action = chooser.choose(page)
    choice = chooser.choice()
    assert action.selector == "#new" and choice.how == "scored" and choice.options >= 2
    assert abs(sum(choice.terms.values()) - choice.score) < 0.01
    assert abs(sum(choice.runner_up_terms.values()) - choice.runner_up_score) < 0.01
    assert choice.score >= choice.runner_up_score
    assert set(choice.terms) <= set(terms.WEIGHTS) and all(choice.terms.values())
    # (Clear all is held back while the list is built: the wait outscores it)
    assert choice.runner_up.kind == "wait" and choice.runner_up_terms["prior"] == terms.PRIORS["wait"]


def test_a_field_gets_the_value_the_app_s_code_checks_it_against_first():
    """The code compares the PIN with '4821': the explorer types that first, in the
    field alone and when it fills the form before pressing its button again."""
    facts = {"index.html#0": instrumented.CodeFacts(fns={}, keys=[], sequences=[], timers=[], literals=["4821"])}
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/index.html", app_origin="http://127.0.0.1:1",
                                 seed=0, max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3,
                                 facts=facts))
    pin = _candidate("e1", "#pin", "textbox", "PIN", ("type",), type="password", form=0)
    unlock = _candidate("e2", "#unlock", "button", "Unlock", ("click",), form=0)
    assert chooser.choose(_page(pin, unlock)).value == "4821"
    assert rules.form_fill(unlock, _page(pin, unlock), chooser.hints)[0][2] == "4821"
    assert rules.form_fill(unlock, _page(pin, unlock))[0][2] != "4821"  # (without the code's facts)


def test_the_other_card_of_a_pair_is_turned_next_and_then_the_game_is_given_time():
    """Cards whose faces are in the page (two of each name): after one card, its twin
    is clicked next, then a wait lets the game compare the pair; a third card with
    that name is no twin once the pair is done."""
    faces = ("🦊", "🐱", "🐶", "🦊", "🐶", "🐱")
    cards = tuple(_candidate(f"e{i}", f"#card-{i}", "generic", f"? {face}", ("click",), tag="div", parents=("p1",))
                  for i, face in enumerate(faces))
    chooser = _policy()
    page = _page(*cards)
    first = chooser.choose(page)
    chooser.observe(_step(first), page)
    second = chooser.choose(page)
    assert second.selector != first.selector
    assert next(c.name for c in cards if c.selector == second.selector) == \
        next(c.name for c in cards if c.selector == first.selector)
    assert chooser.choice().terms["twin"] == terms.WEIGHTS["twin"]
    chooser.observe(_step(second), page)
    wait = chooser.choose(page)
    assert wait.kind == "wait" and chooser.choice().how == "follow-up"
    chooser.observe(_step(wait), page)
    assert chooser.memory.last_clicked is None


def test_a_move_key_set_on_keydown_and_unset_on_keyup_is_held_and_moves_by_code_pair_with_jump():
    """`keys.right = true` on keydown and `false` on keyup: ArrowRight is held as a
    game loop reads it, though no held-key map is read; KeyD is a move as much as d,
    so it pairs with Space (the jump), never with another move."""
    from iwcbench.pipeline.stages.exploring import reaching

    def fact(key: str, fn: str, hold: bool = False) -> instrumented.KeyFact:
        return instrumented.KeyFact(key=key, mods=[], hold=hold, fn=fn, guards=[])
    facts = {"a.js": instrumented.CodeFacts(
        fns={"0": instrumented.FunctionFacts(name="down", calls=[], inner=[]),
             "1": instrumented.FunctionFacts(name="up", calls=[], inner=[]),
             "2": instrumented.FunctionFacts(name="loop", calls=[], inner=[])},
        keys=[fact("ArrowRight", "0"), fact("ArrowRight", "1"), fact("KeyD", "2", hold=True),
              fact("Space", "2", hold=True)], sequences=[], timers=[])}
    fn = {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 5}}
    coverage_map = {"a.js": {"path": "a.js", "statementMap": {}, "branchMap": {}, "s": {}, "b": {},
                             "f": {"0": 0, "1": 0, "2": 0},
                             "fnMap": {k: {"name": k, "decl": fn, "loc": fn, "line": 1} for k in ("0", "1", "2")}}}
    code = reaching.Code(coverage_map, facts)
    values = {p.value for p in reaching.Reach(code, coverage_map).key_plays()}
    assert f"hold:ArrowRight:{reaching.HOLD_MS}" in values
    assert f"hold:KeyD+Space:{reaching.HOLD_MS}" in values
    assert not any(v.startswith("hold:KeyD+ArrowRight") or v.startswith("hold:ArrowRight+KeyD") for v in values)
