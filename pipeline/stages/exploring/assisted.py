"""The assisted explorer (``--explorer assisted``): the offline heuristic, which hands a
few steps to the LLM tester where its coverage stalls.

The heuristic chooses every step until its coverage, measured, has not risen for
``heuristic.STALL_STEPS`` steps. Then the LLM tester (llm_policy) gets a turn of
``TURN_STEPS`` steps. The turn begins with one guidance call that reads the code not
yet run, as the tester's own plateau guidance does (none when guidance is off). Each
step of the turn is one call, which sees the page: the whole tree the first time, after
that what changed since it last looked, with a note that other steps came in between.
The turn ends early when the tester calls ``finish`` or gives nothing usable, and then
it is not asked again in this app. The next turn waits until the coverage has again not
risen for ``STALL_STEPS`` steps, counted from the end of the last turn.

Per app the tester takes ``max_steps`` steps at most (exploration.assist_steps). The
most an app can cost is that many step calls, one guidance call per turn and no
summary call: ``calls_at_most`` gives the forecast (runs/forecasting) those counts. A
black-box app has no coverage to stall, so it is explored by the heuristic alone.

The heuristic records the tester's steps as if it had chosen them: what was tried where,
and what it gained. It does not repeat them, and it goes on from whatever they opened.
"""

from __future__ import annotations

import math

from iwcbench.pipeline.contracts import evidence, settings
from iwcbench.pipeline.stages.exploring import heuristic as heuristic_mod, llm_policy, observing, policy

TURN_STEPS = 3  # the tester's steps at one plateau


def calls_at_most(purpose: str, assist_steps: int, max_steps: int, guidance: bool = True) -> float:
    """The most calls of ``purpose`` one app makes: one per tester step, one guidance call
    per turn, nothing else (no summary)."""
    steps = min(assist_steps, max_steps)
    if purpose == "explore.step":
        return float(steps)
    if purpose == "explore.guidance" and guidance:
        return float(math.ceil(steps / TURN_STEPS))
    return 0.0


class AssistedPolicy:
    """See the module docstring."""

    name: settings.PolicyName = "assisted"

    def __init__(self, tester: llm_policy.LLMPolicy, heuristic: heuristic_mod.HeuristicPolicy | None = None,
                 max_steps: int = 12, turn_steps: int = TURN_STEPS) -> None:
        self.heuristic = heuristic or heuristic_mod.HeuristicPolicy()
        self.tester = tester
        tester.max_guidance = 0  # (its own plateau guidance: asked here instead, once a turn)
        self.turn_steps = turn_steps
        self.left = max_steps  # tester steps this app may still take
        self.turn = 0  # tester steps left in the turn under way
        self.turn_ended = -1  # the step at which the last turn ended
        self.turns = 0
        self.tester_steps = 0
        self.since = 0  # the heuristic's steps since the tester's last one
        self._asked = False  # the last action is the tester's

    def begin(self, context: policy.Context) -> None:
        self.heuristic.begin(context)
        self.tester.begin(context)

    def choose(self, observation: observing.Observation) -> evidence.Action | None:
        obs = observation
        if self.turn == 0 and self.left > 0 and self._stuck(obs):
            self.turn, self.turns = min(self.turn_steps, self.left), self.turns + 1
            before = (f"{self.since} steps were taken by another tester since your last action; "
                      if self.tester_steps else "")
            self.tester.take_over(obs, f"{before}coverage has not risen for a while: try what has not been tried.")
        if self.turn > 0:
            action = self.tester.choose(obs)
            if action is not None and action.kind != "finish":
                self.turn, self.left, self.tester_steps = self.turn - 1, self.left - 1, self.tester_steps + 1
                if self.turn == 0:
                    self.turn_ended = obs.step
                self.heuristic.adopt(obs, action)
                self._asked, self.since = True, 0
                return action
            # it is done, or gave nothing usable (its reason is in its summary): never asked again
            self.turn, self.left, self.turn_ended = 0, 0, obs.step
        self._asked = False
        self.since += 1
        return self.heuristic.choose(obs)

    def _stuck(self, obs: observing.Observation) -> bool:
        return self.heuristic.stalled(obs) and obs.step - self.turn_ended > heuristic_mod.STALL_STEPS

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        self.heuristic.observe(step, after)
        if self._asked:
            self.tester.observe(step, after)

    def choice(self) -> evidence.Choice | None:
        return evidence.Choice(how="llm") if self._asked else self.heuristic.choice()

    def end(self, stop_reason: str) -> None:
        self.heuristic.end(stop_reason)  # (no summary call: the tester saw only its turns)

    def summary(self) -> str | None:
        if not self.turns:
            return None
        said = self.tester.summary()
        return (f"The LLM tester took {self.tester_steps} of the steps, in {self.turns} "
                f"turn{'s' if self.turns != 1 else ''} where coverage had stalled." + (f" {said}" if said else ""))
