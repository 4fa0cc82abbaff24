"""Bad input never crashes a run and never loses data: every app of the bad-input
corpus gets a recorded outcome with a clear reason (tests/fixtures/bad-apps/README.md)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from fakes import runs

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def outcome(bad_run):
    run, _ = bad_run
    return {a.task_id: a for a in run.apps}


def test_every_task_has_exactly_one_recorded_outcome(bad_run, outcome):
    run, out = bad_run
    tasks = [json.loads(line)["id"] for line in (runs.ROOT / "tests/fixtures/bad-apps/tasks.jsonl").read_text().splitlines() if line.strip()]
    assert sorted(outcome) == sorted(tasks)
    for app in run.apps:
        assert app.reason, f"{app.task_id} has no reason"
        assert (out / app.evidence / "result.json").is_file()


def test_results_json_matches_published_schema(bad_run):
    _, out = bad_run
    schema = json.loads((runs.ROOT / "docs/schemas/results.schema.json").read_text())
    jsonschema.validate(json.loads((out / "results.json").read_text()), schema)


@pytest.mark.parametrize("task_id, words", [
    ("no-index", "index.html"),
    ("empty-folder", "empty"),
    ("zip-traversal", "path traversal"),
    ("tar-symlink-out", "symlink points outside"),
    ("loop-at-load", "load"),
])
def test_apps_that_cannot_start_say_why(outcome, task_id, words):
    app = outcome[task_id]
    assert app.outcome == "start_failed"
    assert words in app.reason


def test_binary_junk_is_served_and_recorded(bad_run, outcome):
    _, out = bad_run
    app = outcome["binary-junk"]
    assert app.outcome in ("evaluated", "black_box"), app.reason
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert trace["steps"][0]["action"]["kind"] == "load" and trace["stop_reason"]


@pytest.mark.parametrize("task_id", [
    "malformed-html", "loop-on-click", "dialog-storm", "popup-flood",
    "navigate-away", "huge-dom",
])
def test_hostile_but_loadable_apps_are_explored(outcome, task_id):
    app = outcome[task_id]
    assert app.outcome in ("evaluated", "black_box"), app.reason
    assert app.exploration.steps >= 1


def test_a_huge_page_is_not_charged_for_our_tools(bad_run, outcome):
    """50,000 cells: axe-core (whose rules do not yield) is not run on it, rather than
    outlasting the watchdog, and the page is never counted as hung for our scripts."""
    _, out = bad_run
    app = outcome["huge-dom"]
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    notes = [n for step in trace["steps"] for n in step["notes"]]
    assert not [n for n in notes if "stopped responding" in n], notes
    a11y = json.loads((out / app.evidence / "a11y.json").read_text())
    assert "elements, more than the" in a11y["error"]


def test_syntax_error_is_recorded_not_fatal(bad_run, outcome):
    _, out = bad_run
    app = outcome["syntax-error"]
    assert app.outcome in ("evaluated", "black_box")
    report = json.loads((out / app.evidence / "instrument.json").read_text())
    assert any("app.js" in s["path"] for s in report["skipped"])
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert any("SyntaxError" in e for s in trace["steps"] for e in s["page_errors"])


def test_dialogs_popups_and_escapes_are_in_the_trace(bad_run, outcome):
    _, out = bad_run

    def steps(task_id):
        return json.loads((out / outcome[task_id].evidence / "trace.json").read_text())["steps"]

    assert any(s["dialogs"] for s in steps("dialog-storm"))
    assert any(any("popup" in n or "window" in n for n in s["notes"]) for s in steps("popup-flood"))
    assert outcome["navigate-away"].exploration.blocked_requests >= 1 or any(
        s["notes"] for s in steps("navigate-away"))


def test_endless_click_handler_is_survived(bad_run, outcome):
    _, out = bad_run
    trace = json.loads((out / outcome["loop-on-click"].evidence / "trace.json").read_text())
    assert any(not s["ok"] for s in trace["steps"][1:]), "the hung click should be a failed step"
    assert trace["stop_reason"]
