"""Prompt-cache breakpoints: where a request's ``cache_control`` marks go.

The Messages API caches a prompt's prefix — tools, then system, then messages — up to a
block marked ``cache_control``. A later request starting with the same prefix reads it at
a tenth of the input price; writing it costs 1.25× the input price for a 5-minute entry,
2× for a 1-hour one; a hit renews the entry. At most 4 marks per request; a prefix
shorter than the model's minimum (1,024–4,096 tokens) is silently not cached, which
costs nothing.

``mark`` places up to three marks on a request whose prompt will be sent again (the
caller's ``reuse``: the next turn of a conversation, another sample of the same judge):

1. the system prompt — tools + system, the same for every call with these instructions;
2. the last block of the previous user turn — what the previous call of this
   conversation wrote, read back explicitly (the API's own look-back reaches only 20
   blocks behind a mark, fewer than one turn of many parallel tool calls can add);
3. the last block of the last message — the whole prompt, written for the next call;
   or, when the caller says the message's last ``tail`` blocks will not be sent again
   (the UI-test agent's screenshot, which rides with one call only), the last block
   before them: an entry ending in a block the next call changes would never be read,
   and the blocks after the mark are paid once as plain input instead of written to
   the cache and thrown away. A conversation that appends only, and sends its tail
   with one call, has mark 2 of each call fall exactly where mark 3 of the call before
   wrote: the read needs no look-back at all.

It changes no content, only its packaging: ``unpacked(mark(p)) == unpacked(p)`` (a
string content becomes one text block, which the API reads identically). It must not
decide whether a prompt is reused (the caller knows) and must not mutate its input.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping

TTL = Literal["5m", "1h"]
MAX_BREAKPOINTS = 4


def _control(ttl: TTL) -> dict[str, str]:
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(b) for b in content or ()]


def _marked_last(message: Mapping[str, Any], ttl: TTL, tail: int = 0) -> dict[str, Any] | None:
    """The message with its last markable block before its last ``tail`` blocks marked
    (thinking blocks cannot be)."""
    blocks = _blocks(message.get("content"))
    for i in range(len(blocks) - 1 - max(0, tail), -1, -1):
        if blocks[i].get("type") not in ("thinking", "redacted_thinking"):
            blocks[i] = {**blocks[i], "cache_control": _control(ttl)}
            return {**message, "content": blocks}
    return None


def mark(params: Mapping[str, Any], ttl: TTL = "5m", tail: int = 0) -> dict[str, Any]:
    """A copy of the request ``params`` with its breakpoints (see the module docstring)."""
    out = dict(params)
    system = params.get("system")
    if isinstance(system, str) and system:
        out["system"] = [{"type": "text", "text": system, "cache_control": _control(ttl)}]
    messages = [dict(m) for m in params.get("messages") or ()]
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    # the previous user turn first, then the last message: at most 2 marks here, 3 in all
    targets = ([users[-2]] if len(users) >= 2 else []) + ([len(messages) - 1] if messages else [])
    for i in dict.fromkeys(targets):
        marked = _marked_last(messages[i], ttl, tail if i == len(messages) - 1 else 0)
        if marked is not None:
            messages[i] = marked
    out["messages"] = messages
    return out


def unpacked(params: Mapping[str, Any]) -> dict[str, Any]:
    """The request without its packaging: no ``cache_control``, every string content and
    string system prompt as the one text block the API reads it as."""
    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "cache_control"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    out = strip(dict(params))
    if isinstance(out.get("system"), str):
        out["system"] = _blocks(out["system"]) if out["system"] else []
    out["messages"] = [{**m, "content": _blocks(m.get("content"))} for m in out.get("messages") or ()]
    return out


def breakpoints(params: Mapping[str, Any]) -> int:
    """How many blocks of a request carry ``cache_control``."""
    count = 0

    def walk(node: Any) -> None:
        nonlocal count
        if isinstance(node, dict):
            count += "cache_control" in node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk({k: params.get(k) for k in ("tools", "system", "messages")})
    return count
