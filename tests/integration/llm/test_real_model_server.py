"""Two apps of the example through every LLM purpose on a real model server: llama.cpp's
(llama-cpp-python, built by hack/llm-server) serving SmolLM2-135M-Instruct, reached as
``--judge llama-cpp/<its model>`` with LLAMA_CPP_BASE_URL (tests/fakes/real_model.py says
why not openai/ yet). A 135M model answers badly: the run must still complete, and every
judged score ends scored, or unscored with a reason that says what the model did wrong
(or what it cannot take), never a crash's words.
The same run's ledgers give the real tokenizer's prompt tokens per purpose beside
``--estimate``'s forecast (docs/llm.md, "A real model server")."""

from __future__ import annotations

import json
import re

import pytest

from fakes import real_model

from iwcbench.pipeline.kits import llm

# a CPU model: about 500 s for the two apps on a quiet 2-core machine, over 600 s beside other work
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(2400)]

# the scores a model decides, per app (alignment and WebCoderBench's alignment need the
# checklist of todomvc; the UI-test agent and the appearance judge the cases of 000049)
JUDGED = {
    "brisk-3b/todomvc": ("aesthetics", "usability", "alignment_functional", "alignment_content",
                         "alignment_visual", "wcb_functionality", "wcb_visual_experience",
                         "wcb_functional_alignment", "wcb_content_alignment", "wcb_visual_alignment"),
    "brisk-3b/000049": ("aesthetics", "usability", "wcb_functionality", "wcb_visual_experience",
                        "appearance", "uitest_accuracy"),
}
# What an unscored judged score may say: what the model did wrong, what it cannot take (a
# prompt past its context window, screenshots for a text-only model), or that the task
# gives it nothing to judge.
MODEL_FAULT = re.compile("|".join((
    r"no \w+ call", r"did not use \w+", r"without calling", r"not valid JSON", r"must be", r"is empty",
    r"missing adjustment", r"outside ±", r"unknown (aspects|criterion)", r"no verdict for",
    r"not accepted", r"empty report", r"gave no verdict", r"context window", r"reads no images",
    r"has no checklist", r"has no \w+ criteria", r"instead of calling", r"called \w+ instead of",
    r"gave an empty answer", r"arguments are not an object", r"recorded no interaction to judge",
    r"called no tool", r"no usable verdict",
)))
CRASH = re.compile(r"Traceback|object has no attribute|KeyError|TypeError|NoneType")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with real_model.running(tmp_path_factory.mktemp("real-model-server")) as model:
        yield model


@pytest.fixture(scope="module")
def outcome(server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("real-model")
    code, out = real_model.run_example(server, folder)
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").is_file() else None
    return server, code, out, results


def test_the_run_completes_whatever_the_model_answers(outcome):
    model, code, _, results = outcome
    assert code == 0, model.log.read_text()[-3000:]
    apps = {f"{a['model']}/{a['task_id']}": a for a in results["apps"]}
    assert set(apps) == set(JUDGED)
    for key, app in apps.items():
        assert app["outcome"] == "evaluated", (key, app.get("reason"))


def test_every_judged_score_is_scored_or_says_what_the_model_did_wrong(outcome):
    _, _, _, results = outcome
    apps = {f"{a['model']}/{a['task_id']}": a for a in results["apps"]}
    problems = []
    for key, names in JUDGED.items():
        for name in names:
            score = apps[key]["scores"][name]
            reason = score.get("reason") or ""
            if score["value"] is None and (CRASH.search(reason) or not MODEL_FAULT.search(reason)):
                problems.append((key, name, reason[:400]))
    assert not problems, problems


def test_the_servers_token_counts_reach_the_ledger(outcome):
    _, _, out, _ = outcome
    rows = {r.purpose: r for r in real_model.token_counts(out)}
    answered = {p: r for p, r in rows.items() if r.calls}
    assert answered, "the server answered no call"
    # every purpose the server answered reports its real tokenizer's count
    for purpose, row in answered.items():
        assert row.prompt > 0, (purpose, row)


def test_a_prompt_past_the_models_window_is_refused_with_the_reason_before_or_by_the_server(server, monkeypatch):
    """SmolLM2 is served with an 8,192-token window. With the capabilities the kit knows
    (smollm: 8,192), a longer prompt is refused before it is sent; told a larger window
    than the server has, the kit sends it, and the server's refusal names the window."""
    monkeypatch.setenv(real_model.URL_ENV, server.base_url)
    name = f"{real_model.PROVIDER}/{server.model}"
    prompt = [{"role": "user", "content": "the page says: " + "lorem ipsum dolor sit amet " * 2500}]
    with pytest.raises(llm.LLMError, match=r"does not fit the model's context window of 8,192 tokens"):
        llm.Client(llm.Config(model=name, max_attempts=1)).create(system="summarise", messages=prompt)
    overstated = llm.Client(llm.Config(model=name, max_attempts=1, models={name: {"context_tokens": 65_536}}))
    with pytest.raises(llm.LLMError, match=r"context"):
        overstated.create(system="summarise", messages=prompt, max_tokens=64)
