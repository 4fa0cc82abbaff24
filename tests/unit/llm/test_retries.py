"""One retry policy: transient trouble is retried with bounded backoff, the rest is not."""

from __future__ import annotations

import pytest
from fakes.anthropic_server import Fault, text

from iwcbench.pipeline.kits import llm

MSG = [{"role": "user", "content": "hi"}]


def _client(fake, sleeps, **kw):
    config = llm.Config(model="claude-sonnet-test", base_url=fake.url, **kw)
    return llm.Client(config, sleep=sleeps.append)


def test_rate_limit_waits_as_told_by_retry_after(fake_anthropic):
    sleeps: list[float] = []
    fake_anthropic.push(Fault.rate_limit(retry_after=7), text("done"))
    reply = _client(fake_anthropic, sleeps).create(system="s", messages=MSG)
    assert reply.text == "done"
    assert sleeps == [7.0]
    assert len(fake_anthropic.requests) == 2  # the SDK's own retries are off


def test_server_errors_back_off_exponentially_then_succeed(fake_anthropic):
    sleeps: list[float] = []
    fake_anthropic.push(Fault.server_error(500), Fault.server_error(529), Fault.server_error(503), text("ok"))
    client = _client(fake_anthropic, sleeps, backoff_initial_s=0.5, backoff_max_s=1.5)
    assert client.create(system="s", messages=MSG).text == "ok"
    assert sleeps == [0.5, 1.0, 1.5]
    assert client.ledger.totals()["requests"] == 4


def test_attempts_are_bounded_then_an_llm_error_names_the_cause(fake_anthropic):
    sleeps: list[float] = []
    fake_anthropic.push(*[Fault.server_error()] * 10)
    with pytest.raises(llm.LLMError, match="HTTP 500 after 3 attempt"):
        _client(fake_anthropic, sleeps, max_attempts=3).create(system="s", messages=MSG)
    assert len(fake_anthropic.requests) == 3


def test_bad_request_is_not_retried(fake_anthropic):
    fake_anthropic.push(Fault.bad_request("messages: too long"), text("never"))
    with pytest.raises(llm.LLMError, match="HTTP 400"):
        _client(fake_anthropic, []).create(system="s", messages=MSG)
    assert len(fake_anthropic.requests) == 1


def test_timeout_is_retried(fake_anthropic):
    fake_anthropic.push(Fault.slow(1.5), text("fast enough"))
    client = _client(fake_anthropic, [], timeout_s=0.3)
    assert client.create(system="s", messages=MSG).text == "fast enough"
    assert len(fake_anthropic.requests) == 2


def test_malformed_body_is_retried(fake_anthropic):
    fake_anthropic.push(Fault.malformed(), text("valid"))
    assert _client(fake_anthropic, []).create(system="s", messages=MSG).text == "valid"
    assert len(fake_anthropic.requests) == 2
