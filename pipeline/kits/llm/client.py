"""The client: one configured model behind its wire (kits/llm/wire: the Messages API or
Chat Completions), with the kit's one retry policy (kits/retrying), its token and cost
ledger (kits/llm/accounting), its response cache (kits/llm/responses), prompt-cache
marks where the wire wants them (kits/llm/caching), the batcher of its endpoint
(kits/llm/batches), the routes that send a purpose's calls to another model, and the
model's capabilities (kits/llm/capabilities) applied before anything is sent.

Caching rule: a reply is cached only when the call is deterministic (temperature 0
without thinking) or when the caller names a ``sample`` index, which becomes part of
the key, as do the provider and the endpoint (another server's answer is another
answer). Sampled calls without an index are never cached (the same prompt must be
allowed to give a different answer).
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from typing import Any, Callable, Literal, Mapping, Protocol, Sequence

from iwcbench.pipeline.kits import retrying
from iwcbench.pipeline.kits.llm import (accounting as llm_accounting, caching as llm_caching, capabilities,
                                        chat, messages as messages_wire, providers as llm_providers,
                                        responses as llm_responses, wire)
from iwcbench.pipeline.kits.llm.replies import ItemFailed, LLMError, Reply, short

log = logging.getLogger(__name__)

Effort = Literal["low", "medium", "high", "xhigh", "max"]


@dataclasses.dataclass(frozen=True)
class Config:
    """How to call the model. ``temperature`` None leaves the API default (newer
    models accept nothing else); with ``thinking`` on it is always omitted.
    ``effort`` is sent as ``output_config.effort`` when set. ``models``: the settings'
    ``llm.models``, capabilities by model name (kits/llm/capabilities)."""

    model: str
    max_tokens: int = 4096  # tokens per reply, at most (a call may ask for fewer)
    temperature: float | None = None
    effort: Effort | None = None
    thinking: bool = False  # adaptive thinking (the Messages API's)
    timeout_s: float = 120.0  # seconds per HTTP request
    max_attempts: int = 5  # per call, first try included
    backoff_initial_s: float = 1.0  # seconds; doubled each retry
    backoff_max_s: float = 60.0  # cap on one wait, retry-after included
    base_url: str | None = None  # default: the provider's variable (ANTHROPIC_BASE_URL, ...), then its default
    cache_dir: str | None = None  # None = no response cache
    prompt_caching: bool = True  # cache_control breakpoints on prompts the caller will reuse
    models: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)


def wire_for(target: llm_providers.Target, timeout_s: float) -> wire.Wire:
    """The wire that speaks ``target``'s API: the one place the API is branched on."""
    if target.provider.api == "openai":
        return chat.ChatCompletions(target, timeout_s)
    return messages_wire.Messages(target, timeout_s)


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
    line = wire_for(target, timeout_s)
    try:
        line.reach()
    except Exception as exc:  # noqa: BLE001 - sorted below; anything else means it answered
        if line.unreachable(exc):
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
    (kits/llm/batch_lanes.Batchers; a lone Batcher serves its own endpoint only)."""

    def lane(self, client: Client) -> Batched | None: ...


class Client:
    """A configured model plus its wire, retry policy, caches and ledger.

    ``sleep`` is injectable so tests can observe waits without waiting.
    """

    def __init__(self, config: Config, *, api_key: str | None = None,
                 ledger: llm_accounting.Ledger | None = None,
                 prices: Mapping[str, llm_accounting.Price] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 _wire: wire.Wire | None = None, _batcher: Batching | None = None,
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
        self.wire: wire.Wire = _wire or wire_for(self.target, config.timeout_s)
        self.capabilities = capabilities.of(config.model, config.models)
        self._cache = llm_responses.ResponseCache(config.cache_dir) if config.cache_dir else None
        self._batching = _batcher
        self._batcher = _batcher.lane(self) if _batcher is not None else None
        self._routes = dict(_routes or {})

    def _again(self, config: Config | None = None, ledger: llm_accounting.Ledger | None = None,
               reconnect: bool = False, batcher: Batching | None | Literal["same"] = "same",
               routes: Mapping[str, Client] | None = None) -> Client:
        return Client(config or self.config, api_key=self._api_key, ledger=ledger or self.ledger, prices=self.prices,
                      sleep=self.sleep, _wire=None if reconnect else self.wire,
                      _batcher=self._batching if batcher == "same" else batcher,
                      _routes=self._routes if routes is None else routes)

    def derive(self, ledger: llm_accounting.Ledger | None = None, **changes: Any) -> Client:
        """The same connection, caches, prices and batching with other settings (another
        model, another temperature) or another ledger (one app's scope)."""
        reconnect = bool({"base_url", "timeout_s"} & changes.keys()) or (
            "model" in changes and llm_providers.split(changes["model"])[0] != self.target.provider.name)
        # a route keeps its own model and endpoint; everything else (the ledger, a temperature) follows
        follow = {k: v for k, v in changes.items() if k not in ("model", "base_url")}
        return self._again(dataclasses.replace(self.config, **changes), ledger, reconnect,
                           routes={p: c.derive(ledger=ledger, **follow) for p, c in self._routes.items()})

    def batched(self, batcher: Batching | None) -> Client:
        """This client sending through its endpoint's batcher of ``batcher`` (None:
        interactive again); so do its routes, each through its own endpoint's."""
        return self._again(batcher=batcher, routes={p: c.batched(batcher) for p, c in self._routes.items()})

    def routed(self, routes: Mapping[str, Client]) -> Client:
        """This client, with the calls whose ``purpose`` is a route's name or starts with
        it and a dot (``aesthetics`` takes ``aesthetics.judge``; the longest name wins)
        sent through that route's client: one model per purpose, chosen by the caller,
        unseen by the stage that makes the call."""
        return self._again(routes={**self._routes, **{p: c.derive(ledger=self.ledger) for p, c in routes.items()}})

    def route(self, purpose: str) -> Client:
        """The client that serves calls made for ``purpose``."""
        names = [p for p in self._routes if purpose == p or purpose.startswith(p + ".")]
        return self._routes[max(names, key=len)] if names else self

    def model_for(self, purpose: str) -> str:
        return self.route(purpose).config.model

    def forcing(self, tool: str | None = None, purpose: str = "") -> dict[str, Any] | None:
        """The ``tool_choice`` that makes ``purpose``'s model call ``tool`` (None: any of
        the tools given), or None where its API does not allow forcing one now."""
        route = self.route(purpose)
        return route.wire.forcing(route.config, tool)

    def blind(self, purpose: str) -> str | None:
        """Why ``purpose``'s model cannot see a screenshot (None: it can). A caller whose
        judgement rests on pictures leaves its score unscored with this reason rather
        than send a call whose pictures would become lines of text."""
        route = self.route(purpose)
        if route.capabilities.images:
            return None
        return (f"{route.config.model} reads no images (llm.models.{route.config.model}.images, or its family's "
                "default in kits/llm/capabilities)")

    @property
    def is_batched(self) -> bool:
        return self._batcher is not None

    # ------------------------------------------------------------------ the call

    def create(self, *, system: str, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None,
               tool_choice: Mapping[str, Any] | None = None,
               sample: int | None = None, purpose: str = "",
               max_tokens: int | None = None, reuse: bool = False, changing_tail: int = 0) -> Reply:
        """Send one request (or answer from the cache). Raises ``LLMError``.
        ``reuse``: this prompt, or a longer one starting with it, will be sent again
        (the next turn, another sample): mark it for the API's prompt cache.
        ``changing_tail``: the last message's last blocks that go with this call only
        (the UI-test agent's caption and screenshot): the prompt cache entry this call
        writes ends before them, so that the next call reads all of it."""
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
        params = self._fitted(params)
        marked = cfg.prompt_caching and reuse and self.wire.marks_prompts
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
        """The request body, before prompt-cache marks, with what the model cannot
        read taken out: pictures for a text-only model become a line saying so."""
        cfg, caps = self.config, self.capabilities
        if tools and not caps.tools:
            raise LLMError(f"{cfg.model} cannot call tools (llm.models.{cfg.model}.tools is false); "
                           "this purpose needs a model that can")
        turns = [dict(m) for m in messages]
        if not caps.images and capabilities.images_in(turns):
            turns = capabilities.without_images(turns, cfg.model)
        params: dict[str, Any] = {
            "model": self.target.model,
            "max_tokens": min(max_tokens, cfg.max_tokens) if max_tokens else cfg.max_tokens,  # the config caps
            "system": system,
            "messages": turns,
        }
        if tools:
            params["tools"] = [dict(t) for t in tools]
        if tool_choice:
            params["tool_choice"] = dict(tool_choice)
        params.update(self.wire.options(cfg))
        if cfg.effort:
            params["output_config"] = {"effort": cfg.effort}
        return params

    def _fitted(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` with its answer's room cut to what the context window leaves;
        ``LLMError`` when the prompt itself does not fit."""
        window = self.capabilities.context_tokens
        prompt = capabilities.prompt_tokens(params)
        room = window - prompt
        if room < min(256, params["max_tokens"]):
            raise LLMError(f"{self.config.model}: the prompt (about {prompt:,} tokens) does not fit the model's "
                           f"context window of {window:,} tokens (llm.models.{self.config.model}.context_tokens); "
                           "use a model with a larger window")
        return params if room >= params["max_tokens"] else {**params, "max_tokens": room}

    def _send(self, params: Mapping[str, Any], purpose: str) -> tuple[Reply, int]:
        """One interactive request with the retry policy: (reply, attempts)."""
        cfg = self.config
        attempts = 0

        def once() -> Reply:
            nonlocal attempts
            attempts += 1
            return self.wire.send(params, cfg.model)

        policy = retrying.Policy(attempts=cfg.max_attempts, initial_wait_s=cfg.backoff_initial_s,
                                 max_wait_s=cfg.backoff_max_s)
        try:
            reply = retrying.retrying(policy, self.wire.transient, hinted_wait_s=wire.retry_after, sleep=self.sleep,
                                      what=f"LLM call {purpose or cfg.model}")(once)
        except self.wire.errors() as exc:
            status = getattr(exc, "status_code", None)
            what = f"HTTP {status}" if isinstance(status, int) else type(exc).__name__
            if status == 400 and "context" in str(exc).lower():
                what += (f" (the prompt does not fit the model's context window; llm.models.{cfg.model}."
                         "context_tokens says how large it is)")
            raise LLMError(f"{cfg.model}: {what} after {attempts} attempt(s): {short(exc)}{_body(exc)}") from exc
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


def _body(exc: BaseException) -> str:
    """What the server said in its reply's body, when the error's message leaves it out
    (a 500 from a server whose body is not the API's JSON error)."""
    response = getattr(exc, "response", None)
    try:
        text = " ".join(str(getattr(response, "text", "") or "").split())
    except Exception:  # noqa: BLE001 - a body that cannot be read adds nothing to the reason
        return ""
    return f" (the server said: {text[:200]})" if text and text[:60] not in str(exc) else ""
