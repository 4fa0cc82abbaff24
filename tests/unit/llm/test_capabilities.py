"""What a model can take, applied before anything is sent (kits/llm/capabilities): a
text-only model gets a line of text where a screenshot was, a purpose judged on
screenshots is unscored from the start, a prompt that cannot fit the context window is
refused with the reason, and an answer is cut to the room left."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from fakes.anthropic_server import text, tool_use
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, reader, sample_files

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import capabilities
from iwcbench.pipeline.runs import assistants
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.uitesting import appearance

TEXT_ONLY = {"openai/tiny": {"images": False, "context_tokens": 2048}}


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(out, format="PNG")
    return out.getvalue()


def test_family_defaults_and_the_settings_override_them():
    assert capabilities.of("claude-opus-4-5").images and capabilities.of("claude-opus-4-5").context_tokens == 200_000
    assert not capabilities.of("openai/SmolLM2-135M-Instruct").images
    assert capabilities.of("openai/some-new-model") == capabilities.DEFAULT
    assert capabilities.of("openai/tiny", TEXT_ONLY) == capabilities.Capabilities(False, True, 2048)
    assert capabilities.of("openai/tiny", {"openai/tiny": {"images": None}}) == capabilities.DEFAULT


def test_a_text_only_model_is_sent_a_line_of_text_where_the_screenshot_was(fake_openai):
    fake_openai.push(text("a white page"))
    client = llm.Client(llm.Config(model="openai/tiny", models=TEXT_ONLY))
    client.create(system="describe", messages=[
        {"role": "user", "content": [llm.text_block("the page:"), llm.image_block(_png())]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}]},
        {"role": "user", "content": [llm.tool_result_block("t1", [llm.image_block(_png())])]}])
    [req] = fake_openai.requests
    sent = str(req.body["messages"])
    assert "image_url" not in sent and sent.count("openai/tiny reads no images") == 2


def test_a_prompt_larger_than_the_window_is_refused_before_sending_and_an_answer_is_cut_to_the_room(fake_openai):
    client = llm.Client(llm.Config(model="openai/tiny", models=TEXT_ONLY, max_tokens=4096))
    with pytest.raises(llm.LLMError, match=r"does not fit the model's context window of 2,048 tokens "
                                           r"\(llm.models.openai/tiny.context_tokens\)"):
        client.create(system="read", messages=[{"role": "user", "content": "word " * 4000}])
    assert fake_openai.requests == []
    fake_openai.push(text("ok"))
    client.create(system="read", messages=[{"role": "user", "content": "word " * 200}])
    [req] = fake_openai.requests
    assert 256 <= req.body["max_completion_tokens"] < 2048  # the window less the prompt, not the 4,096 asked


def test_a_purpose_judged_on_screenshots_is_unscored_from_the_start_for_a_blind_model(fake_openai):
    fake_openai.handler = ScriptedJudge()
    client = llm.Client(llm.Config(model="openai/tiny", models={"openai/tiny": {"images": False}}))
    scores = judging.judge_app(TODO_TASK, reader(sample_files()), client,
                               settings.Judging(dimensions=("aesthetics", "usability")))
    assert scores["aesthetics"].value is None
    assert scores["aesthetics"].reason.startswith("not judged: openai/tiny reads no images")
    assert scores["usability"].value is not None  # the other judge still runs, on text
    systems = [str(r.body["messages"][0]["content"]) for r in fake_openai.requests]
    assert systems and not any("aesthetic" in s.lower() for s in systems)  # no aesthetics call was sent
    shot = appearance.judge(client, "a todo app", [("shots/0000.png", _png())])
    assert shot.value is None and "reads no images" in shot.reason
    evaluation = settings.Evaluation.model_validate({
        "judging": {"model": "openai/tiny"}, "llm": {"models": {"openai/tiny": {"images": False}}}})
    assert assistants.blind_purposes(evaluation) == {"aesthetics": "openai/tiny", "wcb.visual": "openai/tiny",
                                                     "uitest.appearance": "openai/tiny"}


def test_ask_tool_names_what_the_model_did_wrong_and_answers_a_wrong_call_with_an_error_result(fake_anthropic):
    fake_anthropic.push(text("I think it is a 4"), tool_use("grade", {"score": "four"}), tool_use("grade", {"score": 4}))
    tool = {"name": "grade", "input_schema": {"type": "object", "properties": {"score": {"type": "integer"}}}}
    client = llm.Client(llm.Config(model="claude-sonnet-4-5"))
    answer = llm.ask_tool(client, system="grade it", content="the app", tool=tool, purpose="wcb.functionality",
                          check=lambda v: None if isinstance(v.get("score"), int) else "score must be an integer")
    assert answer.value == {"score": 4} and answer.calls == 3
    second, third = fake_anthropic.requests[1].body["messages"], fake_anthropic.requests[2].body["messages"]
    assert "answered in prose instead of calling grade" in second[-1]["content"][0]["text"]
    result = third[-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] and "score must be an integer" in result["content"]
    fake_anthropic.push(text("no"), text("still no"))
    failed = llm.ask_tool(client, system="grade it", content="again", tool=tool, purpose="x", retries=1)
    assert failed.value is None and not failed.failed and failed.problem == "answered in prose instead of calling grade"


def test_only_the_messages_wire_refuses_to_force_a_tool_while_the_model_thinks(fake_openai):
    thinking = llm.Client(llm.Config(model="claude-opus-4-5", thinking=True))
    assert thinking.forcing("grade") is None
    assert llm.Client(llm.Config(model="claude-opus-4-5")).forcing("grade") == {"type": "tool", "name": "grade"}
    assert llm.Client(llm.Config(model="openai/gpt-5", thinking=True)).forcing() == {"type": "any"}


def test_llama_cpps_server_is_never_asked_for_any_tool_and_a_tool_call_turn_carries_an_empty_string(fake_openai):
    # its chatml-function-calling handler takes "auto" or a named tool, and refuses content null
    # (found against the real server: tests/integration/llm/test_real_model_server.py)
    local = llm.Client(llm.Config(model="llama-cpp/smollm2", base_url=fake_openai.url))
    assert local.forcing() is None and local.forcing("grade") == {"type": "tool", "name": "grade"}
    fake_openai.push(text("fine"))
    llm.Client(llm.Config(model="openai/gpt-4o")).create(system="s", messages=[
        {"role": "user", "content": "grade it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "grade", "input": {}}]},
        {"role": "user", "content": [llm.tool_result_block("c1", "not accepted", is_error=True)]}])
    [req] = fake_openai.requests
    assert req.body["messages"][2]["content"] == "" and req.body["messages"][2]["tool_calls"]
