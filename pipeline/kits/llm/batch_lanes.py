"""A run's batchers, one lane per endpoint: a run whose judges call several models on
several endpoints hands ``Batchers`` to ``client.batched``, and each client (each route
of it) sends through its own endpoint's ``Batcher`` (kits/llm/batches), made when the
first client of that endpoint asks, all of them journaling into one ``Journal``.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm.batches import Batcher, Journal, MemoryJournal, Timing

log = logging.getLogger(__name__)


class Batchers:
    """One ``Batcher`` per endpoint, all journaling into ``journal``: hand it to
    ``client.batched`` and each client (each route of it) sends through its endpoint's
    batcher, made when the first client of that endpoint asks. Use as a context manager
    around the threads that call the clients."""

    def __init__(self, journal: Journal | None = None, timing: Timing = Timing(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._journal = journal or MemoryJournal()
        self.timing = timing
        self._clock = clock
        self._lock = threading.Lock()
        self._journal_lock = threading.Lock()
        self._lanes: dict[str, Batcher] = {}
        self._entered = False

    def lane(self, client: llm.Client) -> Batcher | None:
        with self._lock:
            batcher = self._lanes.get(client.target.endpoint)
            if batcher is None:
                batcher = Batcher(client, self._journal, self.timing, self._clock, self._journal_lock)
                self._lanes[client.target.endpoint] = batcher
                if batcher.resumed:
                    log.info("collecting %d %s(es) an earlier run submitted to %s", len(batcher.resumed),
                             batcher.kind, client.target.endpoint)
                if self._entered:
                    batcher.__enter__()
            return batcher

    @property
    def batchers(self) -> list[Batcher]:
        with self._lock:
            return list(self._lanes.values())

    @property
    def gave_up(self) -> bool:
        """Some batcher stopped waiting: what it held stays pending."""
        return any(b.gave_up for b in self.batchers)

    def abandon(self) -> None:
        for batcher in self.batchers:
            batcher.abandon()

    def __enter__(self) -> Batchers:
        with self._lock:
            self._entered = True
            for batcher in self._lanes.values():
                batcher.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._entered = False
        for batcher in self.batchers:
            batcher.__exit__(*exc)
