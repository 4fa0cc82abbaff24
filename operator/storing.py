"""What the operator reads and writes in a run's store: who owns the prefix, which apps
have a result there, which ones a retry re-runs, what the finished apps' LLM calls cost.

Every call here is one or a few store requests, made by the operator's handlers; the
decisions stay in tracking (pure). It must not create Jobs or touch the API server.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import threading
from typing import Callable, Iterable

from iwcbench.operator import planning
from iwcbench.pipeline.contracts import artifacts, layout, results
from iwcbench.pipeline.kits import store as store_mod

OWNER_KEY = ".iwc/owner.json"  # the run that owns the prefix: {uid, namespace, name, since}


@dataclasses.dataclass(frozen=True)
class Claim:
    uid: str
    namespace: str
    name: str

    @property
    def who(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclasses.dataclass(frozen=True)
class Owned:
    """The claim went through. ``resumed``: the prefix was this run's already (an
    operator restart), so what it stored counts as done."""

    resumed: bool


@dataclasses.dataclass(frozen=True)
class Unavailable:
    """The store could not be read or written (its bucket does not exist, its endpoint
    does not answer, the credentials are refused): ``message`` names spec.store and why."""

    message: str


class Claims:
    """Store prefixes and the runs that own them. One operator serves every run, so a
    lock here orders two runs claiming one prefix at once; the claim file in the store
    carries it over a restart. ``alive(claim)`` says whether the owning run still exists
    (then the prefix is refused to any other run; a deleted owner's prefix may be taken)."""

    def __init__(self, open_store: Callable[[str], store_mod.Store] = store_mod.open_store) -> None:
        self._open = open_store
        self._lock = threading.Lock()
        self._owners: dict[str, Claim] = {}

    def claim(self, uri: str, mine: Claim, alive: Callable[[Claim], bool]) -> Owned | Unavailable | str:
        """Owned, Unavailable (the store cannot be used: looked at again later), or the
        message of the refusal (for the run's condition)."""
        try:
            return self._claim(uri, mine, alive)
        except Exception as error:  # noqa: BLE001 - any store failure: a condition, never a crashing handler
            why = " ".join(f"{type(error).__name__}: {error}".split())[:300]
            return Unavailable(f"spec.store {uri} cannot be used: {why}; no Job is created until it can "
                               "(looked at again)")

    def _claim(self, uri: str, mine: Claim, alive: Callable[[Claim], bool]) -> Owned | str:
        key = uri.rstrip("/")
        with self._lock:
            known = self._owners.get(key)
            if known is not None and known.uid == mine.uid:
                return Owned(resumed=True)
            store = self._open(uri)
            raw = store.get_or_none(OWNER_KEY)
            holder = _read_claim(raw) if raw else None
            if holder is not None and holder.uid == mine.uid:
                self._owners[key] = mine
                return Owned(resumed=True)
            if holder is not None and alive(holder):
                return (f"spec.store {uri} belongs to the run {holder.who} (uid {holder.uid}): two runs writing "
                        "one prefix would mix their evidence; name another store, or delete that run first")
            since = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            store_mod.put_json(store, OWNER_KEY, {**dataclasses.asdict(mine), "since": since})
            self._owners[key] = mine
            return Owned(resumed=False)

    def release(self, uid: str) -> None:
        with self._lock:
            for key in [k for k, c in self._owners.items() if c.uid == uid]:
                del self._owners[key]


def _read_claim(raw: bytes) -> Claim | None:
    try:
        data = json.loads(raw)
        return Claim(uid=str(data["uid"]), namespace=str(data["namespace"]), name=str(data["name"]))
    except (ValueError, KeyError, TypeError):
        return None  # not ours to read: taken as no claim


def stored_results(store: store_mod.Store) -> frozenset[str]:
    """The apps (``model/task_id``) with a result in the store: one listing."""
    found = set()
    for key in store.list("apps/"):
        if layout.is_result_key(key):
            found.add(key.removeprefix("apps/").rsplit("/", 1)[0])
    return frozenset(found)


def retry_apps(store: store_mod.Store, apps: Iterable[planning.AppPair]) -> list[planning.AppPair]:
    """The apps a retry re-runs: those the last scoring recorded as ``error`` (our side
    failed: a Job that failed, a stage that raised) and those with no stored result
    (never scored: a budget reached, a scoring that never ran)."""
    stored = stored_results(store)
    errors: set[str] = set()
    raw = store.get_or_none(artifacts.RESULTS.key)
    if raw is not None:
        run = results.RunResults.model_validate_json(raw)
        errors = {f"{a.model}/{a.task_id}" for a in run.apps if a.outcome == "error"}
    return [p for p in apps if p.key not in stored or p.key in errors]


def app_cost(store: store_mod.Store, key: str) -> float:
    """US dollars of one app's LLM calls as its stored result says (0: none made, no
    result, or a price unknown)."""
    model, task_id = key.split("/", 1)
    raw = store.get_or_none(f"{layout.app_prefix(model, task_id)}/{layout.RESULT}")
    if raw is None:
        return 0.0
    usage = results.AppResult.model_validate_json(raw).llm_usage
    return float(usage.cost_usd or 0.0) if usage is not None else 0.0
