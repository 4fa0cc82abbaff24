"""`iwc robustness A --judge PROVIDER/MODEL`: the judge-robustness study as one command —
a run judged on one provider, its stored evidence judged again on another (no new
exploration), and the two leaderboards compared (Pearson, Spearman, pairs kept, ranks)."""

from __future__ import annotations

import json
import shutil

import pytest

from fakes import runs
from fakes.scripted_llm import ScriptedModel
from iwcbench.pipeline import cli

pytestmark = pytest.mark.browser


def test_one_run_judged_again_on_another_provider_and_compared(tmp_path, fake_anthropic, fake_openai, capsys):
    apps = tmp_path / "apps"
    for app in ("aurora-7b/todomvc", "brisk-3b/todomvc"):
        shutil.copytree(runs.ROOT / "examples/apps" / app, apps / app)
    tasks, main = str(runs.ROOT / "examples/tasks.jsonl"), tmp_path / "main"
    fake_anthropic.handler = ScriptedModel()
    fake_openai.handler = ScriptedModel()
    assert cli.main(["run", "--tasks", tasks, "--apps", str(apps), "--out", str(main), "--judge", "claude-main",
                     "--max-steps", "3", "--no-quality", "--offline-mirror", "--mirror-dir", str(tmp_path / "m"),
                     "--settings", '{"judging": {"dimensions": ["aesthetics", "usability"]}}']) == 0
    sent = len(fake_anthropic.requests)
    capsys.readouterr()
    other = tmp_path / "other"
    assert cli.main(["robustness", str(main), "--judge", "openai/second-judge", "--tasks", tasks,
                     "--out", str(other)]) == 0
    captured = capsys.readouterr()
    found = json.loads(captured.out.splitlines()[0])
    assert found["models"] == 2 and found["pairs"] == 1
    assert {r["model"] for r in found["ranks"]} == {"aurora-7b", "brisk-3b"}
    assert "Spearman" in captured.err and "model pairs keep their order" in captured.err
    assert len(fake_anthropic.requests) == sent, "the second judge's calls went to the other provider only"
    assert fake_openai.requests and fake_openai.refusals == []
    assert fake_openai.handler.counts.get("tester") is None, "no new exploration"
    judged = json.loads((other / "apps/aurora-7b/todomvc/result.json").read_text())["scores"]
    assert judged["aesthetics"]["raw"]["judge_model"] == "openai/second-judge"
    assert judged["aesthetics"]["value"] is not None
    kept = json.loads((main / "apps/aurora-7b/todomvc/result.json").read_text())["scores"]
    assert kept["aesthetics"]["raw"]["judge_model"] == "claude-main", "the main run is left as it was"
    assert (other / "analyses/robustness.json").is_file()


def test_a_second_judge_without_a_key_is_refused_before_anything(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    main = tmp_path / "main"
    main.mkdir()
    code = cli.main(["robustness", str(main), "--judge", "google/gemini-2.5-flash", "--tasks",
                     str(runs.ROOT / "examples/tasks.jsonl"), "--out", str(tmp_path / "b")])
    assert code == 2 and "judging.model: google/gemini-2.5-flash: no API key: set GEMINI_API_KEY" in capsys.readouterr().err
