"""Replaying a stored UI test case: a ``Policy`` that plays recorded actions back, no LLM.

Each recorded step names its element by role and accessible name, the text of the item
it sits in and the CSS selector it had (``uitests.ReplayStep``). On the page it is found
among the observation's candidates in that order of trust:

1. role and name equal (several: the one in the same item, then the same selector,
   then the first);
2. the recorded selector, when a candidate still has it and its role is unchanged.

A step whose element is not found ends the replay (the trace's summary names what was
looked for); so does a step that fails on the page. After the last step the replay finishes;
the caller compares the end state. It must not touch the page.
"""

from __future__ import annotations

from typing import Sequence

from iwcbench.pipeline.contracts import evidence, settings, uitests
from iwcbench.pipeline.stages.exploring import observing, policy

_ELEMENTLESS = {"scroll", "back", "wait", "route", "resize", "load"}


def find(step: uitests.ReplayStep, obs: observing.Observation) -> observing.Candidate | None:
    """The candidate on this page that ``step`` acted on (the rule in the module docstring)."""
    if step.role is not None and step.name:
        same = [c for c in obs.candidates if c.role == step.role and c.name == step.name and not c.external]
        if len(same) > 1 and step.context:
            same = [c for c in same if c.context == step.context] or same
        if len(same) > 1 and step.selector:
            same = [c for c in same if c.selector == step.selector] or same
        if same:
            return same[0]
    if step.selector:
        return next((c for c in obs.candidates if c.selector == step.selector
                     and (step.role is None or c.role == step.role)), None)
    return None


class ReplayPolicy:
    """Plays ``steps`` back. ``failure`` says why it stopped early (None: all played)."""

    name: settings.PolicyName = "replay"

    def __init__(self, steps: Sequence[uitests.ReplayStep]) -> None:
        self.steps = tuple(steps)
        self.played = 0  # steps handed to the loop
        self.failure: str | None = None
        self.last_tree: str | None = None
        self._stop = False

    def begin(self, context: policy.Context) -> None:
        self.played, self.failure, self._stop = 0, None, False

    def choose(self, obs: observing.Observation) -> evidence.Action | None:
        if self.last_tree is None:
            self.last_tree = obs.tree
        if self._stop:
            return None
        if self.played >= len(self.steps):
            return evidence.Action(kind="finish", intent="replay complete")
        step = self.steps[self.played]
        self.played += 1
        intent = f"replay step {self.played} of {len(self.steps)}"
        if step.kind in _ELEMENTLESS or (step.kind == "key" and not step.selector):
            return evidence.Action(kind=step.kind, value=step.value, intent=intent)
        found = find(step, obs)
        if found is None:
            named = f'{step.role} "{step.name}"' if step.role and step.name else None
            wanted = step.target or named or step.selector or step.kind
            self.failure = f"replay step {self.played}: {wanted} is not on the page"
            return None  # the trace's summary says where it broke
        return evidence.Action(kind=step.kind, value=step.value, selector=found.selector,
                               target=found.describe(), intent=intent)

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        if after is not None:
            self.last_tree = after.tree
        if not step.ok and self.failure is None:
            self.failure = f"replay step {self.played} failed: {step.error}"
            self._stop = True

    def end(self, stop_reason: str) -> None:
        """Nothing to conclude: this policy keeps no summary of its own."""

    def choice(self) -> evidence.Choice | None:
        return None  # (the test case chose: the step is its next one)

    def summary(self) -> str | None:
        return self.failure or f"replayed {self.played} of {len(self.steps)} steps"
