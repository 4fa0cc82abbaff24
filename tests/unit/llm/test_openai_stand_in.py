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


def _upload(client, lines, name="in.jsonl", purpose="batch"):
    data = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines).encode()
    return client.files.create(file=(name, data, "application/jsonl"), purpose=purpose)


def _request(cid, model="m", **changes):
    return {"custom_id": cid, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": model, "messages": [{"role": "user", "content": cid}]}, **changes}


def test_batch_files_and_batches_are_refused_as_the_api_refuses_them(fake_openai):
    import openai

    client = openai.OpenAI(api_key="k", base_url=fake_openai.url, max_retries=0)
    with pytest.raises(openai.BadRequestError, match="purpose"):
        _upload(client, [_request("a")], purpose="batches")
    with pytest.raises(openai.BadRequestError, match="Must be .jsonl"):
        _upload(client, [_request("a")], name="in.txt")
    good = _upload(client, [_request("a")])
    with pytest.raises(openai.BadRequestError, match="completion_window"):
        client.batches.create(input_file_id=good.id, endpoint="/v1/chat/completions", completion_window="48h")
    with pytest.raises(openai.BadRequestError, match="No such File"):
        client.batches.create(input_file_id="file-nope", endpoint="/v1/chat/completions", completion_window="24h")
    # malformed lines: the batch is made, then fails validation naming each bad line
    bad = _upload(client, [_request("a"), "{not json", _request("a"), _request("b", method="GET"),
                           _request("c", url="/v1/embeddings"), {"method": "POST"}, _request("d", model="other")])
    batch = client.batches.create(input_file_id=bad.id, endpoint="/v1/chat/completions", completion_window="24h")
    seen = client.batches.retrieve(batch.id)
    assert seen.status == "failed" and seen.output_file_id is None
    assert [(e.line, e.code) for e in seen.errors.data] == [
        (2, "invalid_json_line"), (3, "duplicate_custom_id"), (4, "invalid_request"), (5, "invalid_url"),
        (6, "missing_required_parameter"), (7, "mismatched_model")]


def test_a_batch_answers_each_line_by_custom_id_and_a_failed_one_sends_each_again(fake_openai):
    import openai

    from iwcbench.pipeline.kits import llm
    from iwcbench.pipeline.kits.llm import chat as llm_openai, chat_batches as llm_openai_batches, providers as llm_providers

    fake_openai.handler = lambda body: text(f"re: {body['messages'][-1]['content'][0]['text']}")
    fake_openai.batches.fault = lambda cid, body: "invalid" if cid == "b" else None
    client = openai.OpenAI(api_key="k", base_url=fake_openai.url, max_retries=0)
    done = client.batches.create(input_file_id=_upload(client, [_request("a"), _request("b")]).id,
                                 endpoint="/v1/chat/completions", completion_window="24h")
    failed = client.batches.create(input_file_id=_upload(client, [_request("x", url="/v1/x")]).id,
                                   endpoint="/v1/chat/completions", completion_window="24h")
    wire = llm_openai_batches.Batches(llm_openai.ChatCompletions(
        llm_providers.resolve("openai/m", fake_openai.url, "k"), 10))
    outcomes, counts = wire.results(done.id, ["a", "b"])
    assert outcomes["a"][0] == "ok" and outcomes["a"][1].text == "re: a"
    assert isinstance(outcomes["b"][1], llm.LLMError) and counts == {"succeeded": 1, "errored": 1}
    outcomes, counts = wire.results(failed.id, ["x"])
    assert isinstance(outcomes["x"][1], llm.ItemFailed) and "invalid_url" in str(outcomes["x"][1])


def test_a_server_without_a_batch_api_answers_404(fake_openai):
    import openai

    fake_openai.batches.served = False
    client = openai.OpenAI(api_key="k", base_url=fake_openai.url, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        _upload(client, [_request("a")])
    with pytest.raises(openai.NotFoundError):
        client.batches.list()
