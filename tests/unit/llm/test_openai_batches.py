"""OpenAI's batch API behind Client.create, against the stand-in server with the real
``openai`` client: many threads' calls in one uploaded JSONL file, each thread its own
reply, half price; an endpoint that serves no batch API (vLLM, Ollama) gets ordinary
calls, with the reason logged once; lines of the output and error files map back to
their requests by custom_id."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
from fakes.anthropic_server import text

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, batch_lanes, batches as llm_batches, chat_batches as llm_openai_batches, providers as llm_providers

FAST = llm_batches.Timing(poll_s=0.02, poll_max_s=0.05, quiet_s=0.05)
GPT_4O = llm_accounting.DEFAULT_PRICES["openai/gpt-4o"]


def _echo(body):
    content = body["messages"][-1]["content"]
    said = content if isinstance(content, str) else content[-1]["text"]
    return text(f"re: {said}")


def _client(tmp_path, model="openai/gpt-4o") -> llm.Client:
    return llm.Client(llm.Config(model=model, cache_dir=str(tmp_path / "cache")), sleep=lambda s: None)


def _ask_in_threads(client: llm.Client, questions: list[str]) -> dict[str, str]:
    answers: dict[str, str] = {}

    def ask(q: str) -> None:
        try:
            answers[q] = client.create(system="s", messages=[{"role": "user", "content": q}], sample=0).text
        except llm.LLMError as exc:
            answers[q] = f"error: {exc}"

    threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def _uploaded_lines(fake) -> list[dict]:
    return [json.loads(line) for f in fake.batches.files.values() if f.purpose == "batch"
            for line in f.data.decode().splitlines()]


def test_calls_of_many_threads_share_one_uploaded_batch_and_cost_half(fake_openai, tmp_path):
    fake_openai.handler = _echo
    fake_openai.batches.delay_s = 0.1
    client = _client(tmp_path)
    # quiet for long enough that six threads' calls meet in one batch on a busy machine
    with batch_lanes.Batchers(timing=llm_batches.Timing(poll_s=0.02, poll_max_s=0.05, quiet_s=0.5)) as batchers:
        answers = _ask_in_threads(client.batched(batchers), [f"q{i}" for i in range(6)])
    assert answers == {f"q{i}": f"re: q{i}" for i in range(6)}
    assert len(fake_openai.batches.created) == 1 and fake_openai.requests == []
    assert fake_openai.refusals == []
    lines = _uploaded_lines(fake_openai)
    assert {(x["method"], x["url"], x["body"]["model"]) for x in lines} == {("POST", "/v1/chat/completions", "gpt-4o")}
    assert all(x["body"]["messages"][0] == {"role": "system", "content": "s"} for x in lines)
    assert {auth for _, _, auth in fake_openai.batches.calls} == {"Bearer test-key-not-real"}
    totals = client.ledger.totals()
    assert totals["batched_calls"] == 6
    prompt = fake_openai.cache.count(lines[0]["body"])[0]  # the stand-in's own count, the same for each
    assert totals["input_tokens"] == 6 * prompt and totals["output_tokens"] == 6 * 20
    # half of gpt-4o's list price (the ledger keeps dollars to 6 places)
    assert totals["cost_usd"] == pytest.approx(6 * (prompt * GPT_4O.input + 20 * GPT_4O.output) / 1e6 / 2, abs=1e-6)


def test_an_endpoint_without_a_batch_api_gets_ordinary_calls_and_the_reason_is_logged(fake_openai, tmp_path, caplog):
    fake_openai.handler = _echo
    fake_openai.batches.served = False  # vLLM's and Ollama's servers: 404
    client = _client(tmp_path)
    with caplog.at_level(logging.WARNING, logger="iwcbench.pipeline.kits.llm.batches"):
        with batch_lanes.Batchers(timing=FAST) as batchers:
            batched = client.batched(batchers)
            first = _ask_in_threads(batched, ["a", "b", "c"])
            later = _ask_in_threads(batched, ["d"])
    assert {**first, **later} == {q: f"re: {q}" for q in "abcd"}
    assert len(fake_openai.requests) == 4 and fake_openai.batches.created == []
    # one try at the batch API, then the endpoint is known not to serve it
    assert [(m, p) for m, p, _ in fake_openai.batches.calls] == [("POST", "/v1/files")]
    reasons = [r.getMessage() for r in caplog.records]
    assert len(reasons) == 1 and "serves no batch API (HTTP 404 on /v1/files)" in reasons[0], reasons
    totals = client.ledger.totals()
    assert totals["batched_calls"] == 0 and totals["calls"] == 4


def test_each_model_goes_in_its_own_file(fake_openai, tmp_path):
    fake_openai.handler = _echo
    mini, full = _client(tmp_path, "openai/gpt-4o-mini"), _client(tmp_path, "openai/gpt-4o")
    with batch_lanes.Batchers(timing=FAST) as batchers:
        threads = [threading.Thread(target=_ask_in_threads, args=(c.batched(batchers), [f"{n}{i}" for i in range(3)]))
                   for c, n in ((mini, "m"), (full, "f"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    models = [{json.loads(x)["body"]["model"] for x in _lines(fake_openai, b)} for b in fake_openai.batches.created]
    assert all(len(m) == 1 for m in models) and set().union(*models) == {"gpt-4o", "gpt-4o-mini"}, models
    assert all(b.status == "completed" for b in fake_openai.batches.created)
    assert fake_openai.requests == []


def _lines(fake, batch) -> list[str]:
    return fake.batches.files[batch.input_file_id].data.decode().splitlines()


def test_failed_and_expired_items_go_again_on_their_own_refused_ones_fail(fake_openai, tmp_path):
    fake_openai.handler = _echo
    fake_openai.batches.fault = lambda cid, body: {"q1": "errored", "q2": "invalid"}.get(
        body["messages"][-1]["content"])
    client = _client(tmp_path)
    with batch_lanes.Batchers(timing=FAST) as batchers:
        answers = _ask_in_threads(client.batched(batchers), ["q0", "q1", "q2"])
    assert answers["q0"] == "re: q0" and answers["q1"] == "re: q1"
    assert answers["q2"].startswith("error: ") and "refused (HTTP 400)" in answers["q2"]
    assert [r.body["messages"][-1]["content"] for r in fake_openai.requests] == ["q1"]
    assert client.ledger.totals()["batched_calls"] == 1

    fake_openai.batches.expire = True
    with batch_lanes.Batchers(timing=FAST) as batchers:
        answers = _ask_in_threads(client.batched(batchers), ["e0", "e1"])
    assert answers == {"e0": "re: e0", "e1": "re: e1"}
    assert fake_openai.batches.created[-1].status == "expired"


def test_an_interrupted_batch_is_collected_by_the_next_sitting_not_sent_again(fake_openai, fake_anthropic, tmp_path):
    fake_openai.handler = fake_anthropic.handler = _echo
    fake_openai.batches.hold = True
    journal = llm_batches.MemoryJournal()
    gpt, claude = _client(tmp_path), _client(tmp_path, "claude-sonnet-test")
    first: dict[str, str] = {}
    with batch_lanes.Batchers(journal, FAST) as batchers:
        both = gpt.routed({"aesthetics": claude}).batched(batchers)
        done = both.create(system="s", messages=[{"role": "user", "content": "c"}], sample=0, purpose="aesthetics")
        asking = threading.Thread(target=lambda: first.update(_ask_in_threads(both, ["q"])))
        asking.start()
        deadline = time.monotonic() + 30
        while not fake_openai.batches.created and time.monotonic() < deadline:
            time.sleep(0.02)
        batchers.abandon()  # the run is interrupted while the batch is in progress
        asking.join()
    assert "still processing" in first["q"] and done.text == "re: c"
    endpoints = {e["endpoint"].split("@")[0] for e in journal.data.values()}
    assert endpoints == {"openai", "anthropic"} and len(journal.data) == 2

    fake_openai.batches.hold = False
    again = _client(tmp_path)
    with batch_lanes.Batchers(journal, FAST) as batchers:
        assert _ask_in_threads(again.batched(batchers), ["q"]) == {"q": "re: q"}
    assert len(fake_openai.batches.created) == 1 and fake_openai.requests == []
    assert all(e["collected"] for e in journal.data.values())


@pytest.mark.parametrize("line, kind, says", [
    ({"custom_id": "a", "error": None, "response": {"status_code": 200, "body": {
        "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "rate", "arguments": "{\"x\": 1}"}}]}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 10}}}}},
     "ok", None),
    ({"custom_id": "a", "error": None, "response": {"status_code": 400, "body": {
        "error": {"message": "bad image", "type": "invalid_request_error", "code": "invalid_image"}}}},
     llm.LLMError, "HTTP 400): invalid_image: bad image"),
    ({"custom_id": "a", "error": None, "response": {"status_code": 500, "body": {
        "error": {"message": "oops", "type": "server_error"}}}}, llm.ItemFailed, "HTTP 500 in the batch"),
    ({"custom_id": "a", "response": None, "error": {"code": "batch_expired", "message": "too late"}},
     llm.ItemFailed, "no answer in the batch (batch_expired: too late)"),
    ({"custom_id": "a", "error": None, "response": {"status_code": 200, "body": {"choices": []}}},
     llm.ItemFailed, "unreadable answer"),
])
def test_a_result_line_maps_to_a_reply_or_to_what_to_do_next(line, kind, says):
    what, value = llm_openai_batches.outcome(line, "openai/gpt-4o")
    if kind == "ok":
        assert what == "ok" and value.tool_uses == [{"type": "tool_use", "id": "call_1", "name": "rate", "input": {"x": 1}}]
        assert value.stop_reason == "tool_use" and value.model == "gpt-4o"
        assert value.usage == llm_accounting.Usage(input_tokens=40, output_tokens=5, cache_read_input_tokens=10)
    else:
        assert what == "raise" and type(value) is kind and says in str(value), value


def test_an_input_line_is_the_interactive_calls_body():
    target = llm_providers.resolve("openai/gpt-4o", "http://127.0.0.1:9/v1", "k")
    params = {"model": "gpt-4o-mini", "max_tokens": 50, "system": "s", "temperature": 0,
              "messages": [{"role": "user", "content": "hello"}]}
    line = llm_openai_batches.line("k1", params, target)
    assert line == {"custom_id": "k1", "method": "POST", "url": "/v1/chat/completions", "body": {
        "model": "gpt-4o-mini", "max_completion_tokens": 50, "temperature": 0,
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hello"}]}}


def test_a_lone_batcher_serves_its_own_endpoint_only(fake_openai, fake_anthropic, tmp_path):
    claude = _client(tmp_path, "claude-sonnet-test")
    with llm_batches.Batcher(claude, timing=FAST) as batcher:
        assert claude.batched(batcher).is_batched
        assert not _client(tmp_path).batched(batcher).is_batched
