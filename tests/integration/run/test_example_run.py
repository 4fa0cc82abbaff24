"""The bundled example end to end: the defective model ranks lower, and the report
shows why (errors, lower coverage, fewer states) with screenshots and a state graph."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser


def test_every_example_app_is_evaluated(example_run):
    run, _ = example_run
    assert len(run.apps) == 14
    for app in run.apps:
        assert app.outcome == "evaluated", f"{app.model}/{app.task_id}: {app.reason}"
        assert app.exploration.coverage.statements is not None


def test_defective_model_ranks_lower(example_run):
    run, _ = example_run
    ranks = {row.model: row.rank for row in run.leaderboard}
    assert ranks["aurora-7b"] < ranks["brisk-3b"]
    rows = {row.model: row for row in run.leaderboard}
    assert rows["brisk-3b"].metrics["runtime_errors"] > rows["aurora-7b"].metrics["runtime_errors"]


def test_defects_are_visible_in_the_evidence(example_run):
    run, out = example_run
    apps = {(a.model, a.task_id): a for a in run.apps}
    todo = json.loads((out / apps["brisk-3b", "todomvc"].evidence / "trace.json").read_text())
    errors = [e for s in todo["steps"] for e in s["page_errors"]]
    assert any("TypeError" in e for e in errors), errors
    snake = apps["brisk-3b", "canvas-snake"]
    assert snake.exploration.coverage.statements < apps["aurora-7b", "canvas-snake"].exploration.coverage.statements


def test_cdn_library_came_from_the_mirror(example_run):
    run, out = example_run
    app = next(a for a in run.apps if a.model == "aurora-7b" and a.task_id == "000026")
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert any("chart.js" in u for u in trace["mirrored_requests"]), trace["mirrored_requests"]


def test_report_has_pages_screenshots_and_graphs(example_run):
    run, out = example_run
    index = (out / "report" / "index.html").read_text()
    assert "aurora-7b" in index and "brisk-3b" in index
    pages = list((out / "report").rglob("*.html"))
    assert len(pages) >= 1 + len(run.apps)
    page = next(p for p in pages if "todomvc" in p.name and "aurora" in str(p))
    html = page.read_text()
    assert "<svg" in html and ("<img" in html)


def test_without_an_llm_the_ui_tests_are_unscored_and_the_report_says_so(example_run):
    run, out = example_run
    rows = {row.model: row for row in run.ui_tests}
    assert set(rows) == {"aurora-7b", "brisk-3b"}
    for row in rows.values():
        assert row.instructions == 4 and row.start_failures == 0
        assert row.accuracy is None and row.reason.startswith("unscored: needs an LLM")
    app = next(a for a in run.apps if a.task_id == "000010")
    assert app.scores["uitest_accuracy"].value is None and all(o.verdict is None for o in app.ui_tests)
    assert "needs an LLM" in (out / "report" / "index.html").read_text()
