"""The example end to end with every LLM purpose on an OpenAI-compatible endpoint, and
on a mix of providers: real Chromium, the real ``openai`` and ``anthropic`` clients
against the stand-in servers, one scripted model answering every role on both
(tests/fakes/scripted_llm.py). Every score that needs a model is scored, and the
stand-in OpenAI-compatible server refused nothing the kit sent."""

from __future__ import annotations

import json
import shutil

import pytest

from fakes import runs
from fakes.scripted_llm import ScriptedModel
from iwcbench.pipeline import cli

pytestmark = pytest.mark.browser

APPS = ("brisk-3b/todomvc", "brisk-3b/000049")  # a checklist (alignment); UI test cases (agent, appearance)
MODEL_SCORES = ("aesthetics", "usability", "alignment_functional", "wcb_functionality", "wcb_visual_experience")


def _run(tmp_path, *flags: str) -> dict:
    apps = tmp_path / "apps"
    for app in APPS:
        shutil.copytree(runs.ROOT / "examples/apps" / app, apps / app)
    out = tmp_path / "out"
    code = cli.main(["run", "--tasks", str(runs.ROOT / "examples/tasks.jsonl"), "--apps", str(apps),
                     "--out", str(out), "--explorer", "llm", "--max-steps", "4", "--uitest-steps", "3",
                     "--no-quality", "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror"), *flags])
    assert code == 0
    return {f"{a['model']}/{a['task_id']}": a for a in json.loads((out / "results.json").read_text())["apps"]}


def _scored(found: dict) -> None:
    todo, tested = found["brisk-3b/todomvc"], found["brisk-3b/000049"]
    for app in (todo, tested):
        assert app["outcome"] == "evaluated", app.get("reason")
    for name in MODEL_SCORES:
        assert todo["scores"][name]["value"] is not None, (name, todo["scores"][name])
    assert tested["scores"]["appearance"]["value"] is not None, tested["scores"]["appearance"]
    assert tested["scores"]["uitest_accuracy"]["value"] is not None, tested["scores"]["uitest_accuracy"]


def test_every_purpose_on_an_openai_compatible_endpoint(tmp_path, fake_openai, monkeypatch):
    # no Anthropic key or endpoint at all: nothing may need one
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    fake_openai.handler = ScriptedModel()
    found = _run(tmp_path, "--judge", "openai/scripted-judge")
    _scored(found)
    assert fake_openai.refusals == []
    roles = fake_openai.handler.counts
    assert {"tester", "uitest", "appearance", "alignment"} <= set(roles), roles
    usage = found["brisk-3b/todomvc"]["llm_usage"]
    assert usage["cost_usd"] is None  # an unknown model: tokens, no price
    assert usage["input_tokens"] > 0 and usage["cache_read_input_tokens"] > 0  # the server's own prefix cache


def test_a_mix_tester_and_ui_agent_on_one_provider_judges_on_the_other(tmp_path, fake_openai, fake_anthropic):
    fake_openai.handler = ScriptedModel()
    fake_anthropic.handler = ScriptedModel()
    found = _run(tmp_path, "--judge", "claude-scripted-judge", "--explorer-model", "openai/scripted-tester",
                 "--uitest-model", "openai/scripted-agent", "--appearance-model", "claude-scripted-looker",
                 "--webcoder-model", "openai/scripted-wcb")
    _scored(found)
    assert fake_openai.refusals == []
    on_openai, on_anthropic = fake_openai.handler.counts, fake_anthropic.handler.counts
    assert {"tester", "uitest"} <= set(on_openai) and "appearance" not in on_openai, on_openai
    assert {"alignment", "appearance"} <= set(on_anthropic) and "tester" not in on_anthropic, on_anthropic
    models = {r.body["model"] for r in fake_openai.requests}
    assert models == {"scripted-tester", "scripted-agent", "scripted-wcb"}
    judged = found["brisk-3b/todomvc"]["scores"]
    assert judged["wcb_functionality"]["raw"]["judge_model"] == "openai/scripted-wcb"
    assert judged["aesthetics"]["raw"]["judge_model"] == "claude-scripted-judge"
