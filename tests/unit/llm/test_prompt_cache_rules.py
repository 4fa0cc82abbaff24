"""The fake Messages API's prompt cache (tests/fakes/anthropic_cache.py) keeps Anthropic's
documented rules, at their edges: the 20-block look-back, the minimum cacheable length
per model, markers that are not content, at most 4 breakpoints, and tool_choice keeping
tools and system but not the messages. The benchmark's costs and the UI-test agent's
cache figures rest on it."""

from __future__ import annotations

import pytest
from fakes import anthropic_cache

MARK = {"type": "ephemeral"}


def _block(tokens: int, name: str, mark: bool = False) -> dict:
    body = f"{name}:".ljust(4 * tokens, ".")  # 4 characters a token
    return {"type": "text", "text": body, **({"cache_control": MARK} if mark else {})}


def _body(blocks: list[dict], model: str = "claude-sonnet-4-5", **extra) -> dict:
    return {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": blocks}], **extra}


def _prefix(tokens: int = 1200) -> list[dict]:
    return [_block(tokens, "opening")]


@pytest.mark.parametrize("later, read", [(20, True), (21, False)])
def test_an_entry_is_found_up_to_20_blocks_before_a_breakpoint_and_no_further(later, read):
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    first = _prefix()
    first[-1] = {**first[-1], "cache_control": MARK}
    assert cache.count(_body(first)).cache_creation_input_tokens == 1200
    more = [_block(1, f"b{i}") for i in range(later)]
    more[-1]["cache_control"] = MARK
    counted = cache.count(_body([_block(1200, "opening"), *more]))
    assert counted.cache_read_input_tokens == (1200 if read else 0)
    assert counted.cache_creation_input_tokens == (later if read else 1200 + later)


@pytest.mark.parametrize("model, minimum", [("claude-sonnet-4-5", 1024), ("claude-opus-4-5", 4096),
                                            ("claude-haiku-4-5", 4096), ("claude-3-5-haiku-20241022", 2048),
                                            ("claude-3-haiku-20240307", 2048)])
def test_a_prefix_below_the_models_minimum_is_not_written_and_one_at_it_is(model, minimum):
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    short = cache.count(_body([_block(minimum - 1, "short", mark=True)], model))
    assert short.cache_creation_input_tokens == 0 and short.input_tokens == minimum - 1
    enough = cache.count(_body([_block(minimum, "enough", mark=True)], model))
    assert enough.cache_creation_input_tokens == minimum
    again = cache.count(_body([_block(minimum, "enough", mark=True)], model))
    assert again.cache_read_input_tokens == minimum


def test_a_marker_is_not_content_it_may_move_on():
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    cache.count(_body([_block(1200, "opening", mark=True)]))
    moved = cache.count(_body([_block(1200, "opening"), _block(30, "next", mark=True)]))
    assert moved.cache_read_input_tokens == 1200 and moved.cache_creation_input_tokens == 30


def test_one_changed_block_loses_everything_after_it():
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    cache.count(_body([_block(1200, "opening"), _block(30, "turn", mark=True)]))
    changed = cache.count(_body([_block(1200, "opening"), _block(30, "TURN"), _block(5, "new", mark=True)]))
    assert changed.cache_read_input_tokens == 0


def test_more_than_four_breakpoints_are_refused():
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    with pytest.raises(anthropic_cache.CacheRuleBroken):
        cache.count(_body([_block(300, f"b{i}", mark=True) for i in range(5)]))


def test_another_tool_choice_keeps_tools_and_system_but_not_the_messages():
    cache = anthropic_cache.PromptCache(clock=lambda: 0.0)
    tool = {"name": "click", "description": "x" * 4400, "input_schema": {"type": "object"}}
    system = [{"type": "text", "text": "be a tester", "cache_control": MARK}]
    body = _body([_block(1200, "page", mark=True)], tools=[tool], system=system, tool_choice={"type": "any"})
    first = cache.count(body)
    forced = cache.count({**body, "tool_choice": {"type": "tool", "name": "click"}})
    top = first.cache_creation_input_tokens - 1200
    assert top > 1000 and forced.cache_read_input_tokens == top
    assert cache.count(body).cache_read_input_tokens == top + 1200
