"""The offline default policy: coverage- and novelty-guided choice among the page's
candidates, with form completion and keyboard play for games. Deterministic for a
seed: candidates come in document order, ties break through random.Random(seed).
It chooses; it must not touch the page.

Score of an action in a state (higher first):
    +3 never tried in this state, else -1 per earlier try here
    +2 never tried anywhere
    + mean statement-coverage gain of its last 3 tries (points, capped at 5); a
      form's follow-ups (other fields, submit) credit their gain to the typing too
    +0.5 per time it changed the page state (capped at 1.5)
    -2.5 per failure; actions that hung the page are never chosen again
    + a small prior per kind, + a seeded tie-break in [0, 0.75)
With probability EPSILON a seeded random action (untried in this state, if any is
left) is taken instead, so one dominant action cannot trap the explorer.
"""

from __future__ import annotations

import collections
import random
from typing import Literal

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import observing, policy, values

EPSILON = 0.1
PRIORS = {"type": 0.6, "click": 0.5, "select": 0.4, "check": 0.4, "key": 0.3, "hover": 0.1,
          "drag": 0.0, "scroll": -0.5, "wait": -1.0, "back": -1.5}
ARROWS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")
KEY_GROUPS = {
    "arrows": ARROWS,
    "space": ("Space",),
    "enter": ("Enter",),
    "wasd": ("w", "a", "s", "d"),
    "escape": ("Escape",),
}


class HeuristicPolicy:
    """See the module docstring."""

    name: Literal["heuristic", "llm"] = "heuristic"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.context: policy.Context | None = None
        self.tried: collections.Counter[tuple[str, str]] = collections.Counter()
        self.tried_anywhere: collections.Counter[str] = collections.Counter()
        self.gains: dict[str, collections.deque[float]] = collections.defaultdict(
            lambda: collections.deque(maxlen=3))
        self.changes: collections.Counter[str] = collections.Counter()
        self.failures: collections.Counter[str] = collections.Counter()
        self.banned: set[str] = set()
        self.rotation: collections.Counter[str] = collections.Counter()
        self.followups: collections.deque[tuple[str, evidence.Action]] = collections.deque()
        self.pending: tuple[str, str, evidence.Action] | None = None  # state, signature, action
        self.chain_root: str | None = None  # the typing that queued the pending follow-ups

    def begin(self, context: policy.Context) -> None:
        self.context = context
        self.rng = random.Random(context.seed)

    # ---- candidate actions -------------------------------------------------
    def _next_value(self, key: str, options: list[str]) -> str:
        value = options[self.rotation[key] % len(options)]
        self.rotation[key] += 1
        return value

    def _element_actions(self, obs: observing.Observation) -> list[tuple[str, evidence.Action]]:
        actions: list[tuple[str, evidence.Action]] = []
        drop = obs.drop_targets[0] if obs.drop_targets else None
        for c in obs.candidates:
            if c.external:
                continue  # recorded by the explorer, never followed
            target = c.describe()
            for kind in c.kinds:
                sig = f"{kind}|{c.selector}"
                if sig in self.banned:
                    continue
                if kind == "type":
                    actions.append((sig, evidence.Action(kind="type", target=target, selector=c.selector)))
                elif kind == "select":
                    if c.options:
                        actions.append((sig, evidence.Action(kind="select", target=target, selector=c.selector)))
                elif kind == "drag":
                    value = f"to:{drop}" if drop and c.tag != "canvas" and drop != c.selector else None
                    actions.append((sig, evidence.Action(kind="drag", target=target, selector=c.selector, value=value)))
                elif kind == "key":
                    actions.append((sig, evidence.Action(kind="key", target=target, selector=c.selector)))
                else:
                    actions.append((sig, evidence.Action(kind=kind, target=target, selector=c.selector)))  # type: ignore[arg-type]
            double = f"dblclick|{c.selector}"
            if "dblclick" in c.listeners and double not in self.banned:
                actions.append((double, evidence.Action(kind="click", target=target, selector=c.selector,
                                                        value="double")))
        return actions

    def _page_actions(self, obs: observing.Observation) -> list[tuple[str, evidence.Action]]:
        actions: list[tuple[str, evidence.Action]] = []
        if obs.keyboard or obs.canvases:
            for group in KEY_GROUPS:
                actions.append((f"key|{group}", evidence.Action(kind="key", target="page")))
            actions.append(("key|hold", evidence.Action(kind="key", target="page")))
            actions.append(("wait|", evidence.Action(kind="wait", target="page", value="700")))
        if obs.scrollable:
            actions.append(("scroll|down", evidence.Action(kind="scroll", target="page", value="0,600")))
            actions.append(("scroll|up", evidence.Action(kind="scroll", target="page", value="0,-600")))
        return [(sig, a) for sig, a in actions if sig not in self.banned]

    def _concrete(self, sig: str, action: evidence.Action, obs: observing.Observation) -> evidence.Action:
        """Fill in the value at choice time (rotating values per field / key group)."""
        kind = action.kind
        if kind == "type" and action.value is None:
            c = next(x for x in obs.candidates if x.selector == action.selector)
            return action.model_copy(update={"value": self._next_value(sig, values.values_for(c))})
        if kind == "select" and action.value is None:
            c = next(x for x in obs.candidates if x.selector == action.selector)
            others = [o for o in c.options if o != c.value] or list(c.options)
            return action.model_copy(update={"value": self._next_value(sig, others)})
        if kind == "drag" and action.value is None:
            dx, dy = self.rng.choice(((120, 0), (-120, 0), (0, 120), (80, -60), (-60, 90)))
            return action.model_copy(update={"value": f"{dx},{dy}"})
        if kind == "key" and action.value is None:
            group = sig.split("|", 1)[1]
            if group == "hold":
                return action.model_copy(update={"value": f"hold:{self.rng.choice(ARROWS)}:{self.rng.choice((300, 600))}"})
            keys = KEY_GROUPS.get(group) or ARROWS + ("Space", "Enter")
            count = self.rng.randint(1, 4) if len(keys) > 1 else 1
            return action.model_copy(update={"value": " ".join(self.rng.choice(keys) for _ in range(count))})
        return action

    def _score(self, state: str, sig: str, kind: str) -> float:
        here = self.tried[(state, sig)]
        score = 3.0 if here == 0 else -1.0 * here
        score += 2.0 if self.tried_anywhere[sig] == 0 else 0.0
        gains = self.gains.get(sig)
        if gains:
            score += min(sum(gains) / len(gains), 5.0)
        score += min(0.5 * self.changes[sig], 1.5)
        score -= 2.5 * self.failures[sig]
        return score + PRIORS.get(kind, 0.0) + self.rng.random() * 0.75

    # ---- form completion ---------------------------------------------------
    def _queue_followups(self, typed: observing.Candidate, obs: observing.Observation) -> None:
        self.followups.clear()
        if typed.form >= 0:
            for c in obs.candidates:
                if c.form == typed.form and "type" in c.kinds and c.selector != typed.selector and not c.value:
                    self.followups.append((f"type|{c.selector}", evidence.Action(
                        kind="type", target=c.describe(), selector=c.selector)))
            submit = next((c for c in obs.candidates if c.form == typed.form and c.submit), None)
            if submit is not None:
                self.followups.append((f"click|{submit.selector}", evidence.Action(
                    kind="click", target=submit.describe(), selector=submit.selector)))
                return
        if typed.type in ("textarea", "contenteditable"):
            return
        after = False
        button = None
        for c in obs.candidates:  # the first button after the field, in document order
            if c.selector == typed.selector:
                after = True
            elif after and c.role == "button" and "click" in c.kinds:
                button = c
                break
        if button is not None and self.rng.random() < 0.6:
            self.followups.append((f"click|{button.selector}", evidence.Action(
                kind="click", target=button.describe(), selector=button.selector)))
        else:
            self.followups.append((f"enter|{typed.selector}", evidence.Action(
                kind="key", target=typed.describe(), selector=typed.selector, value="Enter")))

    # ---- the protocol ------------------------------------------------------
    def choose(self, observation: observing.Observation) -> evidence.Action | None:
        obs = observation
        selectors = {c.selector for c in obs.candidates}
        while self.followups:
            sig, action = self.followups.popleft()
            if action.selector in selectors and sig not in self.banned:
                return self._commit(obs, sig, self._concrete(sig, action, obs))
        self.chain_root = None
        options = self._element_actions(obs) + self._page_actions(obs)
        if not options:
            return None
        if self.rng.random() < EPSILON:
            fresh = [o for o in options if self.tried[(obs.state, o[0])] == 0] or options
            sig, action = fresh[self.rng.randrange(len(fresh))]
        else:
            scored = [(self._score(obs.state, sig, a.kind), i) for i, (sig, a) in enumerate(options)]
            _, best = max(scored)
            sig, action = options[best]
        chosen = self._concrete(sig, action, obs)
        if chosen.kind == "type":
            typed = next(c for c in obs.candidates if c.selector == chosen.selector)
            self._queue_followups(typed, obs)
            self.chain_root = sig
        return self._commit(obs, sig, chosen)

    def _commit(self, obs: observing.Observation, sig: str, action: evidence.Action) -> evidence.Action:
        self.pending = (obs.state, sig, action)
        return action

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        if self.pending is None:
            return
        state, sig, _ = self.pending
        self.pending = None
        self.tried[(state, sig)] += 1
        self.tried_anywhere[sig] += 1
        self.gains[sig].append(step.coverage_gain)
        root = self.chain_root
        if root is not None and root != sig and step.coverage_gain > 0 and self.gains[root]:
            self.gains[root][-1] += step.coverage_gain
        if after is not None and after.state != state:
            self.changes[sig] += 1
        if not step.ok:
            self.failures[sig] += 1
            self.followups.clear()
        if after is None or any("stopped responding" in n for n in step.notes):
            self.banned.add(sig)  # it hung or killed the page: once is enough
            self.followups.clear()

    def summary(self) -> str | None:
        return None
