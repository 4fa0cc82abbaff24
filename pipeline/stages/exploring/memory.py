"""What the heuristic explorer remembers of one exploration: every counter and mark
its choice rules read, in one record (heuristic.py updates it after each step;
rules.py, values.py, playing.py and steering.py stay pure functions over it and the
page). Data only: nothing here chooses or touches the page."""

from __future__ import annotations

import collections
import dataclasses

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import observing


@dataclasses.dataclass
class Memory:
    """One exploration's record of what was tried, where, and what came of it."""

    tried: collections.Counter[tuple[str, str]] = dataclasses.field(default_factory=collections.Counter)  # (place, signature)
    gains: dict[str, float] = dataclasses.field(default_factory=dict)  # signature -> coverage gain of its last try
    changes: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)  # it changed the place
    failures: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    banned: set[str] = dataclasses.field(default_factory=set)  # hung or killed the page once
    rotation: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)  # values used per field
    tried_family: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    born: dict[str, int] = dataclasses.field(default_factory=dict)  # selector -> step it (re)appeared
    present: set[str] = dataclasses.field(default_factory=set)
    families: dict[str, str] = dataclasses.field(default_factory=dict)  # signature -> rules.family of it
    torn_down: bool = False  # a destructive action took items off the page
    # (signature, action, field that must still hold text for it to make sense)
    followups: collections.deque[tuple[str, evidence.Action, str | None]] = dataclasses.field(
        default_factory=collections.deque)
    pending: tuple[str, str, evidence.Action] | None = None  # state, signature, action
    pending_items: int | None = None  # items on the page before a destructive action
    chain_root: str | None = None  # the typing that queued the pending follow-ups
    last: str | None = None  # the signature performed last
    toggled_from: dict[str, bool] = dataclasses.field(default_factory=dict)  # check signature -> checked before
    steers: dict[str, float] = dataclasses.field(default_factory=dict)  # signature -> steering value this step
    fruitless: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)  # tries since a gain
    states: set[str] = dataclasses.field(default_factory=set)
    idle: int = 0  # steps in a row that found neither coverage nor a new state
    names_seen: collections.defaultdict[str, set[str]] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(set))  # selector -> names it showed
    revealed: tuple[str, str] | None = None  # (selector, the name the last action gave it)
    name_before: str | None = None  # the acted-on element's name before the action
    revealing: set[str] = dataclasses.field(default_factory=set)  # families whose actions changed the element's name
    handler_names: set[str] = dataclasses.field(default_factory=set)  # names the page's handlers call, so far
    last_reload: int = 0  # the step of the last reload of the start page
    views: dict[str, int] = dataclasses.field(default_factory=dict)  # view (path and query) -> last step on it
    last_gain: int = -1  # the last step that raised coverage
    acted: int = 0  # steps taken
    guessed: int = 0  # of them, game-like moves (rules.guess)
    guesses: set[str] = dataclasses.field(default_factory=set)  # signatures that are guesses this step
    last_clicked: observing.Candidate | None = None  # the element clicked last (terms.twin)

    def family(self, sig: str) -> str:
        """The family an action's signature belongs to (itself, when none was noted)."""
        return self.families.get(sig, sig)
