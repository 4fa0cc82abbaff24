"""Where an exploration's time goes: seconds per part of its steps (choose, act,
settle, observe, coverage, crediting, screenshot, snapshot, probe, axe, load), each
without the parts timed inside it (hack/bench-explore, hack/bench). Pure bookkeeping:
it must not touch the page."""

from __future__ import annotations

import collections
import contextlib
import time
from typing import Iterator


class Parts:
    """Seconds per part; a part timed inside another counts for itself, not twice."""

    def __init__(self) -> None:
        self.seconds: collections.defaultdict[str, float] = collections.defaultdict(float)
        self._inside = 0.0  # seconds of the parts timed inside the one being timed

    @contextlib.contextmanager
    def timed(self, part: str) -> Iterator[None]:
        began, outer = time.monotonic(), self._inside
        self._inside = 0.0
        try:
            yield
        finally:
            spent = time.monotonic() - began
            self.seconds[part] += spent - self._inside
            self._inside = outer + spent
