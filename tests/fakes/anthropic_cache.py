"""The fake Messages API's prompt cache and token counts, following the API's published rules.

Tokens are estimated, not counted by a tokenizer: text (and tool definitions, as JSON) at
4 characters a token, images at width × height / 750 (Anthropic's published estimate).
The cache follows the rules of Anthropic's prompt caching:

- the prompt is one sequence of blocks in the order tools → system → messages; a
  ``cache_control`` breakpoint caches the prefix up to and including its block, and a
  later request reads it only if every block before the breakpoint is byte-identical
  (the marker itself is not part of the content);
- at most 4 breakpoints (more is HTTP 400, as the API answers);
- a prefix shorter than the model's minimum cacheable length is not cached (no error);
- a request reads the longest cached prefix ending at a breakpoint or at one of the 20
  blocks before it; a hit refreshes the entry's lifetime (5 minutes, or 1 hour with
  ``ttl: "1h"``); a longer TTL may not follow a shorter one;
- changing ``tool_choice`` or the thinking setting keeps tools + system cached but not
  the messages (the API's invalidation table); another model caches apart.

``usage`` then reports ``cache_read_input_tokens`` (the prefix read), ``cache_creation_input_tokens``
(the tokens written after it, up to the last breakpoint that is long enough, split by
TTL in ``cache_creation``) and ``input_tokens`` (the rest). Nothing here talks to the API.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import threading
import time
from typing import Any, Callable

from PIL import Image

MAX_BREAKPOINTS = 4
LOOKBACK = 20  # blocks before a breakpoint where an earlier entry is still found
TTL_S = {"5m": 300.0, "1h": 3600.0}

# Minimum cacheable prompt length per model family (tokens); the first family found in
# the model id applies. Test model ids ("claude-test-judge") fall to the default. The
# Claude 3 family names its version first ("claude-3-5-haiku-20241022").
MIN_CACHEABLE = (("opus-4-5", 4096), ("opus-4-6", 4096), ("haiku-4-5", 4096), ("sonnet-4-6", 2048),
                 ("haiku-3", 2048), ("3-5-haiku", 2048), ("3-haiku", 2048), ("", 1024))


class CacheRuleBroken(ValueError):
    """The request breaks a prompt-caching rule; the API answers HTTP 400."""


def min_cacheable(model: str) -> int:
    return next(n for family, n in MIN_CACHEABLE if family in model)


_image_sizes: dict[str, int] = {}


def image_tokens(block: dict[str, Any]) -> int:
    data = (block.get("source") or {}).get("data", "")
    digest = hashlib.sha256(data.encode()).hexdigest()
    if digest not in _image_sizes:
        try:
            with Image.open(io.BytesIO(base64.b64decode(data))) as img:
                _image_sizes[digest] = max(1, img.width * img.height // 750)
        except Exception:  # noqa: BLE001 - a test's placeholder bytes: a small picture
            _image_sizes[digest] = 85
    return _image_sizes[digest]


def _text_tokens(text: str) -> int:
    return -(-len(text) // 4)


def block_tokens(block: Any) -> int:
    if isinstance(block, str):
        return _text_tokens(block)
    kind = block.get("type")
    if kind == "image":
        return image_tokens(block)
    if kind == "text":
        return _text_tokens(block.get("text", ""))
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return 8 + sum(block_tokens(b) for b in content)
        return 8 + _text_tokens(str(content))
    body = {k: v for k, v in block.items() if k != "cache_control"}
    return _text_tokens(json.dumps(body, sort_keys=True))


@dataclasses.dataclass(frozen=True)
class Block:
    tokens: int
    fingerprint: str  # the block without its cache_control
    ttl: str | None  # the breakpoint's TTL, None when the block is not a breakpoint


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def blocks_of(body: dict[str, Any]) -> list[Block]:
    """The prompt as the cache sees it: tools, then system, then every message block."""
    out: list[Block] = []

    def add(block: Any, level: str) -> None:
        mark = block.get("cache_control") if isinstance(block, dict) else None
        ttl = (mark.get("ttl") or "5m") if isinstance(mark, dict) else None
        # the block as sent, key order included: a prefix is read back only if every block
        # before the breakpoint is byte-identical; the cache_control marker is not content
        fingerprint = json.dumps([level, _strip(block)], ensure_ascii=False)
        out.append(Block(block_tokens(block), fingerprint, ttl))

    for tool in body.get("tools") or ():
        add(tool, "tools")
    system = body.get("system")
    if isinstance(system, str) and system:
        add({"type": "text", "text": system}, "system")
    elif isinstance(system, list):
        for block in system:
            add(block, "system")
    # tool_choice and thinking are part of what the message blocks are cached under
    mode = json.dumps([body.get("tool_choice"), body.get("thinking")], sort_keys=True)
    for message in body.get("messages") or ():
        content = message.get("content")
        items = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())
        for block in items:
            add(block, f"messages:{message.get('role')}:{mode}")
    return out


@dataclasses.dataclass(frozen=True)
class Counted:
    input_tokens: int
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0

    def usage(self, output_tokens: int) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": output_tokens,
                "cache_read_input_tokens": self.cache_read_input_tokens,
                "cache_creation_input_tokens": self.cache_creation_input_tokens,
                "cache_creation": {"ephemeral_5m_input_tokens": self.ephemeral_5m_input_tokens,
                                   "ephemeral_1h_input_tokens": self.ephemeral_1h_input_tokens}}


def prompt_tokens(body: dict[str, Any]) -> int:
    """Every input token of the request, cached or not."""
    return sum(b.tokens for b in blocks_of(body))


class PromptCache:
    """Cache entries keyed by the hash of a prefix; ``clock`` is injectable."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._entries: dict[str, tuple[float, str]] = {}  # prefix hash → (expires at, ttl)
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def count(self, body: dict[str, Any]) -> Counted:
        """Count one request's tokens, read what is cached and write what it marks."""
        blocks = blocks_of(body)
        marks = [i for i, b in enumerate(blocks) if b.ttl is not None]
        if len(marks) > MAX_BREAKPOINTS:
            raise CacheRuleBroken(f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be "
                                  f"provided. Found {len(marks)}.")
        ttls = [blocks[i].ttl for i in marks]
        if any(TTL_S[a] < TTL_S[b] for a, b in zip(ttls, ttls[1:])):  # type: ignore[index]
            raise CacheRuleBroken("a cache_control block with ttl='1h' cannot come after one with ttl='5m'")
        hashes, cumulative = [], []
        h, total = hashlib.sha256(str(body.get("model")).encode()), 0
        for b in blocks:
            h = h.copy()
            h.update(b.fingerprint.encode())
            hashes.append(h.hexdigest())
            total += b.tokens
            cumulative.append(total)
        if not marks:
            return Counted(input_tokens=total)
        now = self.clock()
        minimum = min_cacheable(str(body.get("model", "")))
        with self._lock:
            hit = -1
            for mark in marks:
                for pos in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                    entry = self._entries.get(hashes[pos])
                    if entry is not None and entry[0] > now:
                        hit = max(hit, pos)
                        break
            if hit >= 0:
                self._entries[hashes[hit]] = (now + TTL_S[self._entries[hashes[hit]][1]],
                                              self._entries[hashes[hit]][1])
            read = cumulative[hit] if hit >= 0 else 0
            written, by_ttl, start = 0, {"5m": 0, "1h": 0}, read
            for mark in marks:
                if mark <= hit or cumulative[mark] < minimum:
                    continue
                ttl = blocks[mark].ttl or "5m"
                self._entries[hashes[mark]] = (now + TTL_S[ttl], ttl)
                by_ttl[ttl] += cumulative[mark] - start
                written += cumulative[mark] - start
                start = cumulative[mark]
        return Counted(input_tokens=total - read - written, cache_read_input_tokens=read,
                       cache_creation_input_tokens=written, ephemeral_5m_input_tokens=by_ttl["5m"],
                       ephemeral_1h_input_tokens=by_ttl["1h"])
