"""The OpenAI Chat Completions adapter behind ``llm.Client``: one request in the
kit's own shape (the Messages API's: a system prompt, user and assistant turns of text,
image, tool-use and tool-result blocks, tools with an input schema) sent through the
official ``openai`` client, and its answer back in that shape.

Translation, both ways:

- the system prompt is the first message (``role: system``);
- an assistant turn's ``tool_use`` blocks are its ``tool_calls`` (arguments as JSON);
- a user turn's ``tool_result`` blocks become ``role: tool`` messages, one per call,
  right after the assistant turn that made the calls; a picture inside a tool result
  (a tool message holds text only) moves to the user message that follows them;
- pictures are ``image_url`` parts with a ``data:`` URL;
- ``tool_choice`` ``{"type": "tool", "name": X}`` forces function X, ``any`` is
  ``required``; ``effort`` is ``reasoning_effort``;
- the reply's ``tool_calls`` come back as ``tool_use`` blocks, ``finish_reason`` as the
  Messages API's ``stop_reason``, and ``usage`` with its cached prompt tokens
  (``prompt_tokens_details.cached_tokens``) as reads from the prompt cache.

Prompt caching is the server's own (OpenAI caches long prompt prefixes by itself):
nothing is marked, what it read back is reported. This module must not retry (kits/llm
holds the one retry policy), cache replies, or know what a stage asks.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from iwcbench.pipeline.kits.llm import accounting as llm_accounting, providers as llm_providers, replies, wire

_STOP = {"tool_calls": "tool_use", "function_call": "tool_use", "stop": "end_turn", "length": "max_tokens",
         "content_filter": "refusal"}


def sdk() -> Any:
    """The ``openai`` package, imported when first needed (it takes a second to import)."""
    import openai
    return openai


# --------------------------------------------------------------------------- request

def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(b) for b in content or ()]


def _image_part(block: Mapping[str, Any]) -> dict[str, Any]:
    source = block.get("source") or {}
    url = source.get("url") if source.get("type") == "url" else \
        f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    return {"type": "image_url", "image_url": {"url": url}}


def _user_content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """One text part as a plain string (what every compatible server reads), else parts."""
    if len(parts) == 1 and parts[0]["type"] == "text":
        return parts[0]["text"]
    return parts


def _tool_message(block: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the ``tool`` message answering one call, the pictures it held)."""
    texts, images = [], []
    for part in _blocks(block.get("content")):
        if part.get("type") == "image":
            images.append(_image_part(part))
        elif part.get("type") == "text":
            texts.append(part["text"])
    text = "\n".join(texts) or "(no output)"
    if block.get("is_error"):
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": block["tool_use_id"], "content": text}, images


def messages(system: Any, turns: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages (see the module docstring)."""
    if isinstance(system, list):
        system = "\n\n".join(b.get("text", "") for b in system)
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for turn in turns:
        blocks = _blocks(turn.get("content"))
        if turn.get("role") == "assistant":
            text = "\n".join(b["text"] for b in blocks if b.get("type") == "text")
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False)}}
                     for b in blocks if b.get("type") == "tool_use"]
            # an empty string, not null, with tool calls: every server takes it (llama.cpp's
            # refuses null), and OpenAI's API documents both
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = calls
            out.append(message)
            continue
        parts: list[dict[str, Any]] = []
        carried: list[dict[str, Any]] = []
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result":
                message, images = _tool_message(block)
                out.append(message)
                carried.extend(images)
            elif kind == "image":
                parts.append(_image_part(block))
            elif kind == "text":
                parts.append({"type": "text", "text": block["text"]})
        if carried:
            parts = [{"type": "text", "text": "Pictures returned by the tool calls above:"}, *carried, *parts]
        if parts:
            out.append({"role": "user", "content": _user_content(parts)})
    return out


def _tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool["name"], "parameters": tool.get("input_schema") or {"type": "object"}}
    if tool.get("description"):
        function["description"] = tool["description"]
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def _tool_choice(choice: Mapping[str, Any]) -> Any:
    kind = choice.get("type")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice["name"]}}
    return {"any": "required", "auto": "auto", "none": "none"}.get(str(kind), "auto")


def request(params: Mapping[str, Any], target: llm_providers.Target) -> dict[str, Any]:
    """The Chat Completions body for the kit's request ``params`` (no cache marks)."""
    body: dict[str, Any] = {"model": target.model,
                            "messages": messages(params.get("system"), list(params.get("messages") or ())),
                            target.provider.max_tokens_field: params["max_tokens"]}
    if params.get("tools"):
        body["tools"] = [_tool(t) for t in params["tools"]]
    if params.get("tool_choice"):
        body["tool_choice"] = _tool_choice(params["tool_choice"])
    if "temperature" in params:
        body["temperature"] = params["temperature"]
    effort = (params.get("output_config") or {}).get("effort")
    if effort:
        body["reasoning_effort"] = effort
    return body


# --------------------------------------------------------------------------- reply

def _arguments(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"_unparsed_arguments": raw}  # the caller's schema check reports it, and asks again
    return value if isinstance(value, dict) else {"_arguments": value}


def reply_parts(completion: Any) -> tuple[str, list[dict[str, Any]], str | None, llm_accounting.Usage]:
    """(model, content blocks, stop reason, usage) of a Chat Completions answer."""
    choices = getattr(completion, "choices", None) or []
    if not choices:
        raise ValueError("the answer holds no choice")
    choice = choices[0]
    message = choice.message
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for i, call in enumerate(message.tool_calls or ()):
        function = getattr(call, "function", None)
        if function is None:
            continue
        blocks.append({"type": "tool_use", "id": call.id or f"call_{i}", "name": function.name,
                       "input": _arguments(function.arguments)})
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    prompt = getattr(usage, "prompt_tokens", 0) or 0
    read = getattr(details, "cached_tokens", 0) or 0
    written = getattr(details, "cache_write_tokens", 0) or 0
    return (getattr(completion, "model", "") or "", blocks, _STOP.get(choice.finish_reason or "", choice.finish_reason),
            llm_accounting.Usage(input_tokens=max(0, prompt - read - written),
                                 output_tokens=getattr(usage, "completion_tokens", 0) or 0,
                                 cache_read_input_tokens=read, cache_creation_input_tokens=written))


# --------------------------------------------------------------------------- sending

class ChatCompletions:
    """One endpoint's Chat Completions, as a wire of the kit (kits/llm/wire): ``send`` is
    one attempt. Its API forces a tool whatever the configuration (``required`` or a
    named function), caches prompt prefixes by itself, and has no thinking switch (a
    reasoning model's effort is ``reasoning_effort``)."""

    marks_prompts = False

    def __init__(self, target: llm_providers.Target, timeout_s: float) -> None:
        self.target = target
        self._sdk = sdk().OpenAI(api_key=target.api_key or llm_providers.NO_KEY, base_url=target.base_url,
                                 timeout=timeout_s, max_retries=0)  # kits/retrying is the single retry policy

    def forcing(self, config: Any, name: str | None = None) -> dict[str, Any] | None:
        if name:
            return {"type": "tool", "name": name}
        # "required" where the server takes it; else the model chooses (auto), and the
        # caller's re-ask handles a reply without a tool call
        return {"type": "any"} if self.target.provider.forces_any_tool else None

    @staticmethod
    def options(config: Any) -> dict[str, Any]:
        return {} if config.temperature is None else {"temperature": config.temperature}

    def send(self, params: Mapping[str, Any], model: str) -> replies.Reply:
        served, content, stop, usage = reply_parts(self._sdk.chat.completions.create(**request(params, self.target)))
        return replies.Reply(model=served or model, content=tuple(content), stop_reason=stop, usage=usage)

    @property
    def client(self) -> Any:
        """The ``openai.OpenAI`` client (kits/llm/chat_batches sends batches through it)."""
        return self._sdk

    def reach(self) -> None:
        """Ask the endpoint for its models: raises what ``problem`` explains."""
        self._sdk.models.list()

    @staticmethod
    def errors() -> tuple[type[BaseException], ...]:
        return (sdk().OpenAIError, json.JSONDecodeError, ValueError)

    @staticmethod
    def transient(exc: BaseException) -> bool:
        return transient(exc)

    @staticmethod
    def unreachable(exc: BaseException) -> bool:
        return isinstance(exc, sdk().APIConnectionError)

    def batches(self) -> Any:
        from iwcbench.pipeline.kits.llm import chat_batches
        return chat_batches.Batches(self)


def transient(exc: BaseException) -> bool:
    """Worth another try: rate limits, overload, server errors, timeouts, broken replies."""
    openai = sdk()
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return wire.status_transient(exc.status_code)
    return isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError))

