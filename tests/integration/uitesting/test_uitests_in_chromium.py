"""WebGen-Bench's evaluator end to end: the scripted GUI agent (fake Messages API, the
real anthropic client) drives real Chromium on the notes fixture apps — one where the
test passes, one where it partly works, one whose feature is missing, one that never
starts — then the Accuracy table, the report, replays, and the agent misbehaving."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from fakes import runs, ui_agent
from fakes.anthropic_server import FakeAnthropic
from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.runs import local

pytestmark = pytest.mark.browser

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
TASKS = FIXTURES / "tasks.jsonl"
APPS = FIXTURES / "apps" / "fixture-1b"
COMMON = ["--offline-mirror", "--no-accessibility"]


@pytest.fixture(scope="module")
def fake_api():
    fake = FakeAnthropic().start()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANTHROPIC_BASE_URL", fake.url)
        mp.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
        yield fake
    fake.stop()


@pytest.fixture(scope="module")
def fixture_run(fake_api, tmp_path_factory):
    """`iwc run --uitest-model M` over the four fixture apps: (out folder, printed text)."""
    base = tmp_path_factory.mktemp("uitests")
    fake_api.handler = ui_agent.ScriptedAgent()
    out = base / "out"
    code = cli.main(["run", "--tasks", str(TASKS), "--apps", str(FIXTURES / "apps"), "--out", str(out),
                     "--uitest-model", "claude-ui-test", "--max-steps", "2", "--workers", "2",
                     "--mirror-dir", str(base / "mirror"), *COMMON])
    assert code == 0
    return out


def _report(out: pathlib.Path, task: str) -> dict:
    return json.loads((out / "apps/fixture-1b" / task / "uitests.json").read_text())


def test_each_app_gets_the_verdict_its_behaviour_earns(fixture_run):
    verdicts = {t: _report(fixture_run, t)["cases"][0]["verdict"] for t in ("notes-good", "notes-partial", "notes-missing")}
    assert verdicts == {"notes-good": "YES", "notes-partial": "PARTIAL", "notes-missing": "NO"}
    good = _report(fixture_run, "notes-good")["cases"][0]
    assert good["evidence_steps"] == [2] and good["screenshots"] == ["uitests/01/shots/0002.png"]
    assert (fixture_run / "apps/fixture-1b/notes-good" / good["screenshots"][0]).is_file()
    trace = json.loads((fixture_run / "apps/fixture-1b/notes-good/uitests/01/trace.json").read_text())
    assert trace["explorer"] == "uitest" and [s["action"]["kind"] for s in trace["steps"]] == ["load", "type", "click"]
    missing = _report(fixture_run, "notes-missing")["cases"][0]
    assert missing["steps"] == 0 and missing["justification"]


def test_accuracy_counts_the_start_failure_as_no_and_apart(fixture_run, capsys):
    run = json.loads((fixture_run / "results.json").read_text())
    row, = run["ui_tests"]
    # cases: good YES, partial PARTIAL, missing NO, never-starts 2 × NO → 1.5 / 5
    assert row["accuracy"] == pytest.approx(30.0)
    assert row["start_failures"] == 1 and row["instructions"] == 4
    assert row["started_accuracy"] == pytest.approx(50.0)  # 1.5 / 3
    assert row["instruction_accuracy"] == pytest.approx(37.5)  # YES, PARTIAL, NO, NO
    assert row["appearance"] == pytest.approx((4 + 4 + 4 + 1) / 4)  # the start failure at the floor
    never = next(a for a in run["apps"] if a["task_id"] == "never-starts")
    assert never["outcome"] == "start_failed" and never["scores"]["uitest_accuracy"]["value"] == 0.0


def test_the_report_shows_every_case_with_verdict_steps_and_screenshots(fixture_run):
    index = (fixture_run / "report/index.html").read_text()
    assert "WebGen-Bench Accuracy" in index and "30.0" in index and "1 of 4" in index
    page = (fixture_run / "report/apps/fixture-1b/notes-partial.html").read_text()
    assert "UI tests" in page and ">PARTIAL<" in page and "the agent's steps" in page
    assert "uitests-01-0002" in page  # the case's own screenshot, copied apart from the exploration's


def test_only_the_passing_case_stores_a_replay_and_it_replays_offline(fixture_run, tmp_path, capsys):
    stored = sorted((fixture_run / "replays").rglob("*.json"))
    assert [p.parent.name for p in stored] == ["notes-good"]
    code = cli.main(["uitest", "replay", str(APPS / "notes-good"), "--task", "notes-good", "--tasks", str(TASKS),
                     "--from", str(fixture_run), "--out", str(tmp_path / "same"), *COMMON])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "1 of 1 replays reach their end state" in printed
    mutated = tmp_path / "notes-v2"
    shutil.copytree(APPS / "notes-good", mutated)
    script = mutated / "app.js"
    script.write_text(script.read_text().replace("list.appendChild(item);", "// the list is no longer filled"))
    code = cli.main(["uitest", "replay", str(mutated), "--task", "notes-good", "--tasks", str(TASKS),
                     "--from", str(fixture_run), "--out", str(tmp_path / "v2"), *COMMON])
    printed = capsys.readouterr().out
    assert code == 1, printed
    assert "FAILED" in printed and "Buy milk" in printed


def test_a_second_run_is_decided_by_the_replay_without_the_agent(fixture_run, fake_api, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(fixture_run / "replays", out / "replays")
    agent = fake_api.handler = ui_agent.ScriptedAgent()
    code = cli.main(["uitest", str(APPS / "notes-good"), "--task", "notes-good", "--tasks", str(TASKS),
                     "--model", "fixture-1b", "--out", str(out), "--uitest-model", "claude-ui-test", *COMMON])
    assert code == 0
    case = json.loads((out / "apps/fixture-1b/notes-good/uitests.json").read_text())["cases"][0]
    assert case["verdict"] == "YES" and case["source"] == "replay"
    assert agent.calls == 0


def _one(tmp_path: pathlib.Path, fake_api, mode: str, task: str = "notes-good") -> dict:
    fake_api.handler = ui_agent.ScriptedAgent(mode)
    out = tmp_path / mode
    code = cli.main(["uitest", str(APPS / task), "--task", task, "--tasks", str(TASKS), "--out", str(out),
                     "--uitest-model", "claude-ui-test", *COMMON])
    assert code == 0
    return json.loads((out / f"apps/app/{task}/uitests.json").read_text())["cases"][0]


def test_an_agent_that_never_answers_usably_leaves_the_case_unscored(fake_api, tmp_path):
    before = len(fake_api.requests)
    case = _one(tmp_path, fake_api, "mumble")
    assert case["verdict"] is None
    assert case["reason"].startswith("unscored: the agent gave no usable reply after 2 re-asks")
    assert case["llm_calls"] == 3
    agent_calls = [r for r in fake_api.requests[before:] if "verdict" in ui_agent.tool_names(r.body)]
    assert len(agent_calls) == 3


def test_acting_on_a_ref_that_does_not_exist_costs_a_step_and_the_error_goes_back(fake_api, tmp_path):
    before = len(fake_api.requests)
    case = _one(tmp_path, fake_api, "bad-ref")
    trace = json.loads((tmp_path / "bad-ref/apps/app/notes-good/uitests/01/trace.json").read_text())
    first = trace["steps"][1]
    assert not first["ok"] and "'e999', which is not on this page" in first["error"]
    assert case["steps"] == 3 and case["verdict"] == "YES"  # the failed click counted, then type + click
    second = [r for r in fake_api.requests[before:] if "verdict" in ui_agent.tool_names(r.body)][1]
    assert "step 1: the action failed" in ui_agent.last_tool_result(second.body)


def test_without_an_api_key_the_cases_say_they_need_an_llm(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "nokey"
    code = cli.main(["uitest", str(APPS / "notes-good"), "--task", "notes-good", "--tasks", str(TASKS),
                     "--out", str(out), "--judge", "claude-ui-test", *COMMON])
    assert code == 0
    case = json.loads((out / "apps/app/notes-good/uitests.json").read_text())["cases"][0]
    assert case["verdict"] is None and case["reason"].startswith("unscored: needs an LLM")


def test_with_batch_judges_the_appearance_judge_goes_out_in_a_batch_and_the_agent_stays_interactive(
        fake_api, tmp_path):
    fake_api.reset()
    fake_api.handler = ui_agent.ScriptedAgent()
    apps = tmp_path / "apps" / "fixture-1b"
    shutil.copytree(APPS / "notes-good", apps / "notes-good")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(next(line for line in TASKS.read_text().splitlines() if '"notes-good"' in line) + "\n")
    out = tmp_path / "out"
    quick = runs.quick_settings(tasks, tmp_path / "apps", out, tmp_path / "mirror", workers=1, max_steps=2)
    config = settings_mod.RunSettings.model_validate({
        **quick.model_dump(), "uitests": {"model": "claude-ui-test"}, "scoring": {"accessibility": False},
        "spending": {"batch_judges": True, "batch_poll_s": 0.05, "batch_poll_max_s": 0.2}})
    (app,) = local.execute(config).apps
    assert app.scores["appearance"].value is not None, app.scores["appearance"]
    usage = app.llm_usage.purposes
    assert usage["uitest.appearance"].batched_calls == 1
    assert usage["uitest.step"].calls > 0 and usage["uitest.step"].batched_calls == 0
    assert sum(len(b.requests) for b in fake_api.batches.created) == 1
    assert [c["verdict"] for c in _report(out, "notes-good")["cases"]] == ["YES"]
