"""Tokens and dollars per call, per app and per run; the cache makes re-runs free."""

from __future__ import annotations

import pytest
from fakes.anthropic_server import Message, text

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting

MSG = [{"role": "user", "content": "hi"}]


def test_cost_follows_the_price_table_and_sums_per_app_and_run(fake_anthropic):
    fake_anthropic.push(Message([{"type": "text", "text": "a"}], input_tokens=1_000_000, output_tokens=100_000),
                        Message([{"type": "text", "text": "b"}], input_tokens=2_000, output_tokens=1_000))
    run = llm_accounting.Ledger()
    client = llm.Client(llm.Config(model="claude-sonnet-test"), ledger=run)
    app1 = client.derive(ledger=run.scoped("apps/m/t1"))
    app2 = client.derive(ledger=run.scoped("apps/m/t2"))
    app1.create(system="s", messages=MSG, purpose="advocate")
    app2.create(system="s", messages=[{"role": "user", "content": "other"}], purpose="critic")
    # sonnet: $3 / M input, $15 / M output
    assert app1.ledger.totals()["cost_usd"] == pytest.approx(3.0 + 1.5)
    assert app2.ledger.totals()["cost_usd"] == pytest.approx(0.006 + 0.015)
    total = run.totals()
    assert total["calls"] == 2
    assert total["input_tokens"] == 1_002_000
    assert total["cost_usd"] == pytest.approx(4.521)
    assert total["by_purpose"] == {"advocate": 1, "critic": 1}


def test_price_table_can_be_overridden_and_unknown_models_have_no_cost(fake_anthropic):
    fake_anthropic.push(Message([{"type": "text", "text": "a"}], input_tokens=1_000_000, output_tokens=0),
                        text("b"))
    custom = llm.Client(llm.Config(model="house-model-1"), prices={"house": llm_accounting.Price(1, 2, 0, 0)})
    custom.create(system="s", messages=MSG)
    assert custom.ledger.totals()["cost_usd"] == pytest.approx(1.0)
    unknown = llm.Client(llm.Config(model="mystery-model"))
    unknown.create(system="s", messages=MSG)
    assert unknown.ledger.totals()["cost_usd"] is None
    assert unknown.ledger.totals()["input_tokens"] == 100


def test_deterministic_calls_are_answered_from_the_cache(fake_anthropic, tmp_path):
    fake_anthropic.push(text("first"))
    config = llm.Config(model="claude-sonnet-test", temperature=0.0, cache_dir=str(tmp_path))
    llm.Client(config).create(system="s", messages=MSG)
    again = llm.Client(config)  # a new process would see the same files
    reply = again.create(system="s", messages=MSG)
    assert reply.text == "first" and reply.cached
    assert len(fake_anthropic.requests) == 1
    assert again.ledger.totals()["cache_hits"] == 1
    assert again.ledger.totals()["cost_usd"] == 0


def test_a_changed_parameter_misses_the_cache(fake_anthropic, tmp_path):
    fake_anthropic.push(text("a"), text("b"))
    config = llm.Config(model="claude-sonnet-test", temperature=0.0, cache_dir=str(tmp_path))
    llm.Client(config).create(system="s", messages=MSG)
    reply = llm.Client(config).create(system="s", messages=MSG, max_tokens=10)
    assert reply.text == "b" and not reply.cached


def test_sampling_is_cached_only_under_a_sample_index(fake_anthropic, tmp_path):
    fake_anthropic.handler = lambda body: text("sampled")
    client = llm.Client(llm.Config(model="claude-sonnet-test", temperature=1.0, cache_dir=str(tmp_path)))
    client.create(system="s", messages=MSG)
    client.create(system="s", messages=MSG)
    assert len(fake_anthropic.requests) == 2  # unseeded sampling: never cached
    for sample in range(3):
        client.create(system="s", messages=MSG, sample=sample)
    assert len(fake_anthropic.requests) == 5  # three distinct samples
    for sample in range(3):
        assert client.create(system="s", messages=MSG, sample=sample).cached
    assert len(fake_anthropic.requests) == 5


def test_a_batched_call_pays_its_prices_batch_share_and_list_price_without_one():
    usage = llm_accounting.Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_input_tokens=1_000_000)
    gpt, grok = llm_accounting.DEFAULT_PRICES["openai/gpt-4o"], llm_accounting.DEFAULT_PRICES["grok/grok-4"]
    assert usage.cost(gpt, batched=True) == pytest.approx((2.50 + 1.0 + 1.25) / 2)
    assert usage.cost(grok, batched=True) == usage.cost(grok) == pytest.approx(3.0 + 1.5 + 0.75)
