"""A fake Anthropic Messages API: a real HTTP server on loopback for the real SDK.

Tests script what the "model" answers and which faults happen, then assert on the
requests the client actually sent (headers and JSON bodies). Nothing here talks to
the real API.

    def test_x(fake_anthropic):
        fake_anthropic.push(text("hello"))
        fake_anthropic.push(Fault.rate_limit(retry_after=0.01), text("after retry"))
        client = llm.Client(llm.Config(model="claude-test", base_url=fake_anthropic.url))

Replies come from a queue (``push``) or, when the queue is empty, from ``handler``
(a function of the request body returning an item). An item is a ``Message`` or a
``Fault``.

Prompt caching (tests/fakes/anthropic_cache.py): a request that carries ``cache_control``
is counted by estimate and answered from the fake's prompt cache as the API would
(``cache_read_input_tokens`` for a repeated marked prefix); with ``count_tokens`` set,
every request is counted that way (the benchmark's mode). Message Batches
(tests/fakes/anthropic_batches.py) are served under ``/v1/messages/batches`` and
scripted through ``fake.batches``.
"""

from __future__ import annotations

import dataclasses
import http.server
import itertools
import json
import threading
import time
from collections import deque
from typing import Any, Callable, Iterator

import pytest

from fakes import anthropic_batches, anthropic_cache


@dataclasses.dataclass
class Message:
    content: list[dict[str, Any]]
    input_tokens: int = 100
    output_tokens: int = 20
    stop_reason: str = "end_turn"
    cache_read_input_tokens: int = 0


@dataclasses.dataclass
class Fault:
    status: int = 500
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    body: bytes = b'{"type":"error","error":{"type":"api_error","message":"boom"}}'
    delay_s: float = 0.0

    @classmethod
    def rate_limit(cls, retry_after: float | None = None) -> Fault:
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        return cls(429, headers,
                   b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}')

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls(status)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Answer (a valid message) only after ``seconds``: beyond the client timeout."""
        return cls(200, {}, b"", delay_s=seconds)

    @classmethod
    def malformed(cls) -> Fault:
        """HTTP 200 with a body that is not JSON."""
        return cls(200, {"content-type": "application/json"}, b'{"id": "msg_1", "content": [')

    @classmethod
    def bad_request(cls, message: str = "bad request") -> Fault:
        body = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                                      "message": message}}).encode()
        return cls(400, {}, body)


def text(value: str, **kw: Any) -> Message:
    return Message([{"type": "text", "text": value}], stop_reason="end_turn", **kw)


def tool_use(name: str, input: dict[str, Any], preface: str | None = None, **kw: Any) -> Message:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": preface}] if preface else []
    blocks.append({"type": "tool_use", "id": f"toolu_{next(_ids):06d}", "name": name, "input": input})
    return Message(blocks, stop_reason="tool_use", **kw)


_ids = itertools.count(1)


@dataclasses.dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def system(self) -> str:
        system = self.body.get("system", "")
        if isinstance(system, list):
            return "\n".join(b.get("text", "") for b in system)
        return system

    def all_text(self) -> str:
        """Every text the request carried (system, messages, tool results)."""
        parts = [self.system]

        def walk(node: Any) -> None:
            if isinstance(node, str):
                parts.append(node)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
            elif isinstance(node, dict):
                if node.get("type") == "image":
                    return
                for key in ("text", "content"):
                    if key in node:
                        walk(node[key])

        walk(self.body.get("messages", []))
        return "\n".join(parts)


class FakeAnthropic:
    def __init__(self) -> None:
        self.queue: deque[Message | Fault] = deque()
        self.handler: Callable[[dict[str, Any]], Message | Fault] | None = None
        self.requests: list[Recorded] = []  # the interactive POST /v1/messages calls
        self._message_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.count_tokens = False  # True: every request counted by estimate, cached or not
        self.prompt_cache = anthropic_cache.PromptCache()
        self.batches = anthropic_batches.Batches(self._answer, self.url)

    # -- scripting
    def push(self, *items: Message | Fault) -> None:
        with self._lock:
            self.queue.extend(items)

    def reset(self) -> None:
        with self._lock:
            self.queue.clear()
            self.requests.clear()
            self.handler = None
        self.prompt_cache.clear()
        self.batches.reset()

    def _next(self, body: dict[str, Any]) -> Message | Fault:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        if self.handler is not None:
            return self.handler(body)
        return Fault(500, {}, b'{"type":"error","error":{"type":"api_error","message":"no scripted reply"}}')

    def _answer(self, body: dict[str, Any], item: Message | Fault | None = None) -> tuple[int, dict[str, Any]]:
        """What ``POST /v1/messages`` answers for ``body``: (HTTP status, JSON payload)."""
        item = self._next(body) if item is None else item
        if isinstance(item, Fault):
            try:
                payload = json.loads(item.body or b"{}")
            except ValueError:
                payload = {"type": "error", "error": {"type": "api_error", "message": "unreadable"}}
            return item.status, payload
        marked = "cache_control" in json.dumps({k: body.get(k) for k in ("tools", "system", "messages")})
        if marked or self.count_tokens:
            try:
                counted = self.prompt_cache.count(body)
            except anthropic_cache.CacheRuleBroken as exc:
                return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": str(exc)}}
            usage = counted.usage(item.output_tokens)
        else:
            usage = {"input_tokens": item.input_tokens, "output_tokens": item.output_tokens,
                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": item.cache_read_input_tokens}
        with self._lock:
            number = next(self._message_ids)
        return 200, {
            "id": f"msg_{number:06d}", "type": "message", "role": "assistant",
            "model": body.get("model", "claude-test"), "content": item.content,
            "stop_reason": item.stop_reason, "stop_sequence": None, "usage": usage,
        }

    # -- lifecycle
    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler_class(self) -> type[http.server.BaseHTTPRequestHandler]:
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparseable": raw.decode("utf-8", "replace")}
                if self.path.startswith("/v1/messages/batches"):
                    return self._batches("POST", body)
                with fake._lock:
                    fake.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if not self.path.startswith("/v1/messages"):
                    return self._send(404, {}, b'{"type":"error","error":{"type":"not_found_error","message":"?"}}')
                item = fake._next(body)
                if isinstance(item, Fault):
                    if item.delay_s:
                        time.sleep(item.delay_s)
                        if not item.body:
                            item = text("late")
                    if isinstance(item, Fault):
                        return self._send(item.status, item.headers, item.body)
                status, payload = fake._answer(body, item)
                self._send(status, {}, json.dumps(payload).encode())

            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/v1/messages/batches"):
                    return self._batches("GET", {})
                self._send(404, {}, b'{"type":"error","error":{"type":"not_found_error","message":"?"}}')

            def _batches(self, method: str, body: dict[str, Any]) -> None:
                status, payload = fake.batches.handle(method, self.path, body)
                if isinstance(payload, bytes):
                    return self._send(status, {"content-type": "application/x-jsonl"}, payload)
                self._send(status, {}, json.dumps(payload).encode())

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                try:
                    self.send_response(status)
                    headers = {"content-type": "application/json", **headers}
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test): nothing to answer

        return Handler


@pytest.fixture
def fake_anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """A started fake; ANTHROPIC_BASE_URL points at it and a dummy key is set."""
    fake = FakeAnthropic().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
    try:
        yield fake
    finally:
        fake.stop()
