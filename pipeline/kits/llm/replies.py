"""What a model call gives back and how it fails: the ``Reply`` (one assistant message
in the Messages API's shape, whichever API carried it), the content blocks a request is
made of, and the kit's errors. Plain data: nothing here sends a request."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any, Mapping

from iwcbench.pipeline.kits.llm import accounting as llm_accounting


class LLMError(RuntimeError):
    """The API could not give an answer (retries exhausted, or a permanent error
    such as a bad request or missing credentials). Callers record it as the reason
    a score is unscored; it never means the app is bad."""


class ItemFailed(Exception):
    """A batched request came back errored, expired or canceled: send it on its own."""


class NoBatches(LLMError):
    """The endpoint serves no batch API (an OpenAI-compatible server without
    ``/v1/batches``): its requests go one by one."""


class BatchGone(LLMError):
    """A submitted batch is no longer known to its endpoint: its requests go again."""


@dataclasses.dataclass(frozen=True)
class Reply:
    """One assistant message. ``content`` holds plain dicts in the API's shape:
    ``{"type": "text", "text": ...}`` and ``{"type": "tool_use", "id", "name", "input"}``
    (thinking blocks are kept so tool-use conversations can be continued)."""

    model: str
    content: tuple[dict[str, Any], ...]
    stop_reason: str | None
    usage: llm_accounting.Usage
    cached: bool = False

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    def as_message(self) -> dict[str, Any]:
        """The assistant turn to append when continuing the conversation."""
        return {"role": "assistant", "content": [dict(b) for b in self.content]}

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "content": list(self.content),
                "stop_reason": self.stop_reason, "usage": dataclasses.asdict(self.usage)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], cached: bool = False) -> Reply:
        return cls(model=data["model"], content=tuple(data["content"]),
                   stop_reason=data.get("stop_reason"), usage=llm_accounting.Usage(**data["usage"]),
                   cached=cached)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_block(data: bytes, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image",
            "source": {"type": "base64", "media_type": media_type,
                       "data": base64.b64encode(data).decode("ascii")}}


def tool_result_block(tool_use_id: str, content: str | list[dict[str, Any]],
                      is_error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def short(exc: BaseException, limit: int = 300) -> str:
    """An exception's message on one line, cut to ``limit`` characters."""
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"
