"""The fake OpenAI-compatible server's Files and Batch endpoints, for the real ``openai``
client's ``files`` and ``batches`` resources (written from OpenAI's API reference).

    POST   /v1/files                   multipart upload (``purpose`` and ``file``)
    GET    /v1/files/{id}/content      the file's bytes
    DELETE /v1/files/{id}
    POST   /v1/batches                 ``{input_file_id, endpoint, completion_window}``
    GET    /v1/batches/{id}            the batch: ``status``, ``output_file_id``, ``error_file_id``
    GET    /v1/batches                 the list
    POST   /v1/batches/{id}/cancel

An input file is JSON lines ``{custom_id, method, url, body}``. What the API refuses, this
refuses: an upload whose purpose is not one it knows (400), a batch whose endpoint is not
one it serves, whose completion window is not ``24h`` or whose input file is unknown or
not a ``batch`` file (400); a batch whose lines are not all valid (a line that is not a
JSON object, a missing or repeated ``custom_id``, a method other than POST, a url other
than the batch's endpoint, a body that is not an object, two models in one file) is
created and then ``failed`` with ``errors.data`` naming each bad line.

A valid batch ends ``delay_s`` seconds after it was created (``hold`` keeps it in
progress; ``expire`` makes it ``expired``, every request in the error file with
``batch_expired``). Its requests are then answered one by one as ``POST
/v1/chat/completions`` would answer them (the same scripted replies and prefix cache);
a reply of 200 goes to the output file as ``{id, custom_id, response: {status_code,
request_id, body}, error: null}``, any other to the error file, and lines come out in no
promised order (reversed here). ``fault(custom_id, body)`` turns a request into
``"errored"`` (HTTP 500) or ``"invalid"`` (HTTP 400).

``served = False`` answers every one of these endpoints 404, as vLLM's and Ollama's
OpenAI-compatible servers do.
"""

from __future__ import annotations

import dataclasses
import email.parser
import itertools
import json
import threading
import time
from typing import Any, Callable

Answer = Callable[[dict[str, Any]], tuple[int, dict[str, Any], dict[str, str]]]  # body → status, JSON, headers
ENDPOINTS = {"/v1/chat/completions", "/v1/responses", "/v1/embeddings", "/v1/completions"}
PURPOSES = {"assistants", "batch", "fine-tune", "vision", "user_data", "evals"}


def _error(status: int, message: str, code: str | None = None, param: str | None = None) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


@dataclasses.dataclass
class File:
    id: str
    purpose: str
    filename: str
    data: bytes
    created_at: int

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "object": "file", "bytes": len(self.data), "created_at": self.created_at,
                "filename": self.filename, "purpose": self.purpose, "status": "processed"}


@dataclasses.dataclass
class Batch:
    id: str
    input_file_id: str
    endpoint: str
    created: float
    created_at: int
    metadata: dict[str, Any] | None
    requests: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    expire: bool
    status: str = "validating"
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = dataclasses.field(default_factory=lambda: {"total": 0, "completed": 0, "failed": 0})
    stamps: dict[str, int] = dataclasses.field(default_factory=dict)


def check_lines(data: bytes, endpoint: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the requests, the errors of the bad lines) of an input file."""
    requests: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    models: set[str] = set()

    def bad(number: int, code: str, message: str, param: str | None = None) -> None:
        errors.append({"code": code, "message": message, "param": param, "line": number})

    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except ValueError:
            bad(number, "invalid_json_line", "This line is not parseable as valid JSON.")
            continue
        if not isinstance(item, dict):
            bad(number, "invalid_json_line", "This line is not a JSON object.")
            continue
        cid = item.get("custom_id")
        if not isinstance(cid, str) or not cid:
            bad(number, "missing_required_parameter", "Missing required parameter: 'custom_id'.", "custom_id")
            continue
        if cid in seen:
            bad(number, "duplicate_custom_id", "The custom_id for this request is a duplicate of another request.",
                "custom_id")
            continue
        if item.get("method") != "POST":
            bad(number, "invalid_request", "The method for this request must be POST.", "method")
            continue
        if item.get("url") != endpoint:
            bad(number, "invalid_url", "The URL provided for this request does not match the batch endpoint.", "url")
            continue
        body = item.get("body")
        if not isinstance(body, dict) or not body.get("model"):
            bad(number, "missing_required_parameter", "Missing required parameter: 'body.model'.", "body.model")
            continue
        models.add(body["model"])
        if len(models) > 1:
            bad(number, "mismatched_model", "The provided model does not match the model of the other requests "
                "in the file: each file may hold one model's requests.", "body.model")
            continue
        seen.add(cid)
        requests.append(item)
    if not requests and not errors:
        errors.append({"code": "empty_file", "message": "The batch input file is empty.", "param": None, "line": None})
    return requests, errors


def multipart(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name → (filename, bytes)."""
    message = email.parser.BytesParser().parsebytes(f"content-type: {content_type}\r\n\r\n".encode() + raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.get_payload() if message.is_multipart() else ():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


class Batches:
    def __init__(self, answer: Answer, clock: Callable[[], float] = time.monotonic) -> None:
        self._answer = answer
        self.clock = clock
        self.served = True
        self.delay_s = 0.0
        self.hold = False
        self.expire = False
        self.fault: Callable[[str, dict[str, Any]], str | None] | None = None
        self.files: dict[str, File] = {}
        self.batches: dict[str, Batch] = {}
        self.items: list[dict[str, Any]] = []  # the body of every request answered, in order
        self.calls: list[tuple[str, str, str]] = []  # (method, path, authorization header)
        self._ids = itertools.count(1)
        self._lock = threading.RLock()

    @property
    def created(self) -> list[Batch]:
        return list(self.batches.values())

    def _id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids):06d}"

    # ------------------------------------------------------------------ endpoints

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, Any] | bytes]:
        with self._lock:
            self.calls.append((method, path, headers.get("authorization", "")))
            if not self.served:
                return _error(404, f"Unknown request URL: {method} {path}", "unknown_url")
            parts = path.split("?")[0].rstrip("/").split("/")[2:]  # after /v1
            if parts[:1] == ["files"]:
                return self._files(method, parts[1:], headers, raw)
            if parts[:1] == ["batches"]:
                return self._batches(method, parts[1:], raw)
            return _error(404, f"Unknown request URL: {method} {path}", "unknown_url")

    def _files(self, method: str, rest: list[str], headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        if method == "POST" and not rest:
            fields = multipart(headers.get("content-type", ""), raw)
            purpose = fields.get("purpose", (None, b""))[1].decode()
            if purpose not in PURPOSES:
                return _error(400, f"'{purpose}' is not one of {sorted(PURPOSES)} - 'purpose'", param="purpose")
            if "file" not in fields:
                return _error(400, "Missing required parameter: 'file'.", "missing_required_parameter", "file")
            filename, data = fields["file"]
            if purpose == "batch" and not (filename or "").endswith(".jsonl"):
                return _error(400, "Invalid file format for Batch API. Must be .jsonl", param="file")
            file = File(self._id("file"), purpose, filename or "upload", data, int(time.time()))
            self.files[file.id] = file
            return 200, file.view()
        file = self.files.get(rest[0]) if rest else None
        if file is None:
            return _error(404, f"No such File object: {rest[0] if rest else ''}", param="id")
        if method == "GET" and rest[1:] == ["content"]:
            return 200, file.data
        if method == "DELETE" and len(rest) == 1:
            del self.files[file.id]
            return 200, {"id": file.id, "object": "file", "deleted": True}
        if method == "GET" and len(rest) == 1:
            return 200, file.view()
        return _error(404, "Unknown request URL", "unknown_url")

    def _batches(self, method: str, rest: list[str], raw: bytes) -> tuple[int, Any]:
        if method == "POST" and not rest:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return _error(400, "We could not parse the JSON body of your request.")
            return self._create(body)
        if method == "GET" and not rest:
            data = [self._view(b) for b in reversed(self.batches.values())]
            return 200, {"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                         "last_id": data[-1]["id"] if data else None, "has_more": False}
        batch = self.batches.get(rest[0]) if rest else None
        if batch is None:
            return _error(404, f"No batch found with id '{rest[0] if rest else ''}'.", param="batch_id")
        if method == "POST" and rest[1:] == ["cancel"]:
            self._advance(batch, cancel=True)
            return 200, self._view(batch)
        if method == "GET" and len(rest) == 1:
            return 200, self._view(batch)
        return _error(404, "Unknown request URL", "unknown_url")

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        endpoint, window = body.get("endpoint"), body.get("completion_window")
        if endpoint not in ENDPOINTS:
            return _error(400, f"'{endpoint}' is not one of {sorted(ENDPOINTS)} - 'endpoint'", param="endpoint")
        if window != "24h":
            return _error(400, f"'{window}' is not one of ['24h'] - 'completion_window'", param="completion_window")
        file = self.files.get(body.get("input_file_id", ""))
        if file is None:
            return _error(400, f"No such File object: {body.get('input_file_id')}", param="input_file_id")
        if file.purpose != "batch":
            return _error(400, "The input file must be uploaded with purpose 'batch'.", param="input_file_id")
        requests, errors = check_lines(file.data, endpoint)
        batch = Batch(self._id("batch"), file.id, endpoint, self.clock(), int(time.time()), body.get("metadata"),
                      requests, errors, self.expire)
        batch.counts["total"] = len(requests)
        self.batches[batch.id] = batch
        return 200, self._view(batch)

    # ------------------------------------------------------------------ processing

    def _advance(self, batch: Batch, cancel: bool = False) -> None:
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return
        now = int(time.time())
        if batch.errors:
            batch.status, batch.stamps["failed_at"] = "failed", now
            return
        batch.status, batch.stamps["in_progress_at"] = "in_progress", batch.stamps.get("in_progress_at", now)
        due = self.clock() >= batch.created + self.delay_s and not self.hold
        if not (due or cancel or batch.expire):
            return
        outputs: list[dict[str, Any]] = []
        failures: list[dict[str, Any]] = []
        for request in batch.requests:
            cid = request["custom_id"]
            if cancel or batch.expire:
                code = "batch_cancelled" if cancel else "batch_expired"
                failures.append({"id": self._id("batch_req"), "custom_id": cid, "response": None, "error": {
                    "code": code, "message": "This request could not be executed before the batch ended."}})
                continue
            status, payload = self._item(cid, request["body"])
            line = {"id": self._id("batch_req"), "custom_id": cid,
                    "response": {"status_code": status, "request_id": self._id("req"), "body": payload},
                    "error": None}
            (outputs if status == 200 else failures).append(line)
        for lines, field in ((outputs, "output_file_id"), (failures, "error_file_id")):
            if lines:
                data = "".join(json.dumps(x) + "\n" for x in reversed(lines)).encode()
                file = File(self._id("file"), "batch_output", f"{batch.id}_{field}.jsonl", data, now)
                self.files[file.id] = file
                setattr(batch, field, file.id)
        batch.counts.update(completed=len(outputs), failed=len(failures))
        batch.status = "cancelled" if cancel else "expired" if batch.expire else "completed"
        batch.stamps[f"{batch.status}_at"] = now

    def _item(self, custom_id: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        trouble = self.fault(custom_id, body) if self.fault else None
        if trouble == "errored":
            return 500, {"error": {"message": "The server had an error", "type": "server_error"}}
        if trouble == "invalid":
            return 400, {"error": {"message": "invalid", "type": "invalid_request_error"}}
        self.items.append(body)
        status, payload, _ = self._answer(body)
        return status, payload

    def _view(self, batch: Batch) -> dict[str, Any]:
        self._advance(batch)
        return {
            "id": batch.id, "object": "batch", "endpoint": batch.endpoint, "input_file_id": batch.input_file_id,
            "completion_window": "24h", "status": batch.status, "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id, "created_at": batch.created_at,
            "expires_at": batch.created_at + 24 * 3600, "metadata": batch.metadata,
            "errors": {"object": "list", "data": batch.errors} if batch.errors else None,
            "request_counts": dict(batch.counts),
            **{k: batch.stamps.get(k) for k in ("in_progress_at", "completed_at", "failed_at", "expired_at",
                                                "cancelled_at")},
        }
