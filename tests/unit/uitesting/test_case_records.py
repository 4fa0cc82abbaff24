"""An app's UI-test scores from its cases, and verdicts the agent wrote as text."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import task, uitests
from iwcbench.pipeline.stages.uitesting import cases

ITEM = task.Task(id="t", prompt="p", ui_tests=tuple(
    task.UITest(task=f"do {i}", expected_result=f"see {i}", category="Functional Testing: Searching")
    for i in range(4)))


def _case(i: int, verdict: str | None) -> uitests.CaseResult:
    return uitests.CaseResult(index=i, task=f"do {i}", expected_result="e", verdict=verdict,
                              reason="judged" if verdict else "unscored: the LLM was unavailable: HTTP 529")


def test_app_accuracy_credits_partial_half_and_leaves_unscored_out():
    scores = cases.scores([_case(0, "YES"), _case(1, "PARTIAL"), _case(2, "NO"), _case(3, None)])
    assert scores["uitest_accuracy"].value == pytest.approx(50.0)  # 1.5 / 3
    assert scores["uitest_passed"].value == pytest.approx(100 / 3, abs=1e-3)
    assert "1 unscored, left out" in scores["uitest_accuracy"].reason
    assert scores["uitest_accuracy"].unit == "%"


def test_no_verdict_at_all_is_unscored_with_the_reason_never_zero():
    scores = cases.scores(cases.unscored_cases(ITEM, uitests.NEEDS_LLM))
    assert scores["uitest_accuracy"].value is None
    assert scores["uitest_accuracy"].reason == "unscored: needs an LLM"


def test_a_start_failure_takes_the_floors():
    floors = cases.failure_scores("no index.html")
    assert floors["uitest_accuracy"].value == 0.0 and floors["appearance"].value == 1.0
    assert "did not start" in floors["uitest_accuracy"].reason


def test_the_agent_case_keeps_its_evidence():
    verdict = uitests.AgentVerdict(verdict="YES", justification="listed", evidence_steps=(2, 3))
    case = cases.agent_case(ITEM.ui_tests[0], 0, verdict=verdict, problem=None, screenshots=["uitests/01/shots/0002.png"],
                            steps=3, stop_reason="s", trace="uitests/01/trace.json", duration_s=1.0, calls=4,
                            reasks=0, problems=[])
    assert case.verdict == "YES" and case.evidence_steps == (2, 3)
    assert case.reason == "the agent's verdict after 3 steps (cites steps 2, 3)"
    missing = cases.agent_case(ITEM.ui_tests[0], 0, verdict=None, problem="the LLM was unavailable: boom",
                               screenshots=[], steps=1, stop_reason="s", trace="x", duration_s=1.0, calls=1,
                               reasks=0, problems=[])
    assert missing.verdict is None and missing.reason == "unscored: the LLM was unavailable: boom"


@pytest.mark.parametrize("reply, verdict, steps", [
    ("Verdict: YES\nEvidence: steps 2, 4\nThe list shows the note.", "YES", (2, 4)),
    ("**Verdict**: partial\nonly the list updates", "PARTIAL", ()),
    ("verdict - NO", "NO", ()),
])
def test_text_verdicts_are_read(reply, verdict, steps):
    found = uitests.read_text_verdict(reply)
    assert found is not None and found.verdict == verdict and found.evidence_steps == steps
    assert found.justification


@pytest.mark.parametrize("reply", ["It works, I think.", "Verdict: YES\nVerdict: NO", "The verdict is in: YES"])
def test_text_without_one_clear_verdict_line_is_no_verdict(reply):
    assert uitests.read_text_verdict(reply) is None


def test_primary_category_of_a_test():
    assert ITEM.ui_tests[0].primary_category == "Functional Testing"
    assert task.UITest(task="a", expected_result="b").primary_category is None
