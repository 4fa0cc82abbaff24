"""OpenAI's batch API behind kits/llm/batches: the same ``Batcher``, another wire.

A batch is a JSONL file uploaded with ``purpose="batch"`` (one line a request:
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``, the body
translated by kits/llm/chat as an interactive call's would be), then
``batches.create(endpoint="/v1/chat/completions", completion_window="24h")``. Once the
batch is ``completed`` (or ``expired``, ``cancelled``: what finished is in the output
file all the same) its output and error files are read and each line is mapped back to
its request by ``custom_id`` — the lines come in no promised order. One file holds one
model's requests (the API refuses a file that mixes models), so the batcher groups by
``group``. A batch that ``failed`` validation answers every request with ``ItemFailed``:
each goes again on its own.

Many OpenAI-compatible servers (vLLM's, Ollama's, llama.cpp's) serve no ``/v1/files`` or
``/v1/batches``: a 404 (405, 501) there raises ``llm.NoBatches`` and the batcher sends that
endpoint's requests one by one from then on. This module must not retry (kits/llm/batches
holds the policy), cache, or decide what is batched.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import chat as llm_openai

URL = "/v1/chat/completions"
MAX_REQUESTS = 50_000  # the API's limit per batch
MAX_BYTES = 190_000_000  # the API takes files up to 200 MB
_RUNNING = {"validating", "in_progress", "finalizing", "cancelling"}
_NOT_SERVED = {404, 405, 501}
_PERMANENT = {400, 401, 403, 404, 413, 422}  # a request the endpoint will refuse again


def line(custom_id: str, params: Mapping[str, Any], target: Any) -> dict[str, Any]:
    """One request of the input file: the Chat Completions body of the kit's ``params``
    (``params["model"]`` names the model; the endpoint is ``target``'s)."""
    model = dataclasses.replace(target, model=params.get("model") or target.model)
    return {"custom_id": custom_id, "method": "POST", "url": URL, "body": llm_openai.request(params, model)}


def outcome(item: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """What one line of an output or error file means for its request:
    ``("ok", llm.Reply)``, or ``("raise", exception)`` — ``llm.ItemFailed`` (send it on
    its own) or ``llm.LLMError`` (the endpoint refused it; it would refuse it again)."""
    response = item.get("response") or {}
    status = response.get("status_code")
    given = response.get("body")
    body: dict[str, Any] = given if isinstance(given, dict) else {}
    error = item.get("error") or {}
    if status == 200 and not error:
        try:
            # built as the client builds an interactive answer: leniently (servers omit fields)
            completion = llm_openai.sdk().types.chat.ChatCompletion.construct(**body)
            model, content, stop, usage = llm_openai.reply_parts(completion)
        except (ValueError, TypeError, AttributeError, LookupError) as exc:
            return ("raise", llm.ItemFailed(f"an unreadable answer in the batch ({llm.short(exc, 120)})"))
        return ("ok", llm.Reply(model=model or name, content=tuple(content), stop_reason=stop, usage=usage))
    detail = (body.get("error") if isinstance(body.get("error"), dict) else None) or error
    text = f"{detail.get('code') or detail.get('type') or 'error'}: {detail.get('message', '')}".strip()
    if isinstance(status, int) and status in _PERMANENT:
        return ("raise", llm.LLMError(f"the batched request was refused (HTTP {status}): {text}"))
    where = f"HTTP {status}" if isinstance(status, int) else "no answer"
    return ("raise", llm.ItemFailed(f"{where} in the batch ({text})"))


class Batches:
    """One endpoint's batch API, as kits/llm/batches' ``Batcher`` drives it."""

    kind = "OpenAI batch"
    falls_back = True  # a batch that cannot be made leaves its requests to interactive calls
    max_requests = MAX_REQUESTS
    max_bytes = MAX_BYTES

    def __init__(self, chat: llm_openai.ChatCompletions) -> None:
        self._chat = chat
        self._sdk = chat.client
        self.endpoint = chat.target.endpoint

    @staticmethod
    def group(params: Mapping[str, Any]) -> str:
        return str(params.get("model", ""))

    @staticmethod
    def failures() -> tuple[type[BaseException], ...]:
        return (llm_openai.sdk().OpenAIError, json.JSONDecodeError)

    @staticmethod
    def transient(exc: BaseException) -> bool:
        return llm_openai.transient(exc)

    def _served(self, exc: BaseException, what: str) -> None:
        status = getattr(exc, "status_code", None)
        if isinstance(exc, llm_openai.sdk().APIStatusError) and status in _NOT_SERVED:
            raise llm.NoBatches(f"{self._chat.target.base_url} serves no batch API (HTTP {status} on {what})") from exc

    def create(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
        data = "".join(json.dumps(line(cid, params, self._chat.target), ensure_ascii=False) + "\n"
                       for cid, params in requests).encode()
        try:
            uploaded = self._sdk.files.create(file=("iwc-batch.jsonl", data, "application/jsonl"), purpose="batch")
        except llm_openai.sdk().APIStatusError as exc:
            self._served(exc, "/v1/files")
            raise
        try:
            batch = self._sdk.batches.create(input_file_id=uploaded.id, endpoint=URL, completion_window="24h",
                                             metadata={"made_by": "iwc-bench"})
        except llm_openai.sdk().APIStatusError as exc:
            self._forget(uploaded.id)
            self._served(exc, "/v1/batches")
            raise
        return batch.id

    def _forget(self, file_id: str) -> None:
        try:
            self._sdk.files.delete(file_id)
        except llm_openai.sdk().OpenAIError:
            pass  # a stray upload costs nothing; the endpoint expires it

    def results(self, batch_id: str, custom_ids: list[str]) -> tuple[dict[str, tuple[str, Any]], dict[str, int]] | None:
        """(outcome by custom_id, counts by kind) once the batch has ended, else None.
        Raises ``llm.BatchGone``."""
        try:
            batch = self._sdk.batches.retrieve(batch_id)
        except llm_openai.sdk().NotFoundError as exc:
            raise llm.BatchGone(f"batch {batch_id}: {llm.short(exc, 120)}") from exc
        if batch.status in _RUNNING:
            return None
        outcomes: dict[str, tuple[str, Any]] = {}
        counts: dict[str, int] = {}
        wanted = set(custom_ids)
        if batch.status == "failed":
            errors = [f"{e.code}: {e.message}" + (f" (line {e.line})" if e.line else "")
                      for e in (getattr(batch.errors, "data", None) or ())]
            failed = llm.ItemFailed(f"the batch failed ({'; '.join(errors[:3]) or 'no reason given'})")
            return {cid: ("raise", failed) for cid in custom_ids}, {"failed": len(custom_ids)}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for raw in self._sdk.files.content(file_id).text.splitlines():
                if not raw.strip():
                    continue
                item = json.loads(raw)
                cid = item.get("custom_id")
                if cid in wanted:
                    outcomes[cid] = outcome(item, self._chat.target.name)
                    kind = "succeeded" if outcomes[cid][0] == "ok" else "errored"
                    counts[kind] = counts.get(kind, 0) + 1
        if batch.status != "completed":
            counts[batch.status] = len(wanted) - len(outcomes)
        return outcomes, counts
