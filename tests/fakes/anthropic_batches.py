"""The fake Messages API's Message Batches endpoints, for the real SDK's batch client.

    POST /v1/messages/batches               create (``{"requests": [{custom_id, params}]}``)
    GET  /v1/messages/batches/{id}          retrieve: status, counts, ``results_url`` once ended
    GET  /v1/messages/batches/{id}/results  the results as JSON lines, in no promised order
    POST /v1/messages/batches/{id}/cancel   cancel: unprocessed items end ``canceled``

A batch ends ``delay_s`` seconds (of ``clock``) after it was created; its items are
then answered one by one, in order, exactly as ``POST /v1/messages`` would answer them
(the same scripted replies and the same prompt cache), so a later item can read what an
earlier one cached. Tests script trouble: ``hold`` keeps batches in progress, ``expire``
makes them expire (the API's 24 hours passing), ``fault(custom_id, params)`` turns single
items into ``"errored"`` (an overloaded server), ``"invalid"`` (a bad request) or
``"expired"``.
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import threading
import time
from typing import Any, Callable

Answer = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]  # body → (HTTP status, JSON)


def _stamp(seconds_from_now: float = 0.0) -> str:
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    return moment.isoformat().replace("+00:00", "Z")


@dataclasses.dataclass
class Batch:
    id: str
    requests: list[dict[str, Any]]
    created: float
    created_at: str
    expire: bool
    results: dict[str, dict[str, Any]] | None = None  # custom_id → result, once ended
    canceled: bool = False
    ended_at: str | None = None


class Batches:
    def __init__(self, answer: Answer, base_url: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._answer = answer
        self._base_url = base_url
        self.clock = clock
        self.delay_s = 0.0
        self.hold = False
        self.expire = False
        self.fault: Callable[[str, dict[str, Any]], str | None] | None = None
        self.batches: dict[str, Batch] = {}
        self.items: list[dict[str, Any]] = []  # the params of every item answered, in order
        self.calls: list[tuple[str, str]] = []  # (method, path) of every batch endpoint call
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def created(self) -> list[Batch]:
        return list(self.batches.values())

    def reset(self) -> None:
        with self._lock:
            self.batches.clear()
            self.items.clear()
            self.calls.clear()
            self.delay_s, self.hold, self.expire, self.fault = 0.0, False, False, None

    # ------------------------------------------------------------------ endpoints

    def handle(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | bytes]:
        self.calls.append((method, path))
        parts = path.split("?")[0].rstrip("/").split("/")[4:]  # after /v1/messages/batches
        if method == "POST" and not parts:
            return self._create(body)
        batch = self.batches.get(parts[0]) if parts else None
        if batch is None:
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": "no such batch"}}
        if method == "POST" and parts[1:] == ["cancel"]:
            batch.canceled = True
            return 200, self._view(batch)
        if method == "GET" and parts[1:] == ["results"]:
            self._advance(batch)
            if batch.results is None:
                return 404, {"type": "error", "error": {"type": "not_found_error",
                                                        "message": "results are not ready"}}
            lines = [json.dumps({"custom_id": cid, "result": r}) for cid, r in reversed(batch.results.items())]
            return 200, ("\n".join(lines) + "\n").encode()
        if method == "GET" and len(parts) == 1:
            return 200, self._view(batch)
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        requests = body.get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if not requests or len(set(ids)) != len(ids):
            return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": "custom_id values must be unique"}}
        with self._lock:
            batch_id = f"msgbatch_{next(self._ids):06d}"
            batch = Batch(batch_id, requests, self.clock(), _stamp(), self.expire)
            self.batches[batch_id] = batch
        return 200, self._view(batch)

    # ------------------------------------------------------------------ processing

    def _advance(self, batch: Batch) -> None:
        with self._lock:
            if batch.results is not None:
                return
            due = self.clock() >= batch.created + self.delay_s and not self.hold
            if not (due or batch.canceled or batch.expire):
                return
            results: dict[str, dict[str, Any]] = {}
            for request in batch.requests:
                cid, params = request["custom_id"], request["params"]
                if batch.canceled:
                    results[cid] = {"type": "canceled"}
                elif batch.expire:
                    results[cid] = {"type": "expired"}
                else:
                    results[cid] = self._item(cid, params)
            batch.results = results
            batch.ended_at = _stamp()

    def _item(self, custom_id: str, params: dict[str, Any]) -> dict[str, Any]:
        trouble = self.fault(custom_id, params) if self.fault else None
        if trouble == "expired":
            return {"type": "expired"}
        if trouble in ("errored", "invalid"):
            kind = "overloaded_error" if trouble == "errored" else "invalid_request_error"
            return {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": trouble}}}
        self.items.append(params)
        status, payload = self._answer(params)
        if status != 200:
            error = payload.get("error") if isinstance(payload, dict) else None
            return {"type": "errored", "error": {"type": "error", "error": error or {
                "type": "api_error", "message": f"HTTP {status}"}}}
        return {"type": "succeeded", "message": payload}

    def _view(self, batch: Batch) -> dict[str, Any]:
        self._advance(batch)
        ended = batch.results is not None
        counts = {"processing": 0 if ended else len(batch.requests),
                  "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for result in (batch.results or {}).values():
            counts[result["type"]] += 1
        return {
            "id": batch.id, "type": "message_batch",
            "processing_status": "ended" if ended else ("canceling" if batch.canceled else "in_progress"),
            "request_counts": counts,
            "created_at": batch.created_at, "expires_at": _stamp(24 * 3600),
            "ended_at": batch.ended_at, "archived_at": None,
            "cancel_initiated_at": _stamp() if batch.canceled else None,
            "results_url": f"{self._base_url}/v1/messages/batches/{batch.id}/results" if ended else None,
        }
