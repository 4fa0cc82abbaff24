"""A fake OpenAI-compatible Chat Completions server: a real HTTP server on loopback for
the real ``openai`` client (what vLLM, SGLang, Ollama, OpenRouter and OpenAI serve).

It refuses what real servers refuse, with their HTTP 400 / 401:

- no ``Authorization: Bearer ...`` header (401);
- a message whose role is not system, developer, user, assistant or tool;
- a ``tool`` message that answers no call of the assistant message before it, or an
  assistant's tool call left unanswered when the next non-tool message comes;
- a picture that is not an ``image_url`` part (an Anthropic-style ``image`` block), a
  picture inside a ``tool`` message, or an ``image_url`` that is not a URL;
- a tool that is not ``{"type": "function", "function": {"name", "parameters"}}``, or
  a ``tool_choice`` forcing a function that is not among the tools.

Replies are scripted as for the fake Messages API (tests/fakes/anthropic_server.py:
``Message`` / ``Fault`` items, ``push`` or a ``handler``), and a handler sees the
request *as the Messages API would have received it* (``messages_shape``: system
prompt, tool_use / tool_result blocks, tools with ``input_schema``), so the scripted
roles of scripted_llm.py answer either server. This translation is the fake's own,
written from the Chat Completions format, not the kit's.

The Files and Batch endpoints (tests/fakes/openai_batches.py) are served under
``/v1/files`` and ``/v1/batches`` and scripted through ``fake.batches``
(``fake.batches.served = False``: 404, as vLLM and Ollama answer).

Tokens are estimated (4 characters a token; a picture width × height / 750) and
prompt caching is OpenAI's automatic kind: a prompt of at least 1,024 tokens whose
leading messages match an earlier request's reads those messages back
(``prompt_tokens_details.cached_tokens``), in steps of 128 tokens.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import itertools
import json
import threading
from collections import deque
from typing import Any, Callable, Iterator

import pytest
from PIL import Image

from fakes import openai_batches
from fakes.anthropic_server import Fault, Message, Recorded

ROLES = {"system", "developer", "user", "assistant", "tool"}
MIN_CACHED = 1024
CACHE_STEP = 128


class Refused(ValueError):
    """What the server answers HTTP 400 for."""


def _image_tokens(url: str) -> int:
    if not url.startswith("data:"):
        return 85
    try:
        with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as img:
            return max(1, img.width * img.height // 750)
    except Exception:  # noqa: BLE001 - a test's placeholder bytes
        return 85


def message_tokens(message: dict[str, Any]) -> int:
    content = message.get("content")
    tokens = 4
    if isinstance(content, str):
        tokens += -(-len(content) // 4)
    for part in content if isinstance(content, list) else ():
        if part.get("type") == "image_url":
            tokens += _image_tokens(part["image_url"]["url"])
        else:
            tokens += -(-len(part.get("text", "")) // 4)
    if message.get("tool_calls"):
        tokens += -(-len(json.dumps(message["tool_calls"])) // 4)
    return tokens


def check(body: dict[str, Any]) -> None:
    """Raise ``Refused`` for what a real server refuses (module docstring)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Refused("'messages' must be a non-empty array")
    owed: set[str] = set()
    answerable: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role")
        if role not in ROLES:
            raise Refused(f"messages[{i}].role: {role!r} is not one of {sorted(ROLES)}")
        if role == "tool":
            if m.get("tool_call_id") not in answerable:
                raise Refused(f"messages[{i}]: a message with role 'tool' must be a response to a preceding "
                              f"message with 'tool_calls' (tool_call_id {m.get('tool_call_id')!r})")
            answerable.discard(m["tool_call_id"])
            owed.discard(m["tool_call_id"])
            content = m.get("content")
            parts = content if isinstance(content, list) else []
            if any(p.get("type") != "text" for p in parts):
                raise Refused(f"messages[{i}]: a tool message holds text only")
            continue
        if owed:
            raise Refused(f"messages[{i}]: an assistant message with 'tool_calls' must be followed by tool "
                          f"messages responding to each 'tool_call_id' (unanswered: {sorted(owed)})")
        answerable = set()
        content = m.get("content")
        for j, part in enumerate(content if isinstance(content, list) else ()):
            kind = part.get("type")
            if kind == "image_url":
                url = (part.get("image_url") or {}).get("url", "")
                if not isinstance(url, str) or not url.startswith(("data:image/", "http://", "https://")):
                    raise Refused(f"messages[{i}].content[{j}]: image_url.url must be a URL or a data URL")
                if role != "user":
                    raise Refused(f"messages[{i}].content[{j}]: pictures are allowed in user messages only")
            elif kind != "text":
                raise Refused(f"messages[{i}].content[{j}].type: {kind!r} is not 'text' or 'image_url'")
        if role == "assistant":
            calls = m.get("tool_calls") or []
            for call in calls:
                if call.get("type") != "function" or not isinstance((call.get("function") or {}).get("arguments"), str):
                    raise Refused(f"messages[{i}].tool_calls: each call needs type 'function' and string arguments")
            owed = answerable = {c["id"] for c in calls}
    if owed:
        raise Refused(f"the last assistant message's tool calls are unanswered: {sorted(owed)}")
    names = set()
    for k, tool in enumerate(body.get("tools") or ()):
        function = tool.get("function") or {}
        if tool.get("type") != "function" or not function.get("name"):
            raise Refused(f"tools[{k}]: must be {{'type': 'function', 'function': {{'name', 'parameters'}}}}")
        names.add(function["name"])
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if choice.get("type") != "function" or name not in names:
            raise Refused(f"tool_choice: no tool named {name!r}")
    elif choice not in (None, "auto", "none", "required"):
        raise Refused(f"tool_choice: {choice!r}")


def messages_shape(body: dict[str, Any]) -> dict[str, Any]:
    """The request as a Messages API body (for handlers written for that API)."""
    system = "\n\n".join(m["content"] if isinstance(m["content"], str) else
                         "\n".join(p.get("text", "") for p in m["content"])
                         for m in body["messages"] if m["role"] in ("system", "developer"))
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for m in body["messages"]:
        content = m.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())
        blocks = []
        for p in parts:
            if p.get("type") == "image_url":
                url = p["image_url"]["url"]
                head, _, data = url.partition(",")
                blocks.append({"type": "image", "source": {"type": "base64", "data": data,
                                                           "media_type": head[5:].split(";")[0]}})
            else:
                blocks.append({"type": "text", "text": p.get("text", "")})
        if m["role"] == "assistant":
            for call in m.get("tool_calls") or ():
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                               "input": json.loads(call["function"]["arguments"] or "{}")})
            add("assistant", blocks)
        elif m["role"] == "tool":
            add("user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"],
                          "content": content if isinstance(content, str) else blocks}])
        elif m["role"] == "user":
            add("user", blocks)
    shaped: dict[str, Any] = {"model": body.get("model"), "system": system, "messages": turns}
    if body.get("tools"):
        shaped["tools"] = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                            "input_schema": t["function"].get("parameters", {})} for t in body["tools"]]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        shaped["tool_choice"] = {"type": "tool", "name": choice["function"]["name"]}
    elif choice == "required":
        shaped["tool_choice"] = {"type": "any"}
    return shaped


class PrefixCache:
    """OpenAI's automatic prompt caching, by whole leading messages."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def count(self, body: dict[str, Any]) -> tuple[int, int]:
        """(prompt tokens, cached tokens) of one request; remembers its prefixes."""
        tools = -(-len(json.dumps(body.get("tools") or [])) // 4)
        h = hashlib.sha256(json.dumps([body.get("model"), body.get("tools")], sort_keys=True).encode())
        hashes, cumulative, total = [], [], tools
        for m in body["messages"]:
            h = h.copy()
            h.update(json.dumps(m, sort_keys=True).encode())
            hashes.append(h.hexdigest())
            total += message_tokens(m)
            cumulative.append(total)
        with self._lock:
            hit = max((i for i, x in enumerate(hashes) if x in self._seen), default=-1)
            self._seen.update(hashes)
        if total < MIN_CACHED or hit < 0:
            return total, 0
        return total, cumulative[hit] // CACHE_STEP * CACHE_STEP if cumulative[hit] >= MIN_CACHED else 0


class FakeOpenAI:
    def __init__(self, api_key: str | None = None, port: int = 0) -> None:
        self.api_key = api_key  # None: any bearer token is accepted (a missing one never is)
        self.queue: deque[Message | Fault] = deque()
        self.handler: Callable[[dict[str, Any]], Message | Fault] | None = None
        self.requests: list[Recorded] = []  # POST /v1/chat/completions, as sent
        self.refusals: list[str] = []
        self.cache = PrefixCache()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.batches = openai_batches.Batches(self.answer)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def push(self, *items: Message | Fault) -> None:
        with self._lock:
            self.queue.extend(items)

    def _next(self, shaped: dict[str, Any]) -> Message | Fault:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        if self.handler is not None:
            return self.handler(shaped)
        return Fault(500, {}, b'{"error":{"message":"no scripted reply","type":"server_error"}}')

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(HTTP status, JSON payload, headers) for one chat completion request."""
        try:
            check(body)
        except Refused as exc:
            self.refusals.append(str(exc))
            return 400, {"error": {"message": str(exc), "type": "invalid_request_error", "code": None}}, {}
        item = self._next(messages_shape(body))
        if isinstance(item, Fault):
            try:
                return item.status, json.loads(item.body or b"{}"), item.headers
            except ValueError:
                return item.status, {"error": {"message": "unreadable", "type": "server_error"}}, item.headers
        prompt, cached = self.cache.count(body)
        text = "\n".join(b["text"] for b in item.content if b.get("type") == "text")
        calls = [{"id": b["id"].replace("toolu_", "call_"), "type": "function",
                  "function": {"name": b["name"], "arguments": json.dumps(b["input"])}}
                 for b in item.content if b.get("type") == "tool_use"]
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = calls
        with self._lock:
            number = next(self._ids)
        return 200, {
            "id": f"chatcmpl-{number:06d}", "object": "chat.completion", "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": item.output_tokens,
                      "total_tokens": prompt + item.output_tokens,
                      "prompt_tokens_details": {"cached_tokens": cached}},
        }, {}

    def start(self) -> FakeOpenAI:
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

            def log_message(self, *args: Any) -> None:
                pass

            def _authorized(self) -> bool:
                auth = self.headers.get("authorization", "")
                token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
                if token and (fake.api_key is None or token == fake.api_key):
                    return True
                self._send(401, {"error": {"message": "Incorrect or missing API key", "type": "invalid_request_error",
                                           "code": "invalid_api_key"}})
                return False

            def _batches(self, method: str, raw: bytes = b"") -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload = fake.batches.handle(method, self.path, headers, raw)
                if isinstance(payload, bytes):
                    return self._send_bytes(status, payload, "application/octet-stream")
                self._send(status, payload)

            def do_DELETE(self) -> None:  # noqa: N802
                if self._authorized():
                    self._batches("DELETE")

            def do_GET(self) -> None:  # noqa: N802
                if not self._authorized():
                    return
                if self.path.startswith(("/v1/files", "/v1/batches")):
                    return self._batches("GET")
                if self.path.rstrip("/").endswith("/v1/models"):
                    return self._send(200, {"object": "list", "data": []})
                self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                if not self._authorized():
                    return
                if self.path.startswith(("/v1/files", "/v1/batches")):
                    return self._batches("POST", raw)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self._send(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
                with fake._lock:
                    fake.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if not self.path.startswith("/v1/chat/completions"):
                    return self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                self._send(*fake.answer(body))

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

            def _send_bytes(self, status: int, data: bytes, content_type: str,
                            headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """A started fake; OPENAI_BASE_URL points at it and a dummy key is set."""
    fake = FakeOpenAI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-real")
    try:
        yield fake
    finally:
        fake.stop()
