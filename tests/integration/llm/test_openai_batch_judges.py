"""--batch-judges with an OpenAI judge, end to end: real Chromium, the real ``openai``
client against the stand-in server. Where the endpoint serves OpenAI's batch API the
judging pass sends the judges' calls as uploaded batch files at half price; where it
does not (vLLM, Ollama: 404) the same run judges through ordinary calls at the list
price, says why in its log, and scores the same."""

from __future__ import annotations

import json
import logging
import shutil

import pytest

from fakes import runs, scripted_llm
from iwcbench.pipeline.contracts import artifacts, settings as settings_mod
from iwcbench.pipeline.runs import local

pytestmark = pytest.mark.browser

MODELS = ("aurora-7b", "brisk-3b")
JUDGED = ("aesthetics", "usability", "wcb_functionality")


def _config(tmp_path) -> settings_mod.RunSettings:
    apps = tmp_path / "apps"
    for model in MODELS:
        shutil.copytree(runs.ROOT / f"examples/apps/{model}/todomvc", apps / model / "todomvc")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(next(line for line in (runs.ROOT / "examples/tasks.jsonl").read_text().splitlines()
                          if '"todomvc"' in line) + "\n")
    quick = runs.quick_settings(tasks, apps, tmp_path / "out", tmp_path / "mirror", workers=1, max_steps=4)
    return settings_mod.RunSettings.model_validate({
        **quick.model_dump(), "judging": {"model": "openai/gpt-4o"},
        "spending": {"batch_judges": True, "batch_poll_s": 0.05, "batch_poll_max_s": 0.2, "batch_wait_s": 120}})


@pytest.mark.parametrize("served", [True, False], ids=["batch-api", "no-batch-api"])
def test_judges_batch_through_openai_where_served_and_fall_back_where_not(tmp_path, fake_openai, monkeypatch,
                                                                          caplog, served):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fake_openai.handler = scripted_llm.ScriptedModel()
    fake_openai.batches.served = served
    config = _config(tmp_path)
    with caplog.at_level(logging.WARNING, logger="iwcbench.pipeline.kits.llm.batches"):
        done = local.execute(config)
    assert fake_openai.refusals == []
    for app in done.apps:
        for name in JUDGED:
            assert app.scores[name].value is not None, (app.model, name, app.scores[name])
        assert app.scores["alignment_functional"].value is not None  # the agent stayed interactive
        assert {app.scores[n].raw["judge_model"] for n in JUDGED} == {"openai/gpt-4o"}
        usage = app.llm_usage
        # aesthetics and usability: advocate, critic, 5 final judges each; WebCoderBench's 5 judges
        assert usage.batched_calls == (2 * 7 + 5 if served else 0)
        assert usage.cost_usd is not None and usage.cost_usd > 0
    stored = json.loads((tmp_path / "out" / "results.json").read_text())["apps"]
    assert {a["scores"][n]["raw"]["judge_model"] for a in stored for n in JUDGED} == {"openai/gpt-4o"}
    warnings = [r.getMessage() for r in caplog.records]
    if served:
        assert fake_openai.batches.created and all(b.status == "completed" for b in fake_openai.batches.created)
        lines = [json.loads(x) for b in fake_openai.batches.created
                 for x in fake_openai.batches.files[b.input_file_id].data.decode().splitlines()]
        assert len(lines) == len(MODELS) * (2 * 7 + 5) and {x["body"]["model"] for x in lines} == {"gpt-4o"}
        journal = json.loads((tmp_path / "out" / artifacts.BATCHES.key).read_text())
        assert all(e["collected"] and e["endpoint"] == f"openai@{fake_openai.url}" for e in journal.values())
        assert warnings == []
    else:
        assert fake_openai.batches.created == []
        assert [w for w in warnings if "serves no batch API (HTTP 404 on /v1/files)" in w], warnings
