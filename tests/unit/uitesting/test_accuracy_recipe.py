"""WebGen-Bench's model-level Accuracy against the seed card's recipe, on hand-computed
cases: test-case and instruction level, start failures counted as NO and shown apart,
unscored cases left out (never NO), our failures left out, no LLM → unscored, never 0."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results, task
from iwcbench.pipeline.stages.aggregating import webgen


def _task(tid: str, n: int, category: str = "Data Management", tests: tuple[str, ...] = ()) -> task.Task:
    cats = tests or ("Functional Testing: Searching",) * n
    return task.Task(id=tid, prompt="p", labels=task.Labels(category=category),
                     ui_tests=tuple(task.UITest(task=f"t{i}", expected_result="e", category=cats[i]) for i in range(n)))


def _app(model: str, tid: str, verdicts: list[str | None], outcome: str = "evaluated", appearance=None):
    scores = {}
    if appearance is not None:
        scores["appearance"] = metrics.score("appearance", appearance, "judged")
    return results.AppResult(model=model, task_id=tid, outcome=outcome, reason="r", scores=scores,
                             ui_tests=tuple(results.UITestOutcome(index=i, verdict=v, reason="" if v else "unscored: x")
                                            for i, v in enumerate(verdicts)))


def _recipe(per_instruction: list[list[bool]]) -> float:
    """The seed card's compute_metrics, with boolean test results per instruction."""
    yes = partial = 0
    for tests in per_instruction:
        if all(tests):
            yes += 1
        elif any(tests):
            partial += 1
    return (yes + 0.5 * partial) / len(per_instruction) * 100


TASKS = [_task("a", 3), _task("b", 2, "User Interaction"), _task("c", 4), _task("d", 1, "User Interaction")]


def test_instruction_level_matches_the_card_recipe():
    # YES / NO verdicts are the recipe's booleans exactly
    apps = [_app("m", "a", ["YES", "YES", "YES"]), _app("m", "b", ["YES", "NO"]),
            _app("m", "c", ["NO", "NO", "NO", "NO"]), _app("m", "d", ["YES"])]
    row, = webgen.accuracy_table(apps, TASKS)
    passed = [[True] * 3, [True, False], [False] * 4, [True]]
    # a YES, b PARTIAL (some pass), c NO, d YES → (2 + 0.5) / 4
    assert row.instruction_accuracy == pytest.approx(_recipe(passed)) == pytest.approx(62.5)
    assert (row.instruction_counts.yes, row.instruction_counts.partial, row.instruction_counts.no) == (2, 1, 1)


def test_case_level_credits_partial_half_and_a_partial_case_keeps_its_instruction_partial():
    apps = [_app("m", "a", ["YES", "YES", "YES"]), _app("m", "b", ["YES", "NO"]),
            _app("m", "c", ["NO", "NO", "NO", "NO"]), _app("m", "d", ["PARTIAL"])]
    row, = webgen.accuracy_table(apps, TASKS)
    # cases: 4 YES + 0.5 · 1 PARTIAL over 10 cases = 45 %
    assert row.accuracy == pytest.approx(45.0)
    assert (row.cases.yes, row.cases.partial, row.cases.no, row.cases.counted) == (4, 1, 5, 10)
    # d's only case is PARTIAL: not all YES, some credit → PARTIAL; (1 + 0.5·2) / 4
    assert row.instruction_accuracy == pytest.approx(50.0)
    assert row.start_failures == 0 and row.started_accuracy == row.accuracy


def test_a_start_failure_is_every_case_no_and_is_shown_apart():
    apps = [_app("m", "a", ["YES", "YES", "YES"]), _app("m", "b", [], outcome="start_failed"),
            _app("m", "c", ["YES", "PARTIAL", "NO", "NO"])]  # and no app at all for d
    row, = webgen.accuracy_table(apps, TASKS)
    assert row.start_failures == 2 and row.instructions == 4
    # cases: 3 + (1 + 0.5) = 4.5 over 3 + 2 + 4 + 1 = 10 → 45 %; started only: 4.5 / 7
    assert row.accuracy == pytest.approx(45.0)
    assert row.started_accuracy == pytest.approx(4.5 / 7 * 100)
    # instructions: a YES, b NO, c PARTIAL, d NO → 1.5 / 4; started: 1.5 / 2
    assert row.instruction_accuracy == pytest.approx(37.5)
    assert row.started_instruction_accuracy == pytest.approx(75.0)
    assert row.by_primary_category["User Interaction"].accuracy == 0.0  # b and d never started
    assert "2 start failures counted as NO" in row.reason


def test_unscored_cases_are_left_out_never_counted_no():
    apps = [_app("m", "a", ["YES", None, "YES"]), _app("m", "b", ["NO", "NO"])]
    row, = webgen.accuracy_table(apps, TASKS[:2])
    assert row.unscored_cases == 1
    assert row.accuracy == pytest.approx(2 / 4 * 100)
    # a has an unscored case: it leaves the instruction level; b alone is NO
    assert row.instruction_counts.counted == 1 and row.instruction_accuracy == 0.0


def test_our_failures_are_left_out_and_counted():
    apps = [_app("m", "a", ["YES", "YES", "YES"]), _app("m", "b", [], outcome="error")]
    row, = webgen.accuracy_table(apps, TASKS[:2])
    assert row.errors == 1 and row.instructions == 1 and row.accuracy == 100.0


def test_without_an_llm_every_figure_is_unscored_never_zero():
    apps = [_app("m", "a", [None, None, None]), _app("m", "b", [], outcome="start_failed")]
    row, = webgen.accuracy_table(apps, TASKS[:2], unscored_reason="unscored: needs an LLM")
    assert row.accuracy is None and row.instruction_accuracy is None and row.started_accuracy is None
    assert row.reason == "unscored: needs an LLM" and row.start_failures == 1
    # and when the apps' own records say no case ran, the reason comes from them
    row, = webgen.accuracy_table([_app("m", "a", [None, None, None])], TASKS[:1])
    assert row.accuracy is None and row.reason == "unscored: x"


def test_breakdowns_by_test_category_and_appearance_mean():
    tasks = [_task("a", 2, tests=("Functional Testing: Searching", "Design Validation Testing: UI Consistency"))]
    apps = [_app("m", "a", ["YES", "NO"], appearance=4.0), _app("n", "a", ["PARTIAL", "YES"], appearance=2.0)]
    m, n = webgen.accuracy_table(apps, tasks)
    assert m.by_task_category["Functional Testing"].accuracy == 100.0
    assert m.by_task_category["Design Validation Testing"].accuracy == 0.0
    assert n.by_task_category["Functional Testing"].accuracy == 50.0
    assert (m.appearance, n.appearance) == (4.0, 2.0)


def test_no_table_without_ui_tests():
    assert webgen.accuracy_table([_app("m", "x", [])], [task.Task(id="x", prompt="p")]) == ()
