"""Batch APIs behind ``llm.Client.create``: half price, answers within 24 hours.

Two wires, one behaviour: Anthropic's Message Batches (kits/llm/message_batches) and
OpenAI's batch API (kits/llm/chat_batches), used where an OpenAI-compatible endpoint
serves it; one that does not (vLLM, Ollama: HTTP 404) has its requests sent one by one,
with the reason logged once, and the run goes on. ``Batchers`` (kits/llm/batch_lanes) keeps
one ``Batcher`` per endpoint, made when a client first sends through it, all journaling
into one ``Journal``.

A ``Batcher`` collects the requests that many threads make through batched clients
(``client.batched(batcher)``): each ``create`` blocks while the batcher gathers what the
other threads ask, sends it as one batch once no new request has come for
``quiet_s`` (or the oldest has waited ``collect_max_s``), polls with a doubling wait,
and hands every thread its own reply. A judge that talks in rounds (advocate → critic →
five final judges) therefore works unchanged, one batch round per round.

Nothing is sent twice: every submitted batch is written to the ``Journal`` (the run's
store) with the ids of its requests and its endpoint, and a request's id is its response-cache key
(kits/llm), so after an interruption a new batcher finds the batch a request is already
in and waits for it; results are written to the response cache as soon as a batch has
ended, so what came back is never paid for again. An item that comes back errored,
expired or canceled is retried on its own through the interactive API, bounded by the
client's retry policy (``llm.ItemFailed``); a bad request fails at once. Past
``wait_s`` the batcher stops waiting: what has not ended stays in the journal for a
later run to collect (``StillPending``).

What it must not do: decide which calls may be batched (the caller hands batched clients
only to non-interactive work) or parse what a reply means.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import json
import logging
import re
import threading
import time
from typing import Any, Callable, Protocol

from iwcbench.pipeline.kits import llm, retrying
from iwcbench.pipeline.kits.llm import message_batches as llm_message_batches

log = logging.getLogger(__name__)

MAX_BYTES = llm_message_batches.MAX_BYTES
_KEY = re.compile(r"^[0-9a-f]{64}$")  # a response-cache key (sha256 hex)


class Api(Protocol):
    """One endpoint's batch API, for the ``Batcher`` (kits/llm/message_batches.MessageBatches,
    kits/llm/chat_batches.Batches)."""

    kind: str  # what a batch is called in the log
    endpoint: str  # the journal records each batch's
    falls_back: bool  # a batch that cannot be made sends its requests on their own (else: they fail)
    max_requests: int
    max_bytes: int

    def group(self, params: dict[str, Any]) -> str: ...  # requests of one batch share it

    def failures(self) -> tuple[type[BaseException], ...]: ...

    def transient(self, exc: BaseException) -> bool: ...

    def create(self, requests: list[tuple[str, dict[str, Any]]]) -> str: ...  # the batch's id

    def results(self, batch_id: str, custom_ids: list[str]) -> tuple[dict[str, tuple[str, Any]], dict[str, int]] | None:
        ...  # (outcome by custom_id, counts) once ended, else None; raises llm.BatchGone


def api_for(client: llm.Client) -> Api:
    """The batch API of ``client``'s endpoint."""
    return client.wire.batches()


class StillPending(llm.LLMError):
    """The batch holding this request had not ended within ``wait_s``; it stays in the
    journal and a later run collects it."""


class Journal(Protocol):
    """Where submitted batches are kept between runs (a JSON object by batch id)."""

    def load(self) -> dict[str, Any]: ...

    def save(self, data: dict[str, Any]) -> None: ...


class MemoryJournal:
    """A journal that lives as long as the process (tests, and runs without a store)."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data = dict(data or {})

    def load(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.data))

    def save(self, data: dict[str, Any]) -> None:
        self.data = json.loads(json.dumps(data))


@dataclasses.dataclass(frozen=True)
class Timing:
    poll_s: float = 10.0  # seconds before the first look at a batch; doubled each look
    poll_max_s: float = 120.0  # longest wait between two looks
    wait_s: float = 90_000.0  # give up waiting after this long (batches expire after 24 h)
    quiet_s: float = 2.0  # send once no new request arrived for this long...
    collect_max_s: float = 60.0  # ...or once the oldest request has waited this long
    max_requests: int = 10_000  # per batch (the API takes up to 100,000)
    max_bytes: int = MAX_BYTES  # per batch, JSON size of the requests


@dataclasses.dataclass
class _Inflight:
    id: str
    custom_ids: list[str]
    next_poll: float
    interval: float


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Batcher:
    """Use as a context manager around the threads that call batched clients."""

    def __init__(self, client: llm.Client, journal: Journal | None = None, timing: Timing = Timing(),
                 clock: Callable[[], float] = time.monotonic, journal_lock: threading.Lock | None = None) -> None:
        self._client = client
        self._api = api_for(client)
        self._journal = journal or MemoryJournal()
        self._journal_lock = journal_lock or threading.Lock()  # shared by the batchers of one journal
        self.timing = timing
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: dict[str, dict[str, Any]] = {}  # custom_id → params, not yet sent
        self._first_pending = 0.0
        self._last_arrival = 0.0
        self._futures: dict[str, concurrent.futures.Future] = {}
        self._done: dict[str, tuple[str, Any]] = {}  # custom_id → ("ok", message) | ("raise", exception)
        self._handed: set[str] = set()  # custom_ids whose message a caller has had (and paid for)
        self._owner: dict[str, str] = {}  # custom_id → batch id it was sent in
        self._inflight: dict[str, _Inflight] = {}
        self._stopping = False
        self._deadline = clock() + timing.wait_s
        self.gave_up = False
        self.unserved: str | None = None  # why the endpoint's requests go one by one (no batch API)
        self.sent: list[str] = []  # ids of the batches this batcher created
        self._thread = threading.Thread(target=self._loop, name="llm-batches", daemon=True)
        self._record = {b: e for b, e in self._journal.load().items() if self._owns(e)}
        now = clock()
        for batch_id, entry in self._record.items():
            if not entry.get("collected"):
                ids = list(entry.get("custom_ids", []))
                self._inflight[batch_id] = _Inflight(batch_id, ids, now, timing.poll_s)
                for cid in ids:
                    self._owner[cid] = batch_id

    def _owns(self, entry: dict[str, Any]) -> bool:
        """A journal entry of this batcher's endpoint (entries written before endpoints were
        recorded are Anthropic's)."""
        return entry.get("endpoint", None if self._api.falls_back else self._api.endpoint) == self._api.endpoint

    def _save(self) -> None:
        with self._journal_lock:
            data = {b: e for b, e in self._journal.load().items() if not self._owns(e)}
            self._journal.save({**data, **self._record})

    @property
    def kind(self) -> str:
        """What its batches are called ("Message Batch", "OpenAI batch")."""
        return self._api.kind

    def lane(self, client: llm.Client) -> Batcher | None:
        """This batcher for a client of its endpoint, else None (the client stays interactive)."""
        return self if client.target.endpoint == self._api.endpoint else None

    @property
    def resumed(self) -> list[str]:
        """Batches found in the journal, still to collect, when this batcher started."""
        return [b for b in self._inflight if b not in self.sent]

    def __enter__(self) -> Batcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join()

    # ------------------------------------------------------------------ callers

    def submit(self, custom_id: str, params: dict[str, Any]) -> tuple[Any, bool]:
        """Block until the request's batch has ended: (its ``llm.Reply``, whether
        this caller is the first to have it — a second caller of the same request is
        answered by the same, already paid, item). Raises ``llm.ItemFailed`` (retry it on
        its own) or ``llm.LLMError``."""
        with self._cond:
            outcome = self._done.get(custom_id)
            if outcome is None:
                if self.unserved is not None:
                    raise llm.ItemFailed(self.unserved)
                if self.gave_up:
                    raise StillPending(self._pending_reason())
                future = self._futures.get(custom_id)
                if future is None:
                    future = self._futures[custom_id] = concurrent.futures.Future()
                    if custom_id not in self._owner:
                        now = self._clock()
                        if not self._pending:
                            self._first_pending = now
                        self._pending[custom_id] = params
                        self._last_arrival = now
                    self._cond.notify_all()
        if outcome is not None:
            kind, value = outcome
            if kind == "raise":
                raise value
            return value, self._hand(custom_id)
        assert future is not None  # set above whenever no outcome was there
        message = future.result()
        return message, self._hand(custom_id)

    def _hand(self, custom_id: str) -> bool:
        with self._cond:
            first = custom_id not in self._handed
            self._handed.add(custom_id)
            return first

    def collected(self, custom_id: str) -> Any:
        """The reply to a request this batcher collected and nobody was handed yet
        (from a batch an earlier run submitted), else None."""
        with self._cond:
            outcome = self._done.get(custom_id)
            if outcome is None or outcome[0] != "ok" or custom_id in self._handed:
                return None
            self._handed.add(custom_id)
            return outcome[1]

    # ------------------------------------------------------------------ the loop

    def _loop(self) -> None:
        try:
            self._turns()
        except BaseException as exc:  # a bug here must not leave the callers waiting forever
            log.exception("the %s loop stopped", self._api.kind)
            with self._cond:
                self.gave_up = True
                for future in self._futures.values():
                    future.set_exception(llm.LLMError(f"the {self._api.kind} loop stopped: {exc!r}"))
                self._futures.clear()
            raise

    def abandon(self) -> None:
        """Stop waiting now (the run is being interrupted): every caller gets ``StillPending``;
        submitted batches stay in the journal for a later run."""
        self._give_up()

    def _turns(self) -> None:
        while True:
            with self._cond:
                if self._stopping and not self._futures:
                    return
                self._cond.wait(self._sleep_for())
                now = self._clock()
                chunks = self._take(now)
                due = [b for b in self._inflight.values() if b.next_poll <= now]
                late = now >= self._deadline and bool(self._futures)
            if late:
                self._give_up()
                continue
            for chunk in chunks:
                self._send(chunk)
            for batch in due:
                self._poll(batch)

    def _sleep_for(self) -> float:
        now = self._clock()
        moments = [b.next_poll for b in self._inflight.values()]
        if self._pending:
            moments.append(min(self._last_arrival + self.timing.quiet_s,
                               self._first_pending + self.timing.collect_max_s))
        moments.append(self._deadline)
        return max(0.0, min(min(moments) - now, 1.0))

    def _take(self, now: float) -> list[list[tuple[str, dict[str, Any]]]]:
        """The pending requests to send now, cut into batches within the API's limits (and,
        where the API wants it, one model a batch)."""
        if not self._pending:
            return []
        quiet = now - self._last_arrival >= self.timing.quiet_s
        old = now - self._first_pending >= self.timing.collect_max_s
        most = min(self.timing.max_requests, self._api.max_requests)
        if not (quiet or old or self._stopping or len(self._pending) >= most):
            return []
        limit = min(self.timing.max_bytes, self._api.max_bytes)
        groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for cid, params in self._pending.items():
            groups.setdefault(self._api.group(params), []).append((cid, params))
        chunks: list[list[tuple[str, dict[str, Any]]]] = []
        for members in groups.values():
            chunks.append([])
            size = 0
            for cid, params in members:
                item = len(json.dumps(params, ensure_ascii=False)) + 100
                if chunks[-1] and (len(chunks[-1]) >= most or size + item > limit):
                    chunks.append([])
                    size = 0
                chunks[-1].append((cid, params))
                size += item
        self._pending.clear()
        return chunks

    def _policy(self) -> retrying.Policy:
        cfg = self._client.config
        return retrying.Policy(attempts=cfg.max_attempts, initial_wait_s=cfg.backoff_initial_s,
                               max_wait_s=cfg.backoff_max_s)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        return retrying.retrying(self._policy(), self._api.transient, hinted_wait_s=llm.retry_after,
                                 sleep=self._client.sleep, what=what)(fn)

    def _send(self, chunk: list[tuple[str, dict[str, Any]]]) -> None:
        kind = self._api.kind
        try:
            batch_id = self._call(f"creating an {kind}" if kind[0] in "AEIOU" else f"creating a {kind}",
                                  lambda: self._api.create(chunk))
        except llm.NoBatches as exc:
            self._fall_back(chunk, f"{exc}: its requests go one by one, at the list price")
            return
        except self._api.failures() as exc:
            what = f"submitting a batch of {len(chunk)} requests to {self._api.endpoint} failed: {llm.short(exc)}"
            if self._api.falls_back:
                log.warning("%s; they go one by one", what)
            error = llm.ItemFailed(what) if self._api.falls_back else llm.LLMError(what)
            with self._cond:
                for cid, _ in chunk:
                    self._deliver(cid, ("raise", error))
            return
        ids = [cid for cid, _ in chunk]
        log.info("%s %s: %d requests submitted", kind, batch_id, len(ids))
        with self._cond:
            self.sent.append(batch_id)
            self._inflight[batch_id] = _Inflight(batch_id, ids, self._clock() + self.timing.poll_s,
                                                 self.timing.poll_s)
            for cid in ids:
                self._owner[cid] = batch_id
            self._record[batch_id] = {"custom_ids": ids, "endpoint": self._api.endpoint,
                                      "submitted_at": _now_iso(), "collected": False}
            self._save()

    def _fall_back(self, chunk: list[tuple[str, dict[str, Any]]], reason: str) -> None:
        """The endpoint serves no batch API: this chunk, and every request after it, goes
        through the interactive API (the caller's ``ItemFailed`` path)."""
        log.warning("%s", reason)
        with self._cond:
            self.unserved = reason
            for cid, _ in chunk:
                self._deliver(cid, ("raise", llm.ItemFailed(reason)))
            for cid in list(self._pending):
                self._deliver(cid, ("raise", llm.ItemFailed(reason)))
            self._pending.clear()

    def _poll(self, inflight: _Inflight) -> None:
        kind = self._api.kind
        try:
            ended = self._call(f"looking at {kind} {inflight.id}",
                               lambda: self._api.results(inflight.id, inflight.custom_ids))
        except llm.BatchGone:
            # gone (archived results, another workspace): its requests go again, one by one
            self._collect(inflight, {}, {}, f"the {kind} is no longer available")
            return
        except self._api.failures() as exc:
            log.warning("%s %s: looking failed (%s); will look again", kind, inflight.id, llm.short(exc))
            ended = None
        if ended is None:
            with self._cond:
                inflight.interval = min(inflight.interval * 2, self.timing.poll_max_s)
                inflight.next_poll = self._clock() + inflight.interval
            return
        outcomes, counts = ended
        self._collect(inflight, outcomes, counts, "missing from the batch's results")

    def _collect(self, inflight: _Inflight, outcomes: dict[str, tuple[str, Any]], counts: dict[str, int],
                 missing: str) -> None:
        outcomes = {cid: outcomes.get(cid, ("raise", llm.ItemFailed(missing))) for cid in inflight.custom_ids}
        for cid, (kind, value) in outcomes.items():
            if kind == "ok" and _KEY.match(cid):
                self._client.response_cache_put(cid, value)
        log.info("%s %s ended: %s", self._api.kind, inflight.id, counts)
        with self._cond:
            for cid, outcome in outcomes.items():
                self._owner.pop(cid, None)
                self._deliver(cid, outcome)
            self._inflight.pop(inflight.id, None)
            self._record.setdefault(inflight.id, {"custom_ids": inflight.custom_ids, "endpoint": self._api.endpoint})
            self._record[inflight.id].update({"collected": True, "ended_at": _now_iso(), "counts": counts})
            self._save()

    def _deliver(self, custom_id: str, outcome: tuple[str, Any]) -> None:
        self._done[custom_id] = outcome
        future = self._futures.pop(custom_id, None)
        if future is not None:
            kind, value = outcome
            if kind == "raise":
                future.set_exception(value)
            else:
                future.set_result(value)

    def _pending_reason(self) -> str:
        ids = ", ".join(sorted(self._inflight)[:3]) or "none"
        return (f"{self._api.kind} still processing after {self.timing.wait_s:g} s (batches {ids}); "
                "a later run with the same response cache collects it")

    def _give_up(self) -> None:
        with self._cond:
            self.gave_up = True
            error = StillPending(self._pending_reason())
            for future in self._futures.values():
                future.set_exception(error)
            self._futures.clear()
            self._pending.clear()  # never sent: a later run asks for them anew
            self._inflight.clear()  # sent: they stay in the journal for a later run
