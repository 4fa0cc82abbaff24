"""The LLM kit against the fake OpenAI-compatible server: the same calls a stage makes
through ``llm.Client`` reach Chat Completions in its own format, and come back in the
kit's, whichever provider serves the model."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from fakes.anthropic_server import Fault, text, tool_use
from fakes.openai_server import FakeOpenAI

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting

GRADE = {"name": "grade", "description": "give a grade", "strict": True,
         "input_schema": {"type": "object", "properties": {"score": {"type": "integer"}},
                          "required": ["score"], "additionalProperties": False}}


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 200), "white").save(out, format="PNG")
    return out.getvalue()


def test_system_tools_forced_choice_temperature_and_max_tokens_in_chat_completions_form(fake_openai):
    fake_openai.push(tool_use("grade", {"score": 4}, preface="looks fine"))
    client = llm.Client(llm.Config(model="openai/gpt-4o", temperature=0.0, max_tokens=77, effort="low"))
    reply = client.create(system="be strict", tools=[GRADE], tool_choice={"type": "tool", "name": "grade"},
                          messages=[{"role": "user", "content": [llm.image_block(_png()), llm.text_block("grade")]}])
    assert reply.tool_uses == [{"type": "tool_use", "id": reply.tool_uses[0]["id"], "name": "grade",
                                "input": {"score": 4}}]
    assert reply.text == "looks fine" and reply.stop_reason == "tool_use"
    [req] = fake_openai.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer test-key-not-real"
    body = req.body
    assert body["model"] == "gpt-4o"  # the provider prefix is ours, not the endpoint's
    assert body["messages"][0] == {"role": "system", "content": "be strict"}
    picture, words = body["messages"][1]["content"]
    assert picture["type"] == "image_url" and picture["image_url"]["url"].startswith("data:image/png;base64,")
    assert words == {"type": "text", "text": "grade"}
    assert body["tools"] == [{"type": "function", "function": {
        "name": "grade", "description": "give a grade", "parameters": GRADE["input_schema"], "strict": True}}]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "grade"}}
    assert body["temperature"] == 0.0 and body["max_completion_tokens"] == 77
    assert body["reasoning_effort"] == "low"
    assert "cache_control" not in json.dumps(body)


def test_a_tool_conversation_continues_with_tool_messages_and_pictures_after_them(fake_openai):
    fake_openai.push(tool_use("look", {"at": "page"}), text("done"))
    client = llm.Client(llm.Config(model="openai/Qwen/Qwen2.5-VL-32B-Instruct"))
    tools = [{"name": "look", "description": "look", "input_schema": {"type": "object"}}]
    messages = [{"role": "user", "content": "start"}]
    first = client.create(system="s", messages=messages, tools=tools, tool_choice={"type": "any"})
    messages += [first.as_message(), {"role": "user", "content": [
        llm.tool_result_block(first.tool_uses[0]["id"], [llm.text_block("here it is"), llm.image_block(_png())]),
        llm.text_block("go on")]}]
    assert client.create(system="s", messages=messages, tools=tools).text == "done"
    assert fake_openai.refusals == []
    sent = fake_openai.requests[1].body["messages"]
    assert fake_openai.requests[0].body["tool_choice"] == "required"
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[0]["content"] == "s" and fake_openai.requests[1].body["model"] == "Qwen/Qwen2.5-VL-32B-Instruct"
    assert sent[2]["tool_calls"][0]["function"] == {"name": "look", "arguments": '{"at": "page"}'}
    assert sent[3] == {"role": "tool", "tool_call_id": sent[2]["tool_calls"][0]["id"], "content": "here it is"}
    kinds = [p["type"] for p in sent[4]["content"]]
    assert kinds == ["text", "image_url", "text"] and sent[4]["content"][-1]["text"] == "go on"


def test_usage_with_cached_tokens_is_priced_at_the_cached_input_price(fake_openai):
    fake_openai.handler = lambda body: text("ok", output_tokens=10)
    client = llm.Client(llm.Config(model="openai/gpt-4o"))
    long = "word " * 2000  # about 2,500 tokens: above the 1,024-token caching minimum
    client.create(system=long, messages=[{"role": "user", "content": "first"}])
    reply = client.create(system=long, messages=[{"role": "user", "content": "first"},
                                                 {"role": "assistant", "content": "ok"},
                                                 {"role": "user", "content": "second"}])
    assert reply.usage.cache_read_input_tokens >= 1024
    price = llm_accounting.DEFAULT_PRICES["openai/gpt-4o"]
    entry = client.ledger.entries[-1]
    expected = (reply.usage.input_tokens * price.input + reply.usage.cache_read_input_tokens * price.cache_read
                + 10 * price.output) / 1e6
    assert entry.cost_usd == pytest.approx(expected)
    assert client.ledger.totals()["cache_read_input_tokens"] == reply.usage.cache_read_input_tokens


def test_a_self_hosted_model_has_no_price_and_its_tokens_still_count(fake_openai, monkeypatch):
    monkeypatch.setenv("VLLM_BASE_URL", fake_openai.url)
    fake_openai.push(text("ok", output_tokens=5))
    client = llm.Client(llm.Config(model="vllm/Qwen2.5-VL-32B-Instruct"))
    client.create(system="s", messages=[{"role": "user", "content": "hi"}])
    totals = client.ledger.totals()
    assert totals["cost_usd"] is None
    assert totals["output_tokens"] == 5 and totals["input_tokens"] > 0


def test_rate_limits_are_retried_and_a_refusal_is_an_llm_error(fake_openai):
    waits: list[float] = []
    fake_openai.push(Fault.rate_limit(retry_after=0.25), text("after the wait"))
    client = llm.Client(llm.Config(model="openai/gpt-4o"), sleep=waits.append)
    assert client.create(system="s", messages=[{"role": "user", "content": "x"}]).text == "after the wait"
    assert waits == [0.25]
    fake_openai.push(Fault.bad_request("nope"))
    with pytest.raises(llm.LLMError, match="HTTP 400"):
        client.create(system="s", messages=[{"role": "user", "content": "y"}])


def test_the_response_cache_keeps_providers_and_endpoints_apart(fake_openai, fake_anthropic, tmp_path):
    fake_openai.handler = lambda body: text("from openai")
    fake_anthropic.handler = lambda body: text("from anthropic")
    other = FakeOpenAI().start()
    other.handler = lambda body: text("from another server")
    try:
        ask = dict(system="s", messages=[{"role": "user", "content": "same question"}], sample=0)
        answers = [llm.Client(llm.Config(model=m, cache_dir=str(tmp_path), base_url=url)).create(**ask).text
                   for m, url in (("openai/m", None), ("anthropic/m", None), ("m", None), ("openai/m", other.url))]
        assert answers == ["from openai", "from anthropic", "from anthropic", "from another server"]
        again = llm.Client(llm.Config(model="openai/m", cache_dir=str(tmp_path), base_url=other.url)).create(**ask)
        assert again.cached and again.text == "from another server"
    finally:
        other.stop()
