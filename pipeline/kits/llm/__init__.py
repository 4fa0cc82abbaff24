"""The LLM kit: the one place that talks to a model, through one narrow interface.

What it gives the stages: ``Client.create`` (system prompt, messages with text, image
and tool blocks, tools, a forced tool choice) returning a plain ``Reply``, whichever
provider serves the model. A model is named ``provider/model`` (kits/llm/providers; a
bare name is Anthropic's): Anthropic's models go to the Messages API (this module),
every other provider's to an OpenAI-compatible Chat Completions endpoint
(kits/llm/chat, which translates the request and the reply). Stages never learn
which; a client may route each call ``purpose`` to another model (``routed``). With it:
one retry policy (kits/retrying, on 429 / 5xx / timeouts / broken connections,
honouring ``retry-after``); token and cost
accounting in a ``Ledger`` (kits/llm/accounting: per call, per app, per run, priced as
the API bills cache writes, cache reads and batches), optionally held to a ``Budget``;
and a response cache
on disk so that re-running or re-scoring the same evidence is reproducible and free.

Prompt caching: a caller that will send a prompt again (``create(reuse=True)``: the
next turn of a conversation, the next sample of a judge) gets ``cache_control``
breakpoints on it (kits/llm/caching); the content sent is the same either way.
Batching: a client made with ``batched(batchers)`` hands its requests to the
kits/llm/batches ``Batcher`` of its endpoint (Anthropic's Message Batches, or OpenAI's
batch API where the endpoint serves it: half price) instead of sending them itself;
everything else about the call is the same.

What it must not do: know what a judge or an explorer is, parse a judge's answer, or
import stages. Nothing else in the project imports ``anthropic`` (and kits/llm/chat
alone imports ``openai``).

Caching rule: a reply is cached only when the call is deterministic (temperature 0
without thinking) or when the caller names a ``sample`` index, which becomes part of
the key, as do the provider and the endpoint (another server's answer is another
answer). Sampled calls without an index are never cached (the same prompt must be
allowed to give a different answer).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import time
import uuid
from typing import Any, Callable, Literal, Mapping, Protocol, Sequence

from iwcbench.pipeline.kits import retrying
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, caching as llm_caching, chat as llm_openai, providers as llm_providers, responses as llm_responses

log = logging.getLogger(__name__)

Effort = Literal["low", "medium", "high", "xhigh", "max"]


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


# --------------------------------------------------------------------------- replies

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
    base_url: str | None = None  # default: the provider's variable (ANTHROPIC_BASE_URL, ...), then its default
    cache_dir: str | None = None  # None = no response cache
    prompt_caching: bool = True  # cache_control breakpoints on prompts the caller will reuse


_RETRY_STATUS = {408, 409, 429}


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
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    # 200 with a body that is not a Message (a broken proxy, a truncated reply)
    return isinstance(exc, (sdk().APIResponseValidationError, json.JSONDecodeError))


def retry_after(exc: BaseException) -> float | None:
    """The wait the API asked for (``retry-after-ms`` / ``retry-after``), in seconds."""
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


def api_key_missing(model: str = "anthropic/any", api_key: str | None = None) -> bool:
    """``model``'s provider needs a key and none was given nor is in its variable
    (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...): every call would be refused (401)."""
    try:
        target = llm_providers.resolve(model, api_key=api_key)
    except llm_providers.ModelProblem:
        return False  # a bad name is reported as such, not as a missing key
    return target.provider.key_required and not target.api_key


def check(model: str, base_url: str | None = None, timeout_s: float = 10.0) -> None:
    """Raise ``llm_providers.ModelProblem`` when ``model`` cannot be called: a bad
    name, no key, no endpoint, an endpoint that does not answer or refuses the key.
    Asks the endpoint for its list of models (free), never for a completion."""
    target = llm_providers.resolve(model, base_url)
    missing = target.problems()
    if missing:
        raise llm_providers.ModelProblem("; ".join(missing))
    where = target.base_url or "the Anthropic API"
    try:
        if target.provider.api == "openai":
            llm_openai.ChatCompletions(target, timeout_s).reach()
        else:
            sdk().Anthropic(api_key=target.api_key, base_url=target.base_url, timeout=timeout_s,
                            max_retries=0).models.list()
    except Exception as exc:  # noqa: BLE001 - sorted below; anything else means it answered
        if isinstance(exc, (llm_openai.sdk().APIConnectionError, sdk().APIConnectionError)):
            raise llm_providers.ModelProblem(f"{target.name}: {where} does not answer ({short(exc, 120)})") from None
        status = getattr(exc, "status_code", None)
        if status in (401, 403):
            raise llm_providers.ModelProblem(f"{target.name}: {where} refused the API key (HTTP {status}): set "
                                             f"{' or '.join(target.provider.key_env)}") from None


class Batched(Protocol):
    """Where a batched client's requests go (kits/llm/batches.Batcher: one endpoint's)."""

    def submit(self, custom_id: str, params: dict[str, Any]) -> tuple[Reply, bool]: ...

    def collected(self, custom_id: str) -> Reply | None: ...


class Batching(Protocol):
    """What ``Client.batched`` takes: the batcher of each client's endpoint, or None
    (kits/llm/batches.Batchers; a lone Batcher serves its own endpoint only)."""

    def lane(self, client: Client) -> Batched | None: ...


class Client:
    """A configured model plus its retry policy, caches and ledger.

    ``sleep`` is injectable so tests can observe waits without waiting.
    """

    def __init__(self, config: Config, *, api_key: str | None = None,
                 ledger: llm_accounting.Ledger | None = None,
                 prices: Mapping[str, llm_accounting.Price] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 _sdk: Any = None, _batcher: Batching | None = None,
                 _routes: Mapping[str, Client] | None = None) -> None:
        self.config = config
        self.ledger = ledger or llm_accounting.Ledger()
        self.prices = dict(prices) if prices is not None else dict(llm_accounting.DEFAULT_PRICES)
        self.sleep = sleep
        self._api_key = api_key
        try:
            self.target = llm_providers.resolve(config.model, config.base_url, api_key)
        except llm_providers.ModelProblem as exc:
            raise LLMError(str(exc)) from None
        self._chat: llm_openai.ChatCompletions | None = None
        self._sdk: Any = None
        if self.target.provider.api == "openai":
            self._chat = _sdk or llm_openai.ChatCompletions(self.target, config.timeout_s)
        else:
            self._sdk = _sdk or sdk().Anthropic(
                api_key=self.target.api_key or "missing-api-key",
                base_url=self.target.base_url,
                timeout=config.timeout_s,
                max_retries=0,  # kits/retrying is the single retry policy
            )
        self._cache = llm_responses.ResponseCache(config.cache_dir) if config.cache_dir else None
        self._batching = _batcher
        self._batcher = _batcher.lane(self) if _batcher is not None else None
        self._routes = dict(_routes or {})

    def derive(self, ledger: llm_accounting.Ledger | None = None, **changes: Any) -> Client:
        """The same connection, caches, prices and batching with other settings (another
        model, another temperature) or another ledger (one app's scope)."""
        reconnect = bool({"base_url", "timeout_s"} & changes.keys()) or (
            "model" in changes and llm_providers.split(changes["model"])[0] != self.target.provider.name)
        # a route keeps its own model and endpoint; everything else (the ledger, a temperature) follows
        follow = {k: v for k, v in changes.items() if k not in ("model", "base_url")}
        return Client(dataclasses.replace(self.config, **changes), api_key=self._api_key,
                      ledger=ledger or self.ledger, prices=self.prices, sleep=self.sleep,
                      _sdk=None if reconnect else self._chat or self._sdk, _batcher=self._batching,
                      _routes={p: c.derive(ledger=ledger, **follow) for p, c in self._routes.items()})

    def batched(self, batcher: Batching | None) -> Client:
        """This client sending through its endpoint's batcher of ``batcher`` (None:
        interactive again); so do its routes, each through its own endpoint's."""
        return Client(self.config, api_key=self._api_key, ledger=self.ledger, prices=self.prices,
                      sleep=self.sleep, _sdk=self._chat or self._sdk, _batcher=batcher,
                      _routes={p: c.batched(batcher) for p, c in self._routes.items()})

    def routed(self, routes: Mapping[str, Client]) -> Client:
        """This client, with the calls whose ``purpose`` is a route's name or starts with
        it and a dot (``aesthetics`` takes ``aesthetics.judge``; the longest name wins)
        sent through that route's client: one model per purpose, chosen by the caller,
        unseen by the stage that makes the call."""
        return Client(self.config, api_key=self._api_key, ledger=self.ledger, prices=self.prices,
                      sleep=self.sleep, _sdk=self._chat or self._sdk, _batcher=self._batching,
                      _routes={**self._routes, **{p: c.derive(ledger=self.ledger) for p, c in routes.items()}})

    def route(self, purpose: str) -> Client:
        """The client that serves calls made for ``purpose``."""
        names = [p for p in self._routes if purpose == p or purpose.startswith(p + ".")]
        return self._routes[max(names, key=len)] if names else self

    def model_for(self, purpose: str) -> str:
        return self.route(purpose).config.model

    @property
    def is_batched(self) -> bool:
        return self._batcher is not None

    def batches_api(self) -> Any:
        """What kits/llm/batches sends batches through: the SDK's Message Batches
        resource, or the endpoint's Chat Completions (kits/llm/chat.ChatCompletions)."""
        return self._chat if self._chat is not None else self._sdk.messages.batches

    # ------------------------------------------------------------------ the call

    def create(self, *, system: str, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None,
               tool_choice: Mapping[str, Any] | None = None,
               sample: int | None = None, purpose: str = "",
               max_tokens: int | None = None, reuse: bool = False, changing_tail: int = 0) -> Reply:
        """Send one request (or answer from the cache). Raises ``LLMError``.
        ``reuse``: this prompt, or a longer one starting with it, will be sent again
        (the next turn, another sample): mark it for the API's prompt cache.
        ``changing_tail``: the last message's last blocks that the next call will not
        send as they are (a screenshot that becomes a line of text): the prompt cache
        entry this call writes ends before them, so that the next call reads all of it."""
        route = self.route(purpose)
        if route is not self:
            return route.create(system=system, messages=messages, tools=tools, tool_choice=tool_choice,
                                sample=sample, purpose=purpose, max_tokens=max_tokens, reuse=reuse,
                                changing_tail=changing_tail)
        cfg = self.config
        params = self._params(system, messages, tools, tool_choice, max_tokens)
        # the key is the call's content, before its packaging: caching on or off, the same key
        deterministic = not cfg.thinking and cfg.temperature == 0
        key = (llm_responses.ResponseCache.key(params, sample, self.target.endpoint)
               if (deterministic or sample is not None) else None)
        started = time.monotonic()
        # a batch this process collected (one an earlier run submitted, say) is paid for here,
        # even though its reply is in the response cache already
        collected = self._batcher.collected(key) if self._batcher is not None and key is not None else None
        cached = self._cache_get(key) if collected is None else None
        if cached is not None:
            self.ledger.record(llm_accounting.Entry(cfg.model, purpose, cached.usage, 0.0, True, 0, 0.0))
            return cached

        # Chat Completions servers cache prefixes by themselves: nothing to mark
        marked = cfg.prompt_caching and reuse and self._chat is None
        reply = None
        if collected is not None:
            reply, attempts, batched = collected, 1, True
        elif self._batcher is not None:
            # a batch may wait longer than 5 minutes between rounds: 1-hour entries
            body = llm_caching.mark(params, "1h", changing_tail) if marked else params
            try:
                reply, paid = self._batcher.submit(key or f"u{uuid.uuid4().hex}", body)
                attempts, batched = 1, True
                if not paid:  # the same request, asked by another thread at the same time
                    self.ledger.record(llm_accounting.Entry(cfg.model, purpose, reply.usage, 0.0, True, 0, 0.0))
                    return dataclasses.replace(reply, cached=True)
            except ItemFailed as exc:
                log.info("LLM call %s: %s; sending it on its own", purpose or cfg.model, exc)
        if reply is None:
            body = llm_caching.mark(params, tail=changing_tail) if marked else params
            reply, attempts = self._send(body, purpose)
            batched = False
        cost = reply.usage.cost(llm_accounting.price_of(cfg.model, self.prices), batched)
        self.ledger.record(llm_accounting.Entry(cfg.model, purpose, reply.usage, cost, False, attempts,
                                                round(time.monotonic() - started, 3), batched))
        self.response_cache_put(key, reply)
        return reply

    def _params(self, system: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
                tool_choice: Mapping[str, Any] | None, max_tokens: int | None) -> dict[str, Any]:
        """The request body, before prompt-cache marks."""
        cfg = self.config
        params: dict[str, Any] = {
            "model": self.target.model,
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
        elif cfg.temperature is not None:
            # This SDK version no longer types ``temperature``; the API still takes it
            # for models that allow sampling control, so it goes in the body as is.
            params["temperature"] = cfg.temperature
        if cfg.effort:
            params["output_config"] = {"effort": cfg.effort}
        return params

    def _send(self, params: Mapping[str, Any], purpose: str) -> tuple[Reply, int]:
        """One interactive request with the retry policy: (reply, attempts)."""
        cfg = self.config
        attempts = 0
        chat = self._chat

        def once() -> Reply:
            nonlocal attempts
            attempts += 1
            if chat is not None:
                model, content, stop, usage = chat.send(params)
                return Reply(model=model or cfg.model, content=tuple(content), stop_reason=stop, usage=usage)
            body = {k: v for k, v in params.items() if k != "temperature"}
            extra = {"temperature": params["temperature"]} if "temperature" in params else None
            return reply_of(self._sdk.messages.create(**body, extra_body=extra), cfg.model)

        policy = retrying.Policy(attempts=cfg.max_attempts, initial_wait_s=cfg.backoff_initial_s,
                                 max_wait_s=cfg.backoff_max_s)
        worth_retrying = llm_openai.transient if chat is not None else transient
        failures = chat.errors() if chat is not None else (sdk().AnthropicError, json.JSONDecodeError)
        try:
            reply = retrying.retrying(policy, worth_retrying, hinted_wait_s=retry_after, sleep=self.sleep,
                                      what=f"LLM call {purpose or cfg.model}")(once)
        except failures as exc:
            status = getattr(exc, "status_code", None)
            what = f"HTTP {status}" if isinstance(status, int) else type(exc).__name__
            raise LLMError(f"{cfg.model}: {what} after {attempts} attempt(s): {short(exc)}") from exc
        return reply, attempts

    # ------------------------------------------------------------------ response cache

    def cache_secret(self) -> bytes | None:
        """A random secret kept beside the cache (created once, mode 0600), or None
        without a cache. Callers derive prompt fences from it so that fences stay
        unguessable to an app yet identical on a re-run, which lets the cache answer."""
        if self._cache is None:
            return None
        try:
            return self._cache.secret()
        except llm_responses.DamagedSecret as exc:
            raise LLMError(str(exc)) from exc

    def _cache_get(self, key: str | None) -> Reply | None:
        if key is None or self._cache is None:
            return None
        data = self._cache.get(key)
        try:
            return Reply.from_json(data, cached=True) if data is not None else None
        except (KeyError, TypeError):
            log.warning("ignoring a damaged cache entry %s", key)
            return None

    def response_cache_put(self, key: str | None, reply: Reply) -> None:
        """Keep ``reply`` as the answer to the call hashed to ``key`` (no-op without a cache)."""
        if key is not None and self._cache is not None:
            self._cache.put(key, reply.to_json())


def short(exc: BaseException, limit: int = 300) -> str:
    """An exception's message on one line, cut to ``limit`` characters."""
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


def reply_of(message: Any, model: str) -> Reply:
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
    return Reply(
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
