"""What LLM calls cost: list prices per model family (``Price``, ``DEFAULT_PRICES``),
the tokens of one reply as the API reports them (``Usage``, priced as the API bills
cache writes, cache reads and batches), and the sums: one ``Entry`` per call in a
``Ledger`` (per app, per run), optionally charged to a shared ``Budget``.

Pure bookkeeping: it sends nothing and knows no client (kits/llm/client records into it).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Mapping

from iwcbench.pipeline.kits.llm import providers


# --------------------------------------------------------------------------- prices

BATCH_DISCOUNT = 0.5  # Message Batches and OpenAI's batch API bill every token kind at half the list price

@dataclasses.dataclass(frozen=True)
class Price:
    """US dollars per million tokens. ``cache_write`` is a 5-minute cache entry (1.25×
    input at list prices), ``cache_write_1h`` a 1-hour one (2× input when unset).
    ``batch_share`` is the share of all that a call answered through the provider's batch
    API pays (Anthropic's Message Batches and OpenAI's batch API: half); None when no
    batch discount is known, and such a call is priced at the list price."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    cache_write_1h: float | None = None
    batch_share: float | None = BATCH_DISCOUNT

    @property
    def write_1h(self) -> float:
        return self.cache_write_1h if self.cache_write_1h is not None else 2 * self.input


# Published list prices (USD / million tokens) per model family, matched by the first
# family name found in the model id of the same provider: a key without a provider is
# Anthropic's (``opus``), others are ``provider/family`` (``openai/gpt-4o``). More
# specific families come first (older Opus 4/4.1 ids cost more; ``gpt-4o-mini`` before
# ``gpt-4o``). OpenAI-compatible providers bill cached prompt tokens at their cached-input
# price and charge nothing extra for writing them (``cache_write`` = input). Batches cost half
# (Anthropic, OpenAI, Gemini); xAI's batch API is its own, not OpenAI's, so grok/ lists no
# batch discount. Override with
# ``Client(prices=...)`` when a contract price or a newer list applies. Unknown models —
# any model on a self-hosted server (vllm/, ollama/, ...), or a family not listed — cost
# ``None``: their tokens are counted and reported with "no price", never as $0.
DEFAULT_PRICES: dict[str, Price] = {
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-0": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-2025": Price(15.0, 75.0, 18.75, 1.50),
    "opus": Price(5.0, 25.0, 6.25, 0.50),
    "sonnet": Price(3.0, 15.0, 3.75, 0.30),
    "haiku": Price(1.0, 5.0, 1.25, 0.10),
    "openai/gpt-4o-mini": Price(0.15, 0.60, 0.15, 0.075),
    "openai/gpt-4o": Price(2.50, 10.0, 2.50, 1.25),
    "openai/gpt-4.1-nano": Price(0.10, 0.40, 0.10, 0.025),
    "openai/gpt-4.1-mini": Price(0.40, 1.60, 0.40, 0.10),
    "openai/gpt-4.1": Price(2.0, 8.0, 2.0, 0.50),
    "openai/gpt-5-nano": Price(0.05, 0.40, 0.05, 0.005),
    "openai/gpt-5-mini": Price(0.25, 2.0, 0.25, 0.025),
    "openai/gpt-5-chat": Price(1.25, 10.0, 1.25, 0.125),
    "openai/gpt-5-2025": Price(1.25, 10.0, 1.25, 0.125),
    "google/gemini-2.5-flash-lite": Price(0.10, 0.40, 0.10, 0.025),
    "google/gemini-2.5-flash": Price(0.30, 2.50, 0.30, 0.075),
    "google/gemini-2.5-pro": Price(1.25, 10.0, 1.25, 0.31),
    "grok/grok-4": Price(3.0, 15.0, 3.0, 0.75, batch_share=None),
}


def batched_share(price: Price) -> float:
    """The share of the list price a batched call pays (1.0: no batch discount known)."""
    return price.batch_share if price.batch_share is not None else 1.0


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of ``model`` (``provider/model`` or a bare Anthropic name), None when
    its provider lists no family it belongs to."""
    try:
        provider, name = providers.split(model.lower())
    except providers.ModelProblem:
        return None
    for family, price in prices.items():
        try:
            owner, tail = providers.split(family.lower())  # a bare family is Anthropic's, as a bare model is
        except providers.ModelProblem:
            continue
        if owner == provider and tail in name:
            return price
    return None


# --------------------------------------------------------------------------- usage

@dataclasses.dataclass(frozen=True)
class Usage:
    """Tokens as the API reports them: ``input_tokens`` is only the part neither read
    from nor written to the prompt cache; ``cache_creation_1h_input_tokens`` is the part
    of the writes that went to 1-hour entries."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def cost(self, price: Price | None, batched: bool = False) -> float | None:
        if price is None:
            return None
        writes_5m = self.cache_creation_input_tokens - self.cache_creation_1h_input_tokens
        dollars = (self.input_tokens * price.input + self.output_tokens * price.output
                   + writes_5m * price.cache_write + self.cache_creation_1h_input_tokens * price.write_1h
                   + self.cache_read_input_tokens * price.cache_read) / 1_000_000
        return dollars * batched_share(price) if batched else dollars


# --------------------------------------------------------------------------- ledger

@dataclasses.dataclass(frozen=True)
class Entry:
    """One call as accounted: ``cached`` calls cost nothing and sent no request;
    ``batched`` ones went through a batch API (Message Batches or OpenAI's: half price)."""

    model: str
    purpose: str
    usage: Usage
    cost_usd: float | None
    cached: bool
    attempts: int
    seconds: float
    batched: bool = False


class _Counter:
    """A float with a lock, shaped like ``multiprocessing.Value("d")``."""

    def __init__(self) -> None:
        self.value = 0.0
        self._lock = threading.Lock()

    def get_lock(self) -> threading.Lock:
        return self._lock


class Budget:
    """A spending limit in US dollars shared by the ledgers of a run. ``counter`` may be
    a ``multiprocessing.Value("d")`` so that worker processes spend from one purse.
    ``reached`` tells callers to start no new work; calls already under way finish."""

    def __init__(self, limit_usd: float | None, counter: Any = None) -> None:
        self.limit_usd = limit_usd
        self._counter = counter if counter is not None else _Counter()

    def charge(self, usd: float) -> None:
        with self._counter.get_lock():
            self._counter.value += usd

    def spent(self) -> float:
        return float(self._counter.value)

    def reached(self) -> bool:
        return self.limit_usd is not None and self.spent() >= self.limit_usd


class Ledger:
    """Tokens and dollars, summed. ``scoped(name)`` gives a child (one app) whose
    entries also count in this ledger (the run). A root ledger charges its ``budget``.
    Thread-safe: apps run in parallel."""

    def __init__(self, name: str = "run", parent: Ledger | None = None, budget: Budget | None = None) -> None:
        self.name = name
        self.parent = parent
        self.budget = budget
        self.entries: list[Entry] = []
        self._lock = threading.Lock()

    def scoped(self, name: str) -> Ledger:
        return Ledger(name, parent=self)

    def record(self, entry: Entry) -> None:
        with self._lock:
            self.entries.append(entry)
        if self.parent is not None:
            self.parent.record(entry)
        elif self.budget is not None and entry.cost_usd:
            self.budget.charge(entry.cost_usd)

    def totals(self) -> dict[str, Any]:
        with self._lock:
            entries = list(self.entries)
        by_purpose: dict[str, int] = {}
        groups: dict[str, list[Entry]] = {}
        for e in entries:
            by_purpose[e.purpose] = by_purpose.get(e.purpose, 0) + 1
            groups.setdefault(e.purpose or "other", []).append(e)
        return {**_sums(entries), "by_purpose": by_purpose,
                "purposes": {name: _sums(group) for name, group in sorted(groups.items())}}


def _sums(entries: list[Entry]) -> dict[str, Any]:
    fresh = [e for e in entries if not e.cached]
    costs = [e.cost_usd for e in fresh]
    return {
        "calls": len(entries),
        "requests": sum(e.attempts for e in fresh),
        "cache_hits": len(entries) - len(fresh),
        "batched_calls": sum(1 for e in fresh if e.batched),
        "input_tokens": sum(e.usage.input_tokens for e in fresh),
        "output_tokens": sum(e.usage.output_tokens for e in fresh),
        "cache_read_input_tokens": sum(e.usage.cache_read_input_tokens for e in fresh),
        "cache_creation_input_tokens": sum(e.usage.cache_creation_input_tokens for e in fresh),
        # None as soon as one model had no known price: a partial sum would mislead.
        "cost_usd": None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6),
    }
