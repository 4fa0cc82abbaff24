"""The judging pass of a run: scores left for later (batch mode, the budget) are judged
once the apps are explored — through shared Message Batches, resumable without sending
anything twice — and a budget reached leaves apps unscored with the reason."""

from __future__ import annotations

import json

import pytest

from fakes.anthropic_server import tool_use
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, png, sample_files

from iwcbench.pipeline.contracts import artifacts, metrics, results, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.runs import assistants, judging_pass, uitests

MODELS = ("model-a", "model-b", "model-c")
DIMS = ("aesthetics", "usability")


def _run(tmp_path, **spending) -> tuple[settings_mod.RunSettings, store_mod.Store, list[results.AppResult]]:
    """A stored run whose apps were explored and left their judged scores pending."""
    out = tmp_path / "run"
    store = store_mod.LocalStore(out)
    found = []
    for seed, model in enumerate(MODELS):
        prefix = f"apps/{model}/{TODO_TASK.id}"
        files = sample_files(title=f"To-do by {model}")
        trace = json.loads(files["trace.json"])
        files["trace.json"] = json.dumps({**trace, "seed": seed}).encode()  # apps' prompts differ
        for key, data in files.items():
            store.put_bytes(f"{prefix}/{key}", data)
        scores = {"coverage": metrics.Score(value=42.0, reason="statements covered"),
                  **assistants.pending_scores(list(DIMS))}
        result = results.AppResult(model=model, task_id=TODO_TASK.id, outcome="evaluated", reason="explored",
                                   scores=scores, evidence=prefix)
        store_mod.put_model(store, f"{prefix}/result.json", result)
        found.append(result)
    config = settings_mod.RunSettings.model_validate({
        "tasks": "tasks.jsonl", "apps": "apps", "out": str(out), "workers": 1,
        "judging": {"model": "claude-sonnet-test", "dimensions": list(DIMS)},
        "spending": {"batch_poll_s": 0.02, "batch_poll_max_s": 0.05, **spending}})
    return config, store, found


def _judge(config, store, found, limit=None):
    return judging_pass.judge_waiting(config, store, {TODO_TASK.id: TODO_TASK}, found, llm_accounting.Budget(limit))


def test_batch_mode_judges_every_waiting_app_through_shared_batches(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 30, "usability": [3] * 30})
    config, store, found = _run(tmp_path, batch_judges=True)
    judged = _judge(config, store, found)
    assert [r.scores["usability"].value for r in judged] == [60.0] * 3
    assert [r.scores["aesthetics"].value for r in judged] == [80.0] * 3
    assert judged[0].scores["coverage"].value == 42.0
    assert fake_anthropic.requests == []  # nothing interactive
    batches = fake_anthropic.batches.created
    assert sum(len(b.requests) for b in batches) == 3 * 2 * 7
    assert max(len(b.requests) for b in batches) >= 6, "the apps' calls went out together"
    saved = results.AppResult.model_validate(store_mod.get_json(store, f"apps/model-b/{TODO_TASK.id}/result.json"))
    assert saved.scores["aesthetics"].value == 80.0
    assert saved.llm_usage.batched_calls == 14
    assert saved.llm_usage.purposes["aesthetics.judge"].batched_calls == 5


def test_an_interrupted_batch_pass_is_resumed_without_sending_anything_twice(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 30, "usability": [3] * 30})
    fake_anthropic.batches.hold = True
    config, store, found = _run(tmp_path, batch_judges=True, batch_wait_s=2)
    first = _judge(config, store, found)
    assert all(assistants.waiting(r.scores["aesthetics"]) for r in first)
    assert all(r.scores["usability"].status == "pending" for r in first)
    assert all(r.scores["usability"].reason.startswith(metrics.PENDING_REASON) for r in first)
    journal = json.loads((tmp_path / "run" / artifacts.BATCHES.key).read_text())
    sent_before = {cid for entry in journal.values() for cid in entry["custom_ids"]}
    assert sent_before and not any(entry["collected"] for entry in journal.values())
    first_batches = len(fake_anthropic.batches.created)

    fake_anthropic.batches.hold = False  # the batch ends while nobody is looking
    stored = [results.AppResult.model_validate(store_mod.get_json(store, f"{r.evidence}/result.json")) for r in first]
    patient = config.model_copy(update={"spending": config.spending.model_copy(update={"batch_wait_s": 60})})
    again = _judge(patient, store, stored)
    assert [r.scores["aesthetics"].value for r in again] == [80.0] * 3
    later = [r["custom_id"] for b in fake_anthropic.batches.created[first_batches:] for r in b.requests]
    assert not set(sent_before) & set(later), "the first batch's requests were collected, not sent again"
    assert all(entry["collected"] for entry in json.loads((tmp_path / "run" / artifacts.BATCHES.key).read_text()).values())


def test_a_reached_budget_leaves_the_remaining_apps_unscored_and_a_higher_one_goes_on(fake_anthropic, tmp_path):
    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 30, "usability": [3] * 30})
    config, store, found = _run(tmp_path)
    first = _judge(config, store, found, limit=0.0001)  # one app's judging spends more than this
    assert first[0].scores["usability"].value == 60.0
    for r in first[1:]:
        for name in DIMS:
            score = r.scores[name]
            assert score.value is None and score.status == "over_budget"
            assert score.reason.startswith(metrics.OVER_BUDGET_REASON)
            assert "$0.00 was reached" in score.reason and "--max-cost" in score.reason
    sent = len(fake_anthropic.requests)
    assert sent == 2 * 7  # the first app's calls only

    more = _judge(config, store, first, limit=100.0)
    assert [r.scores["usability"].value for r in more] == [60.0] * 3
    assert len(fake_anthropic.requests) == sent + 2 * 2 * 7  # the first app was not judged again


def _looks(body):
    """The appearance judge's answer; anything else is a mistake of the test."""
    assert body["tools"][0]["name"] == "rate_appearance", body["tools"]
    return tool_use("rate_appearance", {"score": 4, "justification": "shots/0000.png is tidy."})


def test_batch_mode_judges_the_waiting_appearance_scores_in_the_same_batches(fake_anthropic, tmp_path):
    fake_anthropic.handler = _looks
    config, store, found = _run(tmp_path, batch_judges=True)
    waiting = metrics.score("appearance", None, uitests.APPEARANCE_PENDING, status="pending")
    found = [r.model_copy(update={"scores": {"coverage": r.scores["coverage"], "appearance": waiting}}) for r in found]
    for seed, r in enumerate(found):  # the apps look different: three requests, not one
        store.put_bytes(f"{r.evidence}/shots/0000.png", png(lambda d, seed=seed: d.rectangle((0, 0, 9 + seed, 9), fill="black")))
    judged = _judge(config, store, found)
    assert [r.scores["appearance"].value for r in judged] == [4.0] * 3
    assert judged[0].scores["appearance"].raw["screenshots"][0] == "shots/0000.png", "the first screen first"
    assert fake_anthropic.requests == []  # nothing interactive
    assert sum(len(b.requests) for b in fake_anthropic.batches.created) == 3  # one per app, each batched
    saved = results.AppResult.model_validate(store_mod.get_json(store, f"apps/model-b/{TODO_TASK.id}/result.json"))
    assert saved.scores["appearance"].value == 4.0
    assert saved.llm_usage.purposes["uitest.appearance"].batched_calls == 1


def test_an_appearance_that_is_not_waiting_is_not_judged_again(fake_anthropic, tmp_path):
    fake_anthropic.handler = _looks
    config, store, found = _run(tmp_path, batch_judges=True)
    done = metrics.score("appearance", 3.0, "vision judge on 1 screenshot")
    found = [r.model_copy(update={"scores": {"appearance": done}}) for r in found]
    assert _judge(config, store, found) == found
    assert fake_anthropic.batches.created == [] and fake_anthropic.requests == []


@pytest.mark.slow  # the first look at a batch comes after Spending's default 10 s
def test_iwc_score_judges_what_the_app_pods_left_waiting_through_batches(fake_anthropic, tmp_path):
    """The cluster's batch judging: app pods (``iwc app explore --batch-judges``) leave the
    non-interactive dimensions waiting; the scoring Job's ``iwc score --batch-judges``
    judges them all through shared batches, then aggregates."""
    from iwcbench.pipeline import cli

    fake_anthropic.handler = ScriptedJudge(bases={"aesthetics": [4] * 30, "usability": [3] * 30})
    config, store, _ = _run(tmp_path)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(TODO_TASK.model_dump_json() + "\n")
    document = settings_mod.Evaluation(judging=config.judging).document()
    assert cli.main(["score", "--store", str(tmp_path / "run"), "--tasks", str(tasks), "--settings", document,
                     "--batch-judges"]) == 0
    assert fake_anthropic.requests == [] and fake_anthropic.batches.created  # batched, nothing interactive
    run = results.RunResults.model_validate(store_mod.get_json(store, artifacts.RESULTS.key))
    assert [a.scores["usability"].value for a in run.apps] == [60.0] * 3
    assert [a.scores["aesthetics"].value for a in run.apps] == [80.0] * 3
