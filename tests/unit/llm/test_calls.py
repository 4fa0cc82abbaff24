"""The LLM kit against the fake Messages API: what is sent, what comes back."""

from __future__ import annotations

from fakes.anthropic_server import tool_use, text

from iwcbench.pipeline.kits import llm


def test_request_carries_model_system_parameters_and_reaches_base_url_from_env(fake_anthropic):
    fake_anthropic.push(text("hello"))
    client = llm.Client(llm.Config(model="claude-sonnet-test", temperature=0.0, effort="low", max_tokens=77))
    reply = client.create(system="be brief", messages=[{"role": "user", "content": "hi"}])
    assert reply.text == "hello"
    [req] = fake_anthropic.requests
    assert req.path.startswith("/v1/messages")
    # the key from ANTHROPIC_API_KEY is sent (this SDK version as a bearer token)
    assert "test-key-not-real" in (req.headers.get("x-api-key", "") + req.headers.get("authorization", ""))
    assert "anthropic-version" in req.headers
    assert req.body["model"] == "claude-sonnet-test"
    assert req.body["system"] == "be brief"
    assert req.body["max_tokens"] == 77
    assert req.body["temperature"] == 0.0
    assert req.body["output_config"] == {"effort": "low"}
    assert "thinking" not in req.body


def test_thinking_omits_temperature_and_explicit_base_url_wins(fake_anthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    fake_anthropic.push(text("ok"))
    client = llm.Client(llm.Config(model="claude-opus-test", thinking=True, temperature=0.0,
                                   base_url=fake_anthropic.url))
    client.create(system="s", messages=[{"role": "user", "content": "x"}])
    [req] = fake_anthropic.requests
    assert req.body["thinking"] == {"type": "adaptive"}
    assert "temperature" not in req.body


def test_tools_and_images_are_sent_and_tool_use_comes_back(fake_anthropic):
    fake_anthropic.push(tool_use("grade", {"score": 4}, preface="thinking aloud"))
    client = llm.Client(llm.Config(model="claude-haiku-test"))
    tools = [{"name": "grade", "description": "give a grade", "strict": True,
              "input_schema": {"type": "object", "properties": {"score": {"type": "integer"}},
                               "required": ["score"], "additionalProperties": False}}]
    png = b"\x89PNG\r\n\x1a\nfake"
    reply = client.create(
        system="s", tools=tools, tool_choice={"type": "tool", "name": "grade"},
        messages=[{"role": "user", "content": [llm.image_block(png), llm.text_block("grade this")]}])
    assert reply.tool_uses[0]["name"] == "grade"
    assert reply.tool_uses[0]["input"] == {"score": 4}
    assert reply.stop_reason == "tool_use"
    body = fake_anthropic.requests[0].body
    assert body["tools"][0]["name"] == "grade"
    assert body["tool_choice"] == {"type": "tool", "name": "grade"}
    image = body["messages"][0]["content"][0]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    # the assistant turn can be appended to continue a tool conversation
    assert reply.as_message()["content"][-1]["type"] == "tool_use"
