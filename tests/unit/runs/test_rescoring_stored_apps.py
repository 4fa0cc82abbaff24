"""Re-scoring stored evidence: no exploration, and with the cache no new requests."""

from __future__ import annotations

from fakes.judge_evidence import TODO_TASK, ScriptedJudge, sample_files

from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import judging_pass


def _store(tmp_path):
    store = store_mod.LocalStore(tmp_path / "run")
    for model in ("model-a", "model-b"):
        prefix = f"apps/{model}/{TODO_TASK.id}"
        for key, data in sample_files(title=f"To-do by {model}").items():
            store.put_bytes(f"{prefix}/{key}", data)
        offline = {"coverage": metrics.Score(value=42.0, reason="statements covered")}
        store_mod.put_model(store, f"{prefix}/result.json", results.AppResult(
            model=model, task_id=TODO_TASK.id, outcome="evaluated", reason="explored", scores=offline,
            evidence=prefix))
    return store


def test_rescore_writes_judge_scores_back_and_a_rerun_is_free(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 10, "usability": [3] * 10})
    store = _store(tmp_path)
    config = llm.Config(model="claude-sonnet-test", cache_dir=str(tmp_path / "cache"))
    first = llm.Client(config)
    updated = judging_pass.rescore_apps(store, {TODO_TASK.id: TODO_TASK}, first)
    assert len(updated) == 2
    # two deliberated dimensions, alignment agent: 3 turns, WebCoderBench's screenshot judge: 1
    # (no sources.json in this evidence: its code judges are unscored without a call)
    per_app = 2 * (1 + 1 + 5) + 3 + 1
    # model-b's screenshots and trace equal model-a's: its aesthetics prompts and its start
    # screen are identical and already answered from the cache (8 calls); titles differ,
    # so the rest is asked
    assert len(fake_anthropic.requests) == 2 * per_app - 8
    assert first.ledger.totals()["cache_hits"] == 8
    saved = results.AppResult.model_validate(store_mod.get_json(store, f"apps/model-a/{TODO_TASK.id}/result.json"))
    assert saved.scores["coverage"].value == 42.0  # offline scores are kept
    assert saved.scores["usability"].value == 60.0
    assert saved.scores["aesthetics"].value == 80.0
    assert first.ledger.totals()["calls"] == 2 * per_app

    # a second re-score (new process, same cache): identical scores, zero new requests
    fake_anthropic.handler = None
    sent = len(fake_anthropic.requests)
    again = llm.Client(config)
    redo = judging_pass.rescore_apps(store, {TODO_TASK.id: TODO_TASK}, again)
    assert len(fake_anthropic.requests) == sent
    assert again.ledger.totals()["cache_hits"] == 2 * per_app
    assert again.ledger.totals()["cost_usd"] == 0
    assert [r.scores["usability"].value for r in redo] == [60.0, 60.0]


def test_rescore_with_another_judge_can_keep_the_old_scores(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 10, "usability": [2] * 10})
    store = _store(tmp_path)
    client = llm.Client(llm.Config(model="claude-haiku-test"))
    judging_pass.rescore_apps(store, {TODO_TASK.id: TODO_TASK}, client, suffix="haiku", models=["model-b"])
    a = results.AppResult.model_validate(store_mod.get_json(store, f"apps/model-a/{TODO_TASK.id}/result.json"))
    b = results.AppResult.model_validate(store_mod.get_json(store, f"apps/model-b/{TODO_TASK.id}/result.json"))
    assert "usability@haiku" not in a.scores
    assert b.scores["usability@haiku"].value == 40.0
    assert b.scores["usability@haiku"].raw["judge_model"] == "claude-haiku-test"
    assert b.scores["coverage"].value == 42.0


def test_per_app_tokens_are_summed_into_the_run(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(tokens=(1000, 100))
    store = _store(tmp_path)
    run = llm_accounting.Ledger()
    # without cache_control the fake reports the scripted token counts summed here
    client = llm.Client(llm.Config(model="claude-sonnet-test", prompt_caching=False), ledger=run)
    updated = judging_pass.rescore_apps(store, {TODO_TASK.id: TODO_TASK}, client)
    per_app = updated[0].scores["usability"].raw["tokens"]
    assert per_app["calls"] == 7 and per_app["input_tokens"] == 7000
    total = run.totals()
    # per app: 2 × 7 deliberation calls, 3 alignment turns, WebCoderBench's screenshot judge
    assert total["calls"] == 36 and total["input_tokens"] == 36_000 and total["output_tokens"] == 3600
    assert total["cost_usd"] == 36 * (1000 * 3 + 100 * 15) / 1e6
