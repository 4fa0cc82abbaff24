"""Test cases of one app: their records and the app's UI-test scores. Pure.

``uitest_accuracy`` is WebGen-Bench's Accuracy over the app's cases,
(YES + 0.5 · PARTIAL) / cases × 100, ``uitest_passed`` the share of YES, and
``uitest_instruction_accuracy`` the app's instruction verdict as its card counts it (100
when every case is YES, 50 when one is YES or PARTIAL, 0 otherwise). Only cases with a
verdict count; when none has one the scores are unscored with the cases' reason (e.g.
"unscored: needs an LLM"), never 0; an instruction with an unscored case is unscored. An app that never started gets the
floors (every case NO) through ``failure_scores``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from iwcbench.pipeline.contracts import metrics, results, task, uitests

SCORE_NAMES = metrics.names("uitesting")  # the metric table's rows this stage fills
CASE_SCORES = ("uitest_instruction_accuracy", "uitest_accuracy", "uitest_passed")
INSTRUCTION_CREDIT = {"YES": 100.0, "PARTIAL": 50.0, "NO": 0.0}  # one instruction's verdict as a value


def unscored_cases(item: task.Task, reason: str) -> tuple[uitests.CaseResult, ...]:
    """Every case of the task without a verdict, for the same reason."""
    return tuple(uitests.CaseResult(index=i, task=t.task, expected_result=t.expected_result,
                                    category=t.category, verdict=None, reason=reason)
                 for i, t in enumerate(item.ui_tests))


def counts(cases: Iterable[uitests.CaseResult]) -> dict[str, int]:
    found = {v: 0 for v in uitests.VERDICTS}
    for case in cases:
        if case.verdict is not None:
            found[case.verdict] += 1
    return found


def scores(cases: Sequence[uitests.CaseResult]) -> dict[str, metrics.Score]:
    """``uitest_accuracy``, ``uitest_instruction_accuracy`` and ``uitest_passed`` of one
    app's cases."""
    scored = [c for c in cases if c.verdict is not None]
    if not scored:
        reasons = list(dict.fromkeys(c.reason for c in cases)) or ["the task has no UI test cases"]
        reason = reasons[0] if len(reasons) == 1 else "; ".join(reasons[:3])
        return metrics.unscored(CASE_SCORES, reason if reason.startswith("unscored") else f"unscored: {reason}")
    n = counts(scored)
    accuracy = sum(uitests.CREDIT[c.verdict] for c in scored if c.verdict) / len(scored) * 100
    left_out = len(cases) - len(scored)
    said = (f"{n['YES']} YES, {n['PARTIAL']} PARTIAL, {n['NO']} NO of {len(scored)} test cases"
            + (f" ({left_out} unscored, left out)" if left_out else ""))
    cited = [f"case {c.index + 1}: {c.verdict}" for c in scored]
    if left_out:
        instruction = metrics.score("uitest_instruction_accuracy", None,
                                    f"unscored: {left_out} of the instruction's {len(cases)} test cases unscored")
    else:
        verdict = uitests.instruction_verdict([c.verdict for c in cases])
        assert verdict is not None  # at least one case, and none of them unscored
        instruction = metrics.score("uitest_instruction_accuracy", INSTRUCTION_CREDIT[verdict],
                                    f"instruction {verdict}: {said}", cited)
    return {
        "uitest_accuracy": metrics.score("uitest_accuracy", round(accuracy, 4), said, cited),
        "uitest_instruction_accuracy": instruction,
        "uitest_passed": metrics.score("uitest_passed", round(n["YES"] / len(scored) * 100, 4), said, cited),
    }


def outcomes(cases: Sequence[uitests.CaseResult]) -> tuple[results.UITestOutcome, ...]:
    """What results.json keeps of each case."""
    return tuple(results.UITestOutcome(index=c.index, verdict=c.verdict, reason=c.reason,
                                       page_failed=c.source == "page_failed") for c in cases)


def failure_scores(reason: str) -> dict[str, metrics.Score]:
    """An app that never started: every case NO, appearance at its floor."""
    return metrics.floors(SCORE_NAMES, f"the app did not start: {reason}")


def agent_case(test: task.UITest, index: int, *, verdict: uitests.AgentVerdict | None, problem: str | None,
               screenshots: Sequence[str], steps: int, stop_reason: str, trace: str, duration_s: float,
               calls: int, reasks: int, problems: Sequence[str]) -> uitests.CaseResult:
    """The record of a case the agent ran."""
    common = dict(index=index, task=test.task, expected_result=test.expected_result, category=test.category,
                  steps=steps, stop_reason=stop_reason, trace=trace, duration_s=round(duration_s, 3),
                  llm_calls=calls, reasks=reasks, problems=tuple(problems))
    if verdict is None:
        why = problem or f"unscored: the agent gave no verdict ({stop_reason})"
        return uitests.CaseResult(verdict=None, reason=why if why.startswith("unscored") else f"unscored: {why}",
                                  source="none", **common)
    cited = ", ".join(map(str, verdict.evidence_steps))
    cites = f"cites step{'s' if len(verdict.evidence_steps) != 1 else ''} {cited}" if cited else "cites no step"
    return uitests.CaseResult(
        verdict=verdict.verdict, source="agent", justification=verdict.justification,
        evidence_steps=verdict.evidence_steps, screenshots=tuple(screenshots),
        reason=f"the agent's verdict after {steps} step{'s' if steps != 1 else ''} ({cites})",
        **common)


def page_failed_case(test: task.UITest, index: int, *, load_error: str, trace: str,
                     duration_s: float) -> uitests.CaseResult:
    """The record of a case whose page did not load: NO (the app did not serve the page
    the case needs), without asking the agent, marked so the Accuracy table counts it apart."""
    return uitests.CaseResult(
        index=index, task=test.task, expected_result=test.expected_result, category=test.category,
        verdict="NO", source="page_failed", trace=trace, duration_s=round(duration_s, 3),
        stop_reason=f"the page did not load: {load_error}",
        reason=f"NO: the page did not load for this test case: {load_error}")


def replayed_case(test: task.UITest, index: int, check: uitests.ReplayCheck, *, trace: str,
                  screenshots: Sequence[str], recorded: uitests.Replay) -> uitests.CaseResult:
    """The record of a case decided by a stored replay that reached its end state."""
    return uitests.CaseResult(
        index=index, task=test.task, expected_result=test.expected_result, category=test.category,
        verdict="YES", source="replay", replay=check.key, trace=trace, screenshots=tuple(screenshots),
        steps=check.steps, stop_reason=check.reason, duration_s=check.duration_s,
        justification=(f"replay of the passing run recorded {recorded.recorded_at} by {recorded.agent_model} "
                       f"on this app: {check.reason}"),
        reason=f"replay {check.key} (same app, test and agent model) reached the recorded end state")
