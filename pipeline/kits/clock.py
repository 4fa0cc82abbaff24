"""An app's hard deadline: one point in time (``time.monotonic``) that every stage of
its evaluation measures what is left against. A stage asks ``cap(seconds)`` for a
wait of its own and ``spent()`` before it starts something new; what it did not get
to is recorded as not measured, with the reason ``why()``."""

from __future__ import annotations

import dataclasses
import math
import time

MARGIN_S = 1.0  # less than this left: nothing new starts


@dataclasses.dataclass(frozen=True)
class Deadline:
    at: float  # time.monotonic() value; inf: none
    limit_s: float = math.inf  # the limit it was made from, for the reasons

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    @classmethod
    def never(cls) -> Deadline:
        return cls(math.inf)

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def cap(self, seconds: float) -> float:
        """``seconds``, or what is left when that is less."""
        return min(seconds, self.left())

    def spent(self) -> bool:
        return self.left() < MARGIN_S

    def sooner(self, seconds: float) -> Deadline:
        """A deadline ``seconds`` before this one (a share kept for later stages)."""
        return Deadline(self.at - seconds, self.limit_s)

    def within(self, seconds: float) -> Deadline:
        """This deadline, or ``seconds`` from now when that comes first."""
        soon = time.monotonic() + seconds
        return self if self.at <= soon else Deadline(soon, self.limit_s)

    def why(self) -> str:
        return f"the app's time limit (app_timeout_s = {self.limit_s:g} s) was spent before this could run"
