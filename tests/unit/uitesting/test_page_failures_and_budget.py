"""A UI test case whose page does not load is NO, counted apart (never dropped); the
UI-test agent and appearance judge spend from --max-cost; the leaderboard's UI-test
figures are WebGen-Bench's two pooled ones, not a mean of per-app accuracies."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import evidence, metrics, results, settings, task
from iwcbench.pipeline.kits import llm, store as store_mod
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.runs import assistants, uitests as uitest_run
from iwcbench.pipeline.stages import aggregating
from iwcbench.pipeline.stages.aggregating import webgen

ITEM = task.Task(id="notes", prompt="a notes app", ui_tests=(
    task.UITest(task="add a note", expected_result="the note is listed"),
    task.UITest(task="delete it", expected_result="the list is empty")))


class _Explored:
    def __init__(self, trace: evidence.Trace) -> None:
        self.trace = trace


def _bench(tmp_path: pathlib.Path, evaluation: settings.Evaluation, client: llm.Client) -> uitest_run.Bench:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>hi</p>")
    return uitest_run.Bench(app=evidence.AppRef(model="m", task_id="notes", source=str(site)), site=site,
                            start_url="http://127.0.0.1:9/", router=lambda: None,  # type: ignore[arg-type,return-value]
                            store=store_mod.LocalStore(tmp_path / "out"), evaluation=evaluation, client=client)


EVALUATION = settings.Evaluation(judging=settings.Judging(model="claude-sonnet-4-5", dimensions=("aesthetics",)),
                                 uitests=settings.UITests(appearance=False, reuse_replays=False))


def test_a_case_whose_page_does_not_load_is_no_counted_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    def explore(url, exploration, sink, instrumented=None, options=None):
        return _Explored(evidence.Trace(explorer="uitest", seed=0, max_steps=15, start_url=url,
                                        stop_reason="the app never loaded", load_error="net::ERR_CONNECTION_REFUSED"))

    monkeypatch.setattr(uitest_run.exploring, "explore", explore)
    client = llm.Client(llm.Config(model="claude-sonnet-4-5"), api_key="test-key")
    tested = uitest_run.test_app(_bench(tmp_path, EVALUATION, client), ITEM, ())
    assert [c.verdict for c in tested.report.cases] == ["NO", "NO"]
    assert all(c.source == "page_failed" and "did not load" in c.reason for c in tested.report.cases)
    assert client.ledger.totals().get("calls", 0) == 0  # the agent was not asked
    assert tested.scores["uitest_accuracy"].value == 0.0
    assert [o.page_failed for o in tested.outcomes] == [True, True]

    app = results.AppResult(model="m", task_id="notes", outcome="evaluated", reason="", ui_tests=tested.outcomes)
    row, = webgen.accuracy_table([app], [ITEM])
    assert (row.cases.no, row.page_failures, row.unscored_cases) == (2, 2, 0)
    assert row.accuracy == 0.0 and row.instruction_accuracy == 0.0
    assert "2 cases NO because the page did not load" in row.reason


def test_past_the_budget_no_case_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setattr(uitest_run.exploring, "explore", lambda *a, **k: pytest.fail("a case started"))
    budget = llm_accounting.Budget(1.0)
    budget.charge(1.5)
    client = llm.Client(llm.Config(model="claude-sonnet-4-5"), api_key="test-key", ledger=llm_accounting.Ledger("m/notes", budget=budget))
    evaluation = EVALUATION.model_copy(update={"uitests": settings.UITests(reuse_replays=False)})
    tested = uitest_run.test_app(_bench(tmp_path, evaluation, client), ITEM, ())
    assert all(c.verdict is None and "LLM budget of $1.00 was reached" in c.reason for c in tested.report.cases)
    assert tested.scores["uitest_accuracy"].value is None
    assert tested.scores["appearance"].value is None and "budget" in tested.scores["appearance"].reason


def test_max_cost_needs_a_price_for_the_ui_test_model():
    spending = settings.Spending(max_cost_usd=5.0)
    priced = EVALUATION.model_copy(update={"uitests": settings.UITests(model="claude-sonnet-4-5")})
    assistants.check_prices(priced, spending)
    unpriced = EVALUATION.model_copy(update={"uitests": settings.UITests(model="some-unpriced-model")})
    with pytest.raises(assistants.NoPrice, match="some-unpriced-model"):
        assistants.check_prices(unpriced, spending)
    off = EVALUATION.model_copy(update={"uitests": settings.UITests(enabled=False, model="some-unpriced-model")})
    assistants.check_prices(off, spending)


def test_the_leaderboard_carries_the_cards_two_figures_and_no_mean_of_apps():
    """The issue's TodoMVC case: 6 cases over 2 instructions; cases pooled 58.3 %,
    instructions 75 %; a mean of per-app case accuracies (68.75 %) is nowhere."""
    two = (task.UITest(task="a", expected_result="x"), task.UITest(task="b", expected_result="x"))
    four = tuple(task.UITest(task=f"c{i}", expected_result="x") for i in range(4))
    tasks = [task.Task(id="t1", prompt="p", ui_tests=two), task.Task(id="t2", prompt="p", ui_tests=four)]

    def app(tid, verdicts):
        n = len(verdicts)
        credit = sum(1.0 if v == "YES" else 0.5 if v == "PARTIAL" else 0.0 for v in verdicts)
        return results.AppResult(model="todo", task_id=tid, outcome="evaluated", reason="", scores={
            "uitest_accuracy": metrics.score("uitest_accuracy", credit / n * 100, "cases"),
            "coverage_statements": metrics.score("coverage_statements", 50.0, "x")},
            ui_tests=tuple(results.UITestOutcome(index=i, verdict=v) for i, v in enumerate(verdicts)))

    apps = [app("t1", ["YES", "YES"]), app("t2", ["YES", "PARTIAL", "NO", "NO"])]
    other = [a.model_copy(update={"model": "other"}) for a in apps]
    table = webgen.accuracy_table([*apps, *other], tasks)
    row = table[0]
    assert row.accuracy == pytest.approx(100 * 3.5 / 6, abs=1e-3)  # 58.3 % of the cases
    assert row.instruction_accuracy == pytest.approx(75.0)  # t1 YES, t2 PARTIAL
    # the mean of the apps' values (75 % and 37.5 %) would be 56.25: the leaderboard holds
    # the pooled figure, as a row of the metric table's aggregation column, with a z
    _, board = aggregating.aggregate([*apps, *other], bootstrap=0, pooled_values=webgen.model_values(table))
    for r in board:
        assert r.metrics["uitest_accuracy"] == pytest.approx(100 * 3.5 / 6, abs=1e-3)
        assert r.metrics["uitest_instruction_accuracy"] == pytest.approx(75.0)
        assert r.metrics["uitest_passed"] == pytest.approx(100 * 3 / 6, abs=1e-3)
        assert r.z["uitest_accuracy"] == 0.0  # both models alike
        assert "uitest_accuracy" not in r.unscored
    _, bare = aggregating.aggregate([*apps, *other], bootstrap=0)  # no pooled figures given: none invented
    assert all(r.metrics.get("uitest_accuracy") is None for r in bare)
    with pytest.raises(ValueError, match="pooled per model"):
        settings.Scoring(custom_weights={"uitest_accuracy": 1.0})


def test_a_finished_run_puts_both_figures_on_the_leaderboard_and_in_the_report(tmp_path):
    import datetime

    from iwcbench.pipeline.runs import finishing

    tasks = [ITEM]
    apps = [results.AppResult(model=m, task_id="notes", outcome="evaluated", reason="", scores={
        "coverage_statements": metrics.score("coverage_statements", 40.0 + i, "x")},
        ui_tests=(results.UITestOutcome(index=0, verdict="YES"), results.UITestOutcome(index=1, verdict=v)))
        for i, (m, v) in enumerate([("a", "YES"), ("b", "NO")])]
    store = store_mod.LocalStore(tmp_path)
    run = finishing.finish(EVALUATION, datetime.datetime.now(datetime.timezone.utc), store, apps, [], tasks)
    rows = {r.model: r for r in run.leaderboard}
    pooled = ("uitest_instruction_accuracy", "uitest_accuracy")
    assert tuple(rows["a"].metrics[m] for m in pooled) == (100.0, 100.0)
    assert tuple(rows["b"].metrics[m] for m in pooled) == (50.0, 50.0)
    assert rows["a"].z["uitest_accuracy"] > 0 > rows["b"].z["uitest_accuracy"]
    page = (tmp_path / "report" / "index.html").read_text()
    assert "uitest instruction accuracy" in page and "uitest accuracy" in page
    assert "WebGen-Bench&#x27;s Accuracy over instructions" in page or "Accuracy over instructions" in page


def test_a_schema_3_row_reads_its_pooled_figures_as_metrics():
    row = results.LeaderboardRow.model_validate({
        "rank": 1, "model": "a", "overall": 0.5, "metrics": {"coverage_statements": 80.0}, "z": {},
        "uitest_instruction_accuracy": 75.0, "uitest_case_accuracy": 58.3333})
    assert row.metrics == {"coverage_statements": 80.0, "uitest_instruction_accuracy": 75.0,
                           "uitest_accuracy": 58.3333}


@pytest.mark.parametrize(("verdicts", "expected"), [
    (["YES", "YES"], 100.0), (["YES", "NO"], 50.0), (["PARTIAL", "NO"], 50.0), (["NO", "NO"], 0.0), (["YES", None], None),
])
def test_an_apps_instruction_verdict_is_its_instruction_accuracy(verdicts, expected):
    from iwcbench.pipeline.contracts import uitests
    from iwcbench.pipeline.stages.uitesting import cases

    found = cases.scores([uitests.CaseResult(index=i, task="t", expected_result="e", category="c", verdict=v,
                                             reason="" if v else "unscored: no reply")
                          for i, v in enumerate(verdicts)])
    assert found["uitest_instruction_accuracy"].value == expected
    assert found["uitest_instruction_accuracy"].status == ("scored" if expected is not None else "unscored")
