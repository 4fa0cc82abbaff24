"""The seeded random clicker: the baseline every smarter explorer must beat.

It picks uniformly among what the page offers this step — each (element, action
kind) the observation lists (not those something else covers, such as the page
behind an open dialog), plus key presses on the page when the page listens to
keys or draws on a canvas — with values drawn at random from the same value lists the
heuristic uses. It never stops early: with nothing to act on it waits, so time-driven
code gets its chance, exactly as a monkey tester's would. Deterministic for a seed.
It chooses; it must not touch the page, and it keeps no memory of what paid off
(that would make it a heuristic).
"""

from __future__ import annotations

import random

from iwcbench.pipeline.contracts import evidence, settings
from iwcbench.pipeline.stages.exploring import observing, policy, uploads, values

KEYS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Space", "Enter", "Escape", "Tab",
        "w", "a", "s", "d", "p", "r", "z", "x")
DRAGS = ((120, 0), (-120, 0), (0, 120), (0, -120), (80, -60), (-60, 90))
WAIT_MS = "500"


class RandomClicker:
    """See the module docstring."""

    name: settings.PolicyName = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def begin(self, context: policy.Context) -> None:
        self.rng = random.Random(context.seed)

    def _options(self, obs: observing.Observation) -> list[tuple[str, observing.Candidate | None]]:
        reachable = [c for c in obs.candidates if not c.covered] or list(obs.candidates)
        options: list[tuple[str, observing.Candidate | None]] = [
            (kind, c) for c in reachable if not c.external for kind in c.kinds
            if kind != "select" or c.options]
        if obs.keyboard or obs.canvases:
            options.append(("key", None))
        return options

    def _value(self, kind: str, c: observing.Candidate | None, drops: tuple[str, ...]) -> str | None:
        rng = self.rng
        if kind == "type" and c is not None:
            return rng.choice(values.values_for(c))
        if kind == "select" and c is not None:
            return rng.choice(c.options)
        if kind == "upload" and c is not None:
            return rng.choice(uploads.names_for(c.accept))
        if kind == "drag":
            if drops and c is not None and c.tag != "canvas" and rng.random() < 0.5:
                return "to:" + rng.choice(drops)
            dx, dy = rng.choice(DRAGS)
            return f"{dx},{dy}"
        if kind == "key":
            return " ".join(rng.choice(KEYS) for _ in range(rng.randint(1, 3)))
        return None

    def choose(self, observation: observing.Observation) -> evidence.Action | None:
        options = self._options(observation)
        if not options:
            return evidence.Action(kind="wait", target="page", value=WAIT_MS)
        kind, c = options[self.rng.randrange(len(options))]
        value = self._value(kind, c, observation.drop_targets)
        if value is None and c is not None and c.point and kind in ("click", "hover"):
            value = f"at:{c.point[0]:g},{c.point[1]:g}"  # where a press lands on it
        if c is None:
            return evidence.Action(kind="key", target="page", value=value)
        return evidence.Action(kind=kind, target=c.describe(), selector=c.selector, value=value)

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        return None

    def end(self, stop_reason: str) -> None:
        """Nothing to conclude: this policy keeps no summary of its own."""

    def choice(self) -> evidence.Choice | None:
        return None  # (a seeded random pick: there is nothing to weigh)

    def summary(self) -> str | None:
        return None
