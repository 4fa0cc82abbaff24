"""The LLM kit: the one place that talks to the Anthropic Messages API.

What it gives the stages: ``Client.create`` (system prompt, messages with text, image
and tool blocks, tools) returning a plain ``Reply``; one retry policy (kits/retrying, on
429 / 5xx / timeouts / broken connections, honouring ``retry-after``); token and cost
accounting in a ``Ledger`` (per call, per app, per run); and a response cache on disk
so that re-running or re-scoring the same evidence is reproducible and free.

What it must not do: know what a judge or an explorer is, parse a judge's answer, or
import stages. Nothing else in the project imports ``anthropic``.

Caching rule: a reply is cached only when the call is deterministic (temperature 0
without thinking) or when the caller names a ``sample`` index, which becomes part of
the key. Sampled calls without an index are never cached (the same prompt must be
allowed to give a different answer).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import logging
import os
import pathlib
import threading
import time
from typing import Any, Callable, Literal, Mapping, Sequence

import anthropic

from iwcbench.pipeline.kits import retrying

log = logging.getLogger(__name__)

Effort = Literal["low", "medium", "high", "xhigh", "max"]
CACHE_VERSION = "1"  # bump when the cached reply layout changes


class LLMError(RuntimeError):
    """The API could not give an answer (retries exhausted, or a permanent error
    such as a bad request or missing credentials). Callers record it as the reason
    a score is unscored; it never means the app is bad."""


# --------------------------------------------------------------------------- prices

@dataclasses.dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


# Published list prices (USD / million tokens) per model family, matched by the first
# family name found in the model id. Current-generation families; older Opus 4/4.1
# ids are matched first because they cost more. Override with ``Client(prices=...)``
# when a contract price or a newer list applies. Unknown models cost ``None`` (tokens
# are still counted), never a guess.
DEFAULT_PRICES: dict[str, Price] = {
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-0": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-2025": Price(15.0, 75.0, 18.75, 1.50),
    "opus": Price(5.0, 25.0, 6.25, 0.50),
    "sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "haiku": Price(1.0, 5.0, 1.25, 0.10),
}


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    name = model.lower()
    for family, price in prices.items():
        if family in name:
            return price
    return None


# --------------------------------------------------------------------------- replies

@dataclasses.dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def cost(self, price: Price | None) -> float | None:
        if price is None:
            return None
        return (self.input_tokens * price.input + self.output_tokens * price.output
                + self.cache_creation_input_tokens * price.cache_write
                + self.cache_read_input_tokens * price.cache_read) / 1_000_000


@dataclasses.dataclass(frozen=True)
class Reply:
    """One assistant message. ``content`` holds plain dicts in the API's shape:
    ``{"type": "text", "text": ...}`` and ``{"type": "tool_use", "id", "name", "input"}``
    (thinking blocks are kept so tool-use conversations can be continued)."""

    model: str
    content: tuple[dict[str, Any], ...]
    stop_reason: str | None
    usage: Usage
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
                   stop_reason=data.get("stop_reason"), usage=Usage(**data["usage"]),
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


# --------------------------------------------------------------------------- ledger

@dataclasses.dataclass(frozen=True)
class Entry:
    """One call as accounted: ``cached`` calls cost nothing and sent no request."""

    model: str
    purpose: str
    usage: Usage
    cost_usd: float | None
    cached: bool
    attempts: int
    seconds: float


class Ledger:
    """Tokens and dollars, summed. ``scoped(name)`` gives a child (one app) whose
    entries also count in this ledger (the run). Thread-safe: apps run in parallel."""

    def __init__(self, name: str = "run", parent: Ledger | None = None) -> None:
        self.name = name
        self.parent = parent
        self.entries: list[Entry] = []
        self._lock = threading.Lock()

    def scoped(self, name: str) -> Ledger:
        return Ledger(name, parent=self)

    def record(self, entry: Entry) -> None:
        with self._lock:
            self.entries.append(entry)
        if self.parent is not None:
            self.parent.record(entry)

    def totals(self) -> dict[str, Any]:
        with self._lock:
            entries = list(self.entries)
        fresh = [e for e in entries if not e.cached]
        costs = [e.cost_usd for e in fresh]
        by_purpose: dict[str, int] = {}
        for e in entries:
            by_purpose[e.purpose] = by_purpose.get(e.purpose, 0) + 1
        return {
            "calls": len(entries),
            "requests": sum(e.attempts for e in fresh),
            "cache_hits": len(entries) - len(fresh),
            "input_tokens": sum(e.usage.input_tokens for e in fresh),
            "output_tokens": sum(e.usage.output_tokens for e in fresh),
            "cache_read_input_tokens": sum(e.usage.cache_read_input_tokens for e in fresh),
            "cache_creation_input_tokens": sum(e.usage.cache_creation_input_tokens for e in fresh),
            # None as soon as one model had no known price: a partial sum would mislead.
            "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 6),  # type: ignore[arg-type]
            "by_purpose": by_purpose,
        }


# --------------------------------------------------------------------------- client

@dataclasses.dataclass(frozen=True)
class Config:
    """How to call the model. ``temperature`` None leaves the API default (newer
    models accept nothing else); with ``thinking`` on it is always omitted.
    ``effort`` is sent as ``output_config.effort`` when set."""

    model: str
    max_tokens: int = 4096  # tokens per reply
    temperature: float | None = None
    effort: Effort | None = None
    thinking: bool = False  # adaptive thinking
    timeout_s: float = 120.0  # seconds per HTTP request
    max_attempts: int = 5  # per call, first try included
    backoff_initial_s: float = 1.0  # seconds; doubled each retry
    backoff_max_s: float = 60.0  # cap on one wait, retry-after included
    base_url: str | None = None  # default: ANTHROPIC_BASE_URL, then the SDK's default
    cache_dir: str | None = None  # None = no response cache


_RETRY_STATUS = {408, 409, 429}


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, (anthropic.APITimeoutError, anthropic.APIConnectionError)):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    # 200 with a body that is not a Message (a broken proxy, a truncated reply)
    return isinstance(exc, (anthropic.APIResponseValidationError, json.JSONDecodeError))


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue  # an HTTP date: fall back to our own backoff
    return None


class Client:
    """A configured model plus its retry policy, cache and ledger.

    ``sleep`` is injectable so tests can observe waits without waiting.
    """

    def __init__(self, config: Config, *, api_key: str | None = None, ledger: Ledger | None = None,
                 prices: Mapping[str, Price] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 _sdk: anthropic.Anthropic | None = None) -> None:
        self.config = config
        self.ledger = ledger or Ledger()
        self.prices = dict(prices) if prices is not None else dict(DEFAULT_PRICES)
        self._sleep = sleep
        self._api_key = api_key
        base_url = config.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self._sdk = _sdk or anthropic.Anthropic(
            api_key=api_key or os.environ.get("ANTHROPIC_API_KEY") or "missing-api-key",
            base_url=base_url,
            timeout=config.timeout_s,
            max_retries=0,  # kits/retrying is the single retry policy
        )
        self._cache = pathlib.Path(config.cache_dir) if config.cache_dir else None

    def derive(self, ledger: Ledger | None = None, **changes: Any) -> Client:
        """The same connection, cache and prices with other settings (another model,
        another temperature) or another ledger (one app's scope)."""
        reconnect = bool({"base_url", "timeout_s"} & changes.keys())
        return Client(dataclasses.replace(self.config, **changes), api_key=self._api_key,
                      ledger=ledger or self.ledger, prices=self.prices, sleep=self._sleep,
                      _sdk=None if reconnect else self._sdk)

    # ------------------------------------------------------------------ the call

    def create(self, *, system: str, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None,
               tool_choice: Mapping[str, Any] | None = None,
               sample: int | None = None, purpose: str = "",
               max_tokens: int | None = None) -> Reply:
        """Send one request (or answer from the cache). Raises ``LLMError``."""
        cfg = self.config
        temp = cfg.temperature
        params: dict[str, Any] = {
            "model": cfg.model,
            "max_tokens": max_tokens or cfg.max_tokens,
            "system": system,
            "messages": [dict(m) for m in messages],
        }
        if tools:
            params["tools"] = [dict(t) for t in tools]
        if tool_choice:
            params["tool_choice"] = dict(tool_choice)
        if cfg.thinking:
            params["thinking"] = {"type": "adaptive"}
        elif temp is not None:
            # This SDK version no longer types ``temperature``; the API still takes it
            # for models that allow sampling control, so it goes in the body as is.
            params["temperature"] = temp
        if cfg.effort:
            params["output_config"] = {"effort": cfg.effort}

        deterministic = not cfg.thinking and temp == 0
        key = self._key(params, sample) if (deterministic or sample is not None) else None
        cached = self._cache_get(key)
        if cached is not None:
            self.ledger.record(Entry(cfg.model, purpose, cached.usage, 0.0, True, 0, 0.0))
            return cached

        started = time.monotonic()
        attempts = 0

        def once() -> Any:
            nonlocal attempts
            attempts += 1
            body = {k: v for k, v in params.items() if k != "temperature"}
            extra = {"temperature": params["temperature"]} if "temperature" in params else None
            return self._sdk.messages.create(**body, extra_body=extra)

        policy = retrying.Policy(attempts=cfg.max_attempts, initial_wait_s=cfg.backoff_initial_s,
                                 max_wait_s=cfg.backoff_max_s)
        try:
            message = retrying.retrying(policy, _transient, hinted_wait_s=_retry_after, sleep=self._sleep,
                                        what=f"LLM call {purpose or cfg.model}")(once)
        except anthropic.APIStatusError as exc:
            raise LLMError(f"{cfg.model}: HTTP {exc.status_code} after {attempts} attempt(s): "
                           f"{_short(exc)}") from exc
        except (anthropic.AnthropicError, json.JSONDecodeError) as exc:
            raise LLMError(f"{cfg.model}: {type(exc).__name__} after {attempts} attempt(s): "
                           f"{_short(exc)}") from exc

        reply = _to_reply(message, cfg.model)
        cost = reply.usage.cost(price_of(cfg.model, self.prices))
        self.ledger.record(Entry(cfg.model, purpose, reply.usage, cost, False, attempts,
                                 round(time.monotonic() - started, 3)))
        self._cache_put(key, reply)
        return reply

    # ------------------------------------------------------------------ cache

    def cache_secret(self) -> bytes | None:
        """A random secret kept beside the cache (created once, mode 0600), or None
        without a cache. Callers derive prompt fences from it so that fences stay
        unguessable to an app yet identical on a re-run, which lets the cache answer."""
        if self._cache is None:
            return None
        path = self._cache / "fence-secret"
        self._cache.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            for _ in range(50):  # another worker may be writing it right now
                secret = path.read_bytes()
                if len(secret) == 32:
                    return secret
                time.sleep(0.01)
            raise LLMError(f"{path} is damaged; delete it (cached judge replies will be redone)")
        with os.fdopen(fd, "wb") as fh:
            secret = os.urandom(32)
            fh.write(secret)
        return secret

    @staticmethod
    def _key(params: Mapping[str, Any], sample: int | None) -> str:
        blob = json.dumps({"v": CACHE_VERSION, "params": params, "sample": sample},
                          sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _cache_path(self, key: str) -> pathlib.Path:
        assert self._cache is not None
        return self._cache / key[:2] / f"{key}.json"

    def _cache_get(self, key: str | None) -> Reply | None:
        if key is None or self._cache is None:
            return None
        path = self._cache_path(key)
        try:
            return Reply.from_json(json.loads(path.read_text("utf-8")), cached=True)
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a damaged cache entry %s", path)
            return None

    def _cache_put(self, key: str | None, reply: Reply) -> None:
        if key is None or self._cache is None:
            return
        path = self._cache_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(reply.to_json(), ensure_ascii=False), "utf-8")
        os.replace(tmp, path)


def _short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


def _to_reply(message: Any, model: str) -> Reply:
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
    return Reply(
        model=getattr(message, "model", None) or model,
        content=tuple(blocks),
        stop_reason=getattr(message, "stop_reason", None),
        usage=Usage(
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
            cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
            cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
        ),
    )
