"""Replays: which element a recorded step finds on a changed page, and when a replay
run counts as reaching the same end state."""

from __future__ import annotations

from iwcbench.pipeline.contracts import uitests
from iwcbench.pipeline.stages.exploring import observing, replay_policy
from iwcbench.pipeline.stages.uitesting import replays

FIRST = '- heading "Notes" [level=1]\n- textbox "New note" [ref=e1]\n- button "Add" [ref=e2]\n- text: 0 notes'
LAST = ('- heading "Notes" [level=1]\n- textbox "New note" [ref=e1]\n- button "Add" [ref=e2]\n- text: 1 note\n'
        '- list\n  - listitem\n    - text: Buy milk')


def _replay(texts: bool = True) -> uitests.Replay:
    return replays.build(task_id="t", case_index=0, test="add", expected_result="listed", app="m/t",
                         app_hash="f" * 64, agent_model="claude-x",
                         steps=[uitests.ReplayStep(kind="click", role="button", name="Add", selector="#add")],
                         end_digest="abc", first_tree=FIRST, last_tree=LAST if texts else FIRST)


def test_end_texts_are_what_the_test_made_appear():
    assert replays.end_texts(FIRST, LAST) == ("text: 1 note", "list", "listitem", "text: Buy milk")


def test_same_digest_and_texts_is_an_exact_pass():
    check = replays.check(_replay(), failure=None, steps=1, end_digest="abc", last_tree=LAST)
    assert check.passed and check.exact


def test_texts_present_pass_even_when_markup_changed():
    check = replays.check(_replay(), failure=None, steps=1, end_digest="other",
                          last_tree=LAST.replace("[ref=e2]", "[ref=e9]"))
    assert check.passed and not check.exact


def test_missing_text_fails_and_names_it():
    check = replays.check(_replay(), failure=None, steps=1, end_digest="other", last_tree=FIRST)
    assert not check.passed and "text: Buy milk" in check.missing
    assert "expected text line(s) missing" in check.reason


def test_a_test_that_made_no_text_appear_needs_the_same_normal_form():
    replay = _replay(texts=False)
    assert replays.check(replay, failure=None, steps=1, end_digest="abc", last_tree=FIRST).passed
    assert not replays.check(replay, failure=None, steps=1, end_digest="zzz", last_tree=FIRST).passed


def test_a_step_that_could_not_be_played_fails_the_replay():
    check = replays.check(_replay(), failure="replay step 1: button \"Add\" is not on the page", steps=0,
                          end_digest="abc", last_tree=LAST)
    assert not check.passed and "not on the page" in check.reason


def _cand(ref, role, name, selector, context=""):
    return observing.Candidate(ref=ref, selector=selector, tag="button", role=role, name=name,
                               kinds=("click",), context=context)


def _obs(*cands):
    return observing.Observation(step=1, url="http://x/", title="", doc=1.0, state="s", visual="v",
                                 candidates=cands, tree="", keyboard=False, canvases=0, scrollable=False)


def test_elements_are_found_by_role_and_name_before_the_selector():
    step = uitests.ReplayStep(kind="click", role="button", name="Delete", selector="li:nth-child(2) button",
                              context="Buy milk ×")
    page = _obs(_cand("e1", "button", "Delete", "li:nth-child(1) button", "Walk dog ×"),
                _cand("e2", "button", "Delete", "li:nth-child(3) button", "Buy milk ×"))
    assert replay_policy.find(step, page).ref == "e2"  # the same item, though it moved
    renamed = _obs(_cand("e5", "button", "Remove", "li:nth-child(2) button"))
    assert replay_policy.find(step, renamed).ref == "e5"  # the old selector, same role
    gone = _obs(_cand("e7", "link", "Delete", "a.delete"))
    assert replay_policy.find(step, gone) is None


def test_the_replay_policy_stops_where_the_element_is_gone():
    player = replay_policy.ReplayPolicy([uitests.ReplayStep(kind="type", role="textbox", name="New note",
                                                            value="Buy milk"),
                                         uitests.ReplayStep(kind="click", role="button", name="Add")])
    page = _obs(observing.Candidate(ref="e1", selector="#t", tag="input", role="textbox", name="New note",
                                    kinds=("type",)))
    first = player.choose(page)
    assert first.kind == "type" and first.selector == "#t" and first.value == "Buy milk"
    assert player.choose(page) is None
    assert player.failure == 'replay step 2: button "Add" is not on the page'

