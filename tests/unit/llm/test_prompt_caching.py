"""Prompt caching: a prompt the caller will send again is marked for the API's cache, the
next request reads it back, and the ledger prices reads and writes as the API bills them."""

from __future__ import annotations

import pytest
from fakes.anthropic_server import text

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, caching as llm_caching

LONG = "The page shows a list of tasks with a checkbox each. " * 120  # ~1,600 tokens: cacheable


def _client(**config) -> llm.Client:
    return llm.Client(llm.Config(model="claude-sonnet-test", **config), sleep=lambda s: None)


def _turn(messages: list, reply: llm.Reply, user: str) -> list:
    return [*messages, reply.as_message(), {"role": "user", "content": [llm.text_block(user)]}]


def test_marks_go_on_the_system_the_previous_turn_and_the_end_and_change_no_content():
    params = {"model": "m", "system": "be a tester",
              "messages": [{"role": "user", "content": "first page"},
                           {"role": "assistant", "content": [{"type": "text", "text": "clicked"}]},
                           {"role": "user", "content": [llm.text_block("second page"), llm.text_block("hint")]}]}
    marked = llm_caching.mark(params)
    assert llm_caching.breakpoints(marked) == 3
    assert marked["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert marked["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in marked["messages"][2]["content"][0]
    assert marked["messages"][2]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in str(params), "the caller's messages are not touched"
    assert llm_caching.unpacked(marked) == llm_caching.unpacked(params)
    assert llm_caching.mark(params, "1h")["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_a_conversation_reads_back_what_its_previous_turn_wrote(fake_anthropic):
    fake_anthropic.handler = lambda body: text("next")
    client = _client()
    messages = [{"role": "user", "content": [llm.text_block(LONG)]}]
    first = client.create(system="be a tester", messages=messages, reuse=True, purpose="explore.step")
    messages = _turn(messages, first, "the page changed a little")
    second = client.create(system="be a tester", messages=messages, reuse=True, purpose="explore.step")
    assert first.usage.cache_read_input_tokens == 0 and first.usage.cache_creation_input_tokens > 1000
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens + first.usage.input_tokens
    assert second.usage.cache_creation_input_tokens < 30  # only the new turn is written
    totals = client.ledger.totals()
    assert totals["cache_read_input_tokens"] == second.usage.cache_read_input_tokens
    assert totals["purposes"]["explore.step"]["calls"] == 2


def test_reads_cost_a_tenth_and_writes_a_quarter_more(fake_anthropic):
    fake_anthropic.handler = lambda body: text("ok", output_tokens=0)
    client = _client()
    reply = client.create(system="s", messages=[{"role": "user", "content": LONG}], reuse=True)
    again = client.create(system="s", messages=[{"role": "user", "content": LONG}], reuse=True)
    sonnet = llm_accounting.DEFAULT_PRICES["sonnet"]
    u1, u2 = reply.usage, again.usage
    assert client.ledger.entries[0].cost_usd == pytest.approx(
        (u1.input_tokens * sonnet.input + u1.cache_creation_input_tokens * sonnet.cache_write) / 1e6)
    assert client.ledger.entries[1].cost_usd == pytest.approx(
        (u2.input_tokens * sonnet.input + u2.cache_read_input_tokens * sonnet.cache_read) / 1e6)
    assert client.ledger.entries[1].cost_usd < client.ledger.entries[0].cost_usd / 5


def test_one_off_prompts_and_caching_off_carry_no_breakpoint(fake_anthropic):
    fake_anthropic.handler = lambda body: text("ok")
    _client().create(system="s", messages=[{"role": "user", "content": LONG}])
    _client(prompt_caching=False).create(system="s", messages=[{"role": "user", "content": LONG}], reuse=True)
    assert [llm_caching.breakpoints(r.body) for r in fake_anthropic.requests] == [0, 0]


def test_a_prefix_below_the_models_minimum_is_not_cached(fake_anthropic):
    fake_anthropic.handler = lambda body: text("ok")
    client = llm.Client(llm.Config(model="claude-opus-4-5-test"))  # caches 4,096 tokens and more
    for _ in range(2):
        reply = client.create(system="s", messages=[{"role": "user", "content": LONG}], reuse=True)
    assert reply.usage.cache_read_input_tokens == 0 and reply.usage.cache_creation_input_tokens == 0


def test_the_response_cache_answers_whether_or_not_the_call_was_marked(fake_anthropic, tmp_path):
    fake_anthropic.handler = lambda body: text("kept")
    messages = [{"role": "user", "content": LONG}]
    _client(cache_dir=str(tmp_path), prompt_caching=False).create(system="s", messages=messages, sample=0)
    again = _client(cache_dir=str(tmp_path)).create(system="s", messages=messages, sample=0, reuse=True)
    assert again.cached and again.text == "kept"
    assert len(fake_anthropic.requests) == 1


def _screenshot() -> bytes:
    import io

    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (1024, 640), "white").save(out, format="PNG")  # 873 tokens by the API's estimate
    return out.getvalue()


@pytest.mark.parametrize("changing_tail", [0, 1])
def test_a_step_whose_screenshot_becomes_text_next_turn_leaves_a_prefix_the_next_step_reads_whole(
        fake_anthropic, changing_tail):
    """The UI-test agent's conversation: each turn ends with a screenshot that the next
    turn replaces by a line of text. With the entry ending before the screenshot
    (``changing_tail=1``), each step reads back every token the step before wrote and
    no screenshot is ever written to the cache; with the mark on the screenshot itself
    (the old packaging), each step's entry is never read and the screenshot is written."""
    fake_anthropic.handler = lambda body: text("click")
    client = _client()
    messages: list = [{"role": "user", "content": [llm.text_block(LONG)]}]
    replies = []
    for step in range(4):
        if step:
            for block_list in (m["content"] for m in messages if m["role"] == "user"):
                block_list[:] = [llm.text_block("(screenshot omitted)") if b["type"] == "image" else b
                                 for b in block_list]
            messages = _turn(messages, replies[-1], f"page after step {step}")
        messages[-1]["content"] += [llm.text_block(f"Screenshot after step {step}:"), llm.image_block(_screenshot())]
        replies.append(client.create(system="be a tester", messages=messages, reuse=True,
                                     changing_tail=changing_tail))
    usage = [r.usage for r in replies]
    if changing_tail:
        for before, after in zip(usage, usage[1:]):
            assert after.cache_read_input_tokens == before.cache_read_input_tokens + before.cache_creation_input_tokens
            assert after.cache_creation_input_tokens < 40  # the new turn's text, never a screenshot
            assert after.input_tokens >= 873  # the screenshot, sent once as plain input
    else:
        for before, after in zip(usage, usage[1:]):
            assert after.cache_read_input_tokens < before.cache_read_input_tokens + before.cache_creation_input_tokens
            assert after.cache_creation_input_tokens > 873  # the screenshot written, then thrown away
