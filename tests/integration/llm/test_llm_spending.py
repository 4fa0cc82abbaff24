"""What a run spends, end to end with real Chromium and the fake Messages API: judges
through Message Batches, interrupted and resumed without sending anything twice; a
budget that stops new LLM work and leaves the rest for a resumed run."""

from __future__ import annotations

import json
import shutil

import pytest

from fakes import runs, scripted_llm
from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import artifacts, settings as settings_mod
from iwcbench.pipeline.runs import assistants, local

pytestmark = pytest.mark.browser


def _corpus(tmp_path):
    apps = tmp_path / "apps"
    for model in ("aurora-7b", "brisk-3b"):
        shutil.copytree(runs.ROOT / f"examples/apps/{model}/todomvc", apps / model / "todomvc")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(next(line for line in (runs.ROOT / "examples/tasks.jsonl").read_text().splitlines()
                          if '"todomvc"' in line) + "\n")
    return tasks, apps


def _result(out, model):
    return json.loads((out / f"apps/{model}/todomvc/result.json").read_text())


def test_batch_judges_interrupted_then_resumed(tmp_path, fake_anthropic):
    fake_anthropic.handler = scripted_llm.ScriptedModel()
    fake_anthropic.batches.hold = True  # the first sitting gives up waiting
    tasks, apps = _corpus(tmp_path)
    out = tmp_path / "out"
    quick = runs.quick_settings(tasks, apps, out, tmp_path / "mirror", workers=1, max_steps=4)
    config = settings_mod.RunSettings.model_validate({
        **quick.model_dump(), "judging": {"model": "claude-test-judge"},
        "spending": {"batch_judges": True, "batch_poll_s": 0.05, "batch_poll_max_s": 0.2, "batch_wait_s": 3}})
    first = local.execute(config)
    for app in first.apps:
        for name in ("aesthetics", "usability"):
            assert assistants.waiting(app.scores[name]), app.scores[name]
        assert app.scores["alignment_functional"].value is not None  # the agent stayed interactive
    first_batches = len(fake_anthropic.batches.created)
    submitted = [r["custom_id"] for b in fake_anthropic.batches.created for r in b.requests]
    assert submitted

    fake_anthropic.batches.hold = False
    explored = {m: (out / f"apps/{m}/todomvc/trace.json").stat().st_mtime_ns for m in ("aurora-7b", "brisk-3b")}
    second = local.execute(config, resume=True)
    for app in second.apps:
        assert app.scores["aesthetics"].value is not None and app.scores["usability"].value is not None
        # aesthetics and usability: advocate, critic, 5 final judges each; WebCoderBench's 5 judges
        assert app.llm_usage.batched_calls == 2 * 7 + 5
    assert explored == {m: (out / f"apps/{m}/todomvc/trace.json").stat().st_mtime_ns for m in explored}
    resent = [r["custom_id"] for b in fake_anthropic.batches.created[first_batches:] for r in b.requests]
    assert not set(submitted) & set(resent), "the first sitting's batch was collected, not sent again"
    journal = json.loads((out / artifacts.BATCHES.key).read_text())
    assert all(entry["collected"] for entry in journal.values())
    assert "aesthetics" in json.loads((out / "results.json").read_text())["weights"]


def test_max_cost_stops_new_llm_work_and_resume_with_more_goes_on(tmp_path, fake_anthropic):
    fake_anthropic.handler = scripted_llm.ScriptedModel()
    tasks, apps = _corpus(tmp_path)
    out = tmp_path / "out"
    common = ["run", "--tasks", str(tasks), "--apps", str(apps), "--out", str(out), "--workers", "1",
              "--explorer", "llm", "--judge", "claude-sonnet-test", "--max-steps", "4",
              "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror")]
    assert cli.main([*common, "--max-cost", "0.0001"]) == 0
    by_outcome = {_result(out, m)["outcome"]: _result(out, m) for m in ("aurora-7b", "brisk-3b")}
    assert set(by_outcome) == {"evaluated", "error"}
    why = by_outcome["error"]["reason"]
    assert why.startswith("not explored") and "budget of $0.00 was reached" in why and "--max-cost" in why
    # the first app's exploration spent the budget: its judges did not start
    assert by_outcome["evaluated"]["scores"]["usability"]["status"] == "over_budget"
    spent = json.loads((out / "results.json").read_text())["llm_usage"]["cost_usd"]
    assert spent > 0.0001  # the app under way was finished, no new one was started

    assert cli.main([*common, "--max-cost", "100", "--resume"]) == 0
    for model in ("aurora-7b", "brisk-3b"):
        assert _result(out, model)["outcome"] == "evaluated"
        assert _result(out, model)["scores"]["usability"]["value"] is not None
