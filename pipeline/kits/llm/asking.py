"""Ask a model for one tool's answer, the way every stage does: force the tool where the
API allows it (kits/llm/wire), read the last call of it, check it with the caller's
rule, and when the answer is missing or unusable, say what is wrong and ask again, a
bounded number of times. The result says why there is no answer in words a report can
show ("answered in prose instead of calling rate_appearance", "rating: must be 1-5"),
never by raising: a model's bad answer leaves a score unscored, it never fails a run.

A wrong tool call is answered with an error ``tool_result`` (both APIs require every
tool call to be answered before the next turn); a reply without one gets a plain line.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Sequence

from iwcbench.pipeline.kits.llm.client import Client
from iwcbench.pipeline.kits.llm.replies import LLMError, Reply, text_block, tool_result_block

Check = Callable[[dict[str, Any]], "str | None"]  # the problem with an answer, None when usable


@dataclasses.dataclass(frozen=True)
class Answer:
    value: dict[str, Any] | None  # the tool's input, once the check accepted it
    problem: str  # why there is none, the last answer's problem ("" when there is one)
    calls: int  # requests sent (or answered from the cache)
    replies: tuple[Reply, ...] = ()
    failed: bool = False  # the model could not be called at all (LLMError), not a bad answer

    @property
    def ok(self) -> bool:
        return self.value is not None


def ask_tool(client: Client, *, system: str, content: str | Sequence[Mapping[str, Any]] | None = None,
             messages: Sequence[Mapping[str, Any]] | None = None, tool: Mapping[str, Any], purpose: str,
             check: Check | None = None, retries: int = 2, sample: int | None = 0,
             max_tokens: int | None = None, reuse: bool = False) -> Answer:
    """``tool``'s input from ``client`` for one user turn (``content``) or a conversation
    so far (``messages``), asked again up to ``retries`` times while it is missing or
    ``check`` names a problem with it."""
    name = str(tool["name"])
    turns: list[dict[str, Any]] = ([dict(m) for m in messages] if messages is not None
                                   else [{"role": "user", "content": _content(content)}])
    forced = client.forcing(name, purpose)
    got: list[Reply] = []
    problem = "no answer"
    for _ in range(retries + 1):
        try:
            reply = client.create(system=system, messages=turns, tools=[tool], tool_choice=forced, sample=sample,
                                  purpose=purpose, max_tokens=max_tokens, reuse=reuse)
        except LLMError as exc:
            return Answer(None, f"the model could not be called: {exc}", len(got) + 1, tuple(got), failed=True)
        got.append(reply)
        uses = [u for u in reply.tool_uses if u.get("name") == name]
        value = uses[-1].get("input") if uses else None
        if not uses:
            problem = _no_call(reply, name)
        elif not isinstance(value, dict):
            problem = f"the {name} call's arguments are not an object"
        else:
            problem = (check(value) if check is not None else None) or ""
            if not problem:
                return Answer(value, "", len(got), tuple(got))
        turns = [*turns, reply.as_message(), _correction(reply, name, problem)]
    return Answer(None, problem, len(got), tuple(got))


def _content(content: str | Sequence[Mapping[str, Any]] | None) -> str | list[dict[str, Any]]:
    if content is None:
        raise ValueError("ask_tool needs content or messages")
    return content if isinstance(content, str) else [dict(b) for b in content]


def _no_call(reply: Reply, name: str) -> str:
    if reply.tool_uses:
        called = ", ".join(sorted({str(u.get("name")) for u in reply.tool_uses}))
        return f"called {called} instead of {name}"
    if reply.text.strip():
        return f"answered in prose instead of calling {name}"
    return f"gave an empty answer (stop reason {reply.stop_reason or 'none'}) instead of calling {name}"


def _correction(reply: Reply, name: str, problem: str) -> dict[str, Any]:
    text = f"That answer cannot be used ({problem}). Call {name} again, correctly."
    uses = reply.tool_uses
    if not uses:
        return {"role": "user", "content": [text_block(text)]}
    return {"role": "user", "content": [tool_result_block(str(u.get("id")), text, is_error=True) for u in uses]}
