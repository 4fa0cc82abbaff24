"""The one retry policy for talking to outside systems (store, cluster, npm registry,
LLM API): bounded attempts, exponential back-off with a cap, retry only what is
transient. Each kit says what "transient" means for its system and how many attempts
it wants; the mechanics (tenacity) live only here.

A permanent error is raised at once; a transient one is retried and, when the attempts
run out, re-raised as it was, so callers record it with the system's own message.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable, TypeVar

import tenacity

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Policy:
    attempts: int = 5  # tries in all, the first included
    initial_wait_s: float = 0.2  # seconds before the first retry; doubles after each
    max_wait_s: float = 5.0  # cap on one wait, seconds

    def backoff_s(self, attempt: int) -> float:
        """The wait after failed attempt ``attempt`` (1-based)."""
        return min(self.initial_wait_s * 2 ** (attempt - 1), self.max_wait_s)


def retrying(
    policy: Policy,
    transient: Callable[[BaseException], bool],
    *,
    hinted_wait_s: Callable[[BaseException], float | None] | None = None,
    sleep: Callable[[float], None] | None = None,
    what: str = "call",
) -> tenacity.Retrying:
    """A tenacity ``Retrying`` for ``policy``. ``hinted_wait_s`` lets the system say how
    long to wait (an HTTP retry-after), still capped by ``max_wait_s``."""

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = hinted_wait_s(exc) if hinted_wait_s is not None and exc is not None else None
        if hinted is not None:
            return min(hinted, policy.max_wait_s)
        return policy.backoff_s(state.attempt_number)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning("%s failed (%s); retry %d of %d", what, exc, state.attempt_number, policy.attempts - 1)

    return tenacity.Retrying(
        sleep=sleep if sleep is not None else tenacity.nap.sleep,  # (tenacity's own default)
        retry=tenacity.retry_if_exception(transient),
        stop=tenacity.stop_after_attempt(policy.attempts),
        wait=wait,
        reraise=True,
        before_sleep=before_sleep,
    )


def retry(policy: Policy, transient: Callable[[BaseException], bool],
          what: str = "call") -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator form of ``retrying``."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        def wrapper(*args: Any, **kwargs: Any) -> T:
            return retrying(policy, transient, what=what or fn.__name__)(fn, *args, **kwargs)

        wrapper.__name__ = fn.__name__
        wrapper.__doc__ = fn.__doc__
        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]  # what functools.wraps would set, for tests to reach fn
        return wrapper

    return decorate
