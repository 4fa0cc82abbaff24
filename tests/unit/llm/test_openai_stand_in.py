"""The stand-in OpenAI-compatible server refuses what real servers refuse, so a
request the kit builds that it accepts is one a real server would take."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from fakes.anthropic_server import text


def _post(fake, body, token="k"):
    request = urllib.request.Request(f"{fake.url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              **({"authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize("messages, why", [
    ([{"role": "critic", "content": "x"}], "not one of"),
    ([{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "call_9", "content": "r"}], "response to"),
    ([{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [CALL]},
      {"role": "user", "content": "next"}], "must be followed by tool"),
    ([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": "AA=="}}]}], "'image'"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "AAAA"}}]}], "URL"),
])
def test_requests_real_servers_refuse_are_refused(fake_openai, messages, why):
    fake_openai.handler = lambda body: text("should not be asked")
    status, payload = _post(fake_openai, {"model": "m", "messages": messages})
    assert status == 400 and why in payload["error"]["message"]


def test_a_missing_bearer_token_is_unauthorized_and_a_valid_request_is_answered(fake_openai):
    fake_openai.handler = lambda body: text("hello")
    ok = {"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": None,
                                                                          "tool_calls": [CALL]},
                                     {"role": "tool", "tool_call_id": "call_1", "content": "r"}]}
    assert _post(fake_openai, ok, token=None)[0] == 401
    status, payload = _post(fake_openai, ok)
    assert status == 200 and payload["choices"][0]["message"]["content"] == "hello"
