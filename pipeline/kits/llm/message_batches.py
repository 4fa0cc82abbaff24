"""Anthropic's Message Batches API, as kits/llm/batches' ``Batcher`` drives it: a batch is
one request of ``{custom_id, params}`` items; once its ``processing_status`` is ``ended``
its results are read, each item ``succeeded`` (a Message), ``errored``, ``expired`` or
``canceled``. What it must not do: retry (the batcher holds the policy) or cache.
"""

from __future__ import annotations

import json
from typing import Any

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import messages

MAX_REQUESTS = 100_000  # the API's limit per batch
MAX_BYTES = 200_000_000  # the API allows 256 MB per batch; this leaves room for the framing
_PERMANENT = {"invalid_request_error", "authentication_error", "permission_error", "not_found_error",
              "request_too_large"}


class MessageBatches:
    """Anthropic's Message Batches API."""

    kind = "Message Batch"
    falls_back = False
    max_requests = MAX_REQUESTS
    max_bytes = MAX_BYTES

    def __init__(self, resource: Any, endpoint: str) -> None:
        self._api = resource
        self.endpoint = endpoint

    @staticmethod
    def group(params: dict[str, Any]) -> str:
        return ""  # one batch may mix models

    @staticmethod
    def failures() -> tuple[type[BaseException], ...]:
        return (messages.sdk().AnthropicError, json.JSONDecodeError)

    @staticmethod
    def transient(exc: BaseException) -> bool:
        return messages.transient(exc)

    def create(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
        return self._api.create(requests=[{"custom_id": cid, "params": params} for cid, params in requests]).id

    def results(self, batch_id: str, custom_ids: list[str]) -> tuple[dict[str, tuple[str, Any]], dict[str, int]] | None:
        try:
            if self._api.retrieve(batch_id).processing_status != "ended":
                return None
            items = list(self._api.results(batch_id))
        except messages.sdk().NotFoundError as exc:  # archived results, another workspace
            raise llm.BatchGone(f"Message Batch {batch_id}: {llm.short(exc, 120)}") from exc
        counts: dict[str, int] = {}
        outcomes: dict[str, tuple[str, Any]] = {}
        for item in items:
            counts[item.result.type] = counts.get(item.result.type, 0) + 1
            outcomes[item.custom_id] = self._outcome(item.result)
        return outcomes, counts

    @staticmethod
    def _outcome(result: Any) -> tuple[str, Any]:
        if result.type == "succeeded":
            return ("ok", messages.reply_of(result.message, result.message.model))
        if result.type == "errored":
            error = getattr(getattr(result, "error", None), "error", None)
            kind = getattr(error, "type", "api_error")
            text = f"{kind}: {getattr(error, 'message', '')}"
            if kind in _PERMANENT:
                return ("raise", llm.LLMError(f"the batched request was refused: {text}"))
            return ("raise", llm.ItemFailed(f"errored in the batch ({text})"))
        return ("raise", llm.ItemFailed(f"{result.type} in the batch"))
