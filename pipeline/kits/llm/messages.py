"""Anthropic's Messages API as a wire of the LLM kit (kits/llm/wire): the kit's requests
are already in its shape, so this wire adds what a configuration asks for (adaptive
thinking, a temperature the SDK no longer types), sends through the official
``anthropic`` client, and reads the Message back as a ``Reply``.

What its API allows: prompt-cache breakpoints are the caller's to place
(kits/llm/caching); a tool may be forced except with thinking on, which the API refuses;
Message Batches serve every endpoint. Nothing else in the project imports ``anthropic``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from iwcbench.pipeline.kits.llm import accounting as llm_accounting, providers as llm_providers, replies, wire


def sdk() -> Any:
    """The ``anthropic`` package, imported when first needed: importing it takes over a
    second (its pydantic types), which a run that calls no model, and each of its
    worker processes, would otherwise pay at start."""
    import anthropic
    return anthropic


def transient(exc: BaseException) -> bool:
    """Worth another try: rate limits, overload, server errors, timeouts, broken replies."""
    if isinstance(exc, (sdk().APITimeoutError, sdk().APIConnectionError)):
        return True
    if isinstance(exc, sdk().APIStatusError):
        return wire.status_transient(exc.status_code)
    # 200 with a body that is not a Message (a broken proxy, a truncated reply)
    return isinstance(exc, (sdk().APIResponseValidationError, json.JSONDecodeError))


class Messages:
    """One endpoint's Messages API."""

    marks_prompts = True

    def __init__(self, target: llm_providers.Target, timeout_s: float) -> None:
        self.target = target
        self._sdk = sdk().Anthropic(api_key=target.api_key or "missing-api-key", base_url=target.base_url,
                                    timeout=timeout_s, max_retries=0)  # kits/retrying is the single retry policy

    @staticmethod
    def forcing(config: wire.Settings, name: str | None = None) -> dict[str, Any] | None:
        if config.thinking:
            return None  # the API refuses a forced tool while the model thinks
        return {"type": "tool", "name": name} if name else {"type": "any"}

    @staticmethod
    def options(config: wire.Settings) -> dict[str, Any]:
        if config.thinking:
            return {"thinking": {"type": "adaptive"}}  # no temperature with thinking
        return {} if config.temperature is None else {"temperature": config.temperature}

    def send(self, params: Mapping[str, Any], model: str) -> replies.Reply:
        # This SDK version no longer types ``temperature``; the API still takes it for
        # models that allow sampling control, so it goes in the body as is.
        body = {k: v for k, v in params.items() if k != "temperature"}
        extra = {"temperature": params["temperature"]} if "temperature" in params else None
        return reply_of(self._sdk.messages.create(**body, extra_body=extra), model)

    @staticmethod
    def transient(exc: BaseException) -> bool:
        return transient(exc)

    @staticmethod
    def errors() -> tuple[type[BaseException], ...]:
        return (sdk().AnthropicError, json.JSONDecodeError)

    def reach(self) -> None:
        self._sdk.models.list()

    @staticmethod
    def unreachable(exc: BaseException) -> bool:
        return isinstance(exc, sdk().APIConnectionError)

    def batches(self) -> Any:
        from iwcbench.pipeline.kits.llm import message_batches
        return message_batches.MessageBatches(self._sdk.messages.batches, self.target.endpoint)


def reply_of(message: Any, model: str) -> replies.Reply:
    """The API's message object (interactive or from a batch's results) as a ``Reply``."""
    blocks = []
    for block in message.content or ():
        data = block.model_dump(mode="json", exclude_none=True)
        if data.get("type") in ("text", "tool_use", "thinking", "redacted_thinking"):
            # keep only the fields the API accepts back in a request
            keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
                    "thinking": ("type", "thinking", "signature"),
                    "redacted_thinking": ("type", "data")}[data["type"]]
            blocks.append({k: data[k] for k in keep if k in data})
    usage = getattr(message, "usage", None)
    creation = getattr(usage, "cache_creation", None)
    return replies.Reply(
        model=getattr(message, "model", None) or model,
        content=tuple(blocks),
        stop_reason=getattr(message, "stop_reason", None),
        usage=llm_accounting.Usage(
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
            cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
            cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
            cache_creation_1h_input_tokens=getattr(creation, "ephemeral_1h_input_tokens", 0) or 0,
        ),
    )
