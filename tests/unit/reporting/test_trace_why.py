"""A trace step's row says why the explorer chose its action."""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.reporting import sections


def _step(choice: evidence.Choice | None) -> evidence.Step:
    return evidence.Step(index=3, action=evidence.Action(kind="click", target="button 'Add'", selector="#add"),
                         url="http://127.0.0.1:1/", choice=choice)


def test_a_scored_step_shows_its_weightiest_terms_and_the_runner_up_on_hover():
    choice = evidence.Choice(how="scored", options=9, score=7.4,
                             terms={"untried_here": 3.0, "new_family": 2.0, "steer": 2.475, "tie_break": 0.1,
                                    "prior": 0.5, "held_back": -0.675},
                             runner_up=evidence.Action(kind="click", target="button 'Clear'", selector="#clear"),
                             runner_up_score=1.0, runner_up_terms={"untried_here": 3.0, "held_back": -6.0})
    row = sections.trace_table(evidence.Trace(explorer="heuristic", seed=0, max_steps=5, start_url="x",
                                              steps=(_step(choice),)), {}, {}, {})
    assert "why: untried here +3, steer +2.5, new family +2, 3 more (of 9 options)" in row
    assert "runner-up, click button &#x27;Clear&#x27;: score 1: held back -6, untried here +3" in row


def test_other_choices_say_how_they_were_made():
    for how, said in (("stalled", "coverage stalled"), ("random", "seeded random"), ("follow-up", "completes"),
                      ("llm", "the LLM tester")):
        row = sections.trace_table(evidence.Trace(explorer="heuristic", seed=0, max_steps=5, start_url="x",
                                                  steps=(_step(evidence.Choice(how=how)),)), {}, {}, {})
        assert said in row
    plain = sections.trace_table(evidence.Trace(explorer="random", seed=0, max_steps=5, start_url="x",
                                                steps=(_step(None),)), {}, {}, {})
    assert 'class="why' not in plain


def test_a_form_filled_before_a_randomly_picked_button_says_so():
    # (the seeded random pick has no score: its row must still render)
    row = sections.trace_table(evidence.Trace(explorer="heuristic", seed=0, max_steps=5, start_url="x",
                                              steps=(_step(evidence.Choice(how="form fill", options=7)),)), {}, {}, {})
    assert "form filled first; a seeded random pick" in row
