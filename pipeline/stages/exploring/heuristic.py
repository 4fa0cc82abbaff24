"""The offline default policy: coverage- and novelty-guided choice among the page's
candidates, with form completion and keyboard play for games. Deterministic for a
seed: candidates come in document order, ties break through random.Random(seed).
It chooses; it must not touch the page.

Each option (offering.py: element actions, page actions, key plays, waits) is scored
by the table of named terms in terms.py — docs/heuristic.md lists them with their
weights — and the highest score is taken; the trace's step records the chosen
action's terms and the runner-up's (evidence.Choice). Before the table applies, this
module decides which options are destructive and held back (while something is to
be built first) and which game-like moves wait (rules.guess: until every control
was tried, but a page that plays may spend PLAY_SHARE of its steps on them).

With probability EPSILON a seeded random action (untried in this state, if any is
left, never a held-back destructive one or guess, a wait, a scroll or a link to the
address showing) is taken instead, so one dominant action cannot trap the explorer.
Once coverage stalls (STALL_STEPS steps without a gain) and every option offered
where the explorer is was tried, STALL_SHARE of the steps are the random clicker's
(clicker.py), with draws of its own: an app the table weighs wrongly still gets what
a clicker would stumble on.

It stops ("finish"), when coverage is measured, only once every function and
statement the page may still run ran (reaching.OpenCode: what nothing calls is left,
and named in the reason) and FUNCTIONS_DONE_IDLE steps found nothing new; otherwise
it spends the budget. Black box, it stops when the last ``idle_steps`` steps found
nothing new and nothing is left that could: no action untried in this state, none
whose steering value is at least STEER_FLOOR.

A form's button pressed again is pressed after filling the form (rules.form_fill):
the first press shows the form's errors, later ones get past them. Typing is one
unit with what completes it: in a form, the other empty fields and the submit
button; outside a form, Enter, then the adjacent button (rules.adjacent_button) if
the field still holds its text. A choice in a form (radio, checkbox, option) is
followed by the form's submit button (stages/exploring/following).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re

from iwcbench.pipeline.contracts import evidence, settings
from iwcbench.pipeline.stages.exploring import (clicker, following, memory, observing, offering, playing, policy, reaching,
                                                rules, terms, uploads, values)

EPSILON = 0.1
STEER_FLOOR = 0.5  # an option worth this much keeps the exploration going
FUNCTIONS_DONE_IDLE = 5
NO_MENTION = reaching.NO_MENTION
FADE = terms.FADE
PLAY_SHARE = 0.5  # of the steps, what a page that plays may spend on game-like moves meanwhile
PAIR_WAIT_MS = 1200  # after the second card of a pair (terms.twin): the game's compare-and-turn-back delay
PAIR_WAIT = "wait|pair"
# Stalled (coverage measured, and no gain for STALL_STEPS steps while code is left to
# run) with nothing offered here untried, STALL_SHARE of the steps are the random
# clicker's: what the table weighs low
# (a key chord, a drag to a drop target, a press anywhere) is what a clicker stumbles on.
STALL_STEPS = 10
STALL_SHARE = 0.4
RELOAD, RELOADS, RELOAD_EVERY = offering.RELOAD, offering.RELOADS, offering.RELOAD_EVERY


class HeuristicPolicy:
    """See the module docstring."""

    name: settings.PolicyName = "heuristic"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.context: policy.Context | None = None
        self.code: reaching.Code | None = None
        self.memory = memory.Memory()
        self.desktop = "1280x800"  # the viewport the exploration began with
        self._choice: evidence.Choice | None = None  # why the last action was chosen
        self.clicker = clicker.RandomClicker()  # (its own seeded draws: the table's stay the same)
        self.stall_rng = random.Random(0)
        self.hints: values.CodeHints | None = None  # what the app's code checks input against

    def begin(self, context: policy.Context) -> None:
        self.context = context
        self.desktop = context.viewport
        self.rng = random.Random(context.seed)
        self.clicker.begin(dataclasses.replace(context, seed=context.seed + 1))
        self.stall_rng = random.Random(context.seed + 2)
        if context.coverage_map:
            self.code = reaching.Code(context.coverage_map, context.facts)
        if context.facts:
            self.hints = values.CodeHints.from_facts(context.facts)

    # ---- candidate actions -------------------------------------------------
    def _next_value(self, key: str, options: list[str], blank: bool = True) -> str:
        for _ in range(len(options)):
            value = options[self.memory.rotation[key] % len(options)]
            self.memory.rotation[key] += 1
            if blank or value.strip():
                return value
        return options[0]

    @property
    def _virtual(self) -> bool:
        return self.context is not None and self.context.virtual_time

    def _concrete(self, sig: str, action: evidence.Action, obs: observing.Observation) -> evidence.Action:
        """Fill in the value at choice time (rotating values per field / key group)."""
        kind = action.kind
        if kind == "type" and action.value is None:
            c = next(x for x in obs.candidates if x.selector == action.selector)
            value = self._next_value(sig, values.values_for(c, self.hints), blank=not self.memory.torn_down)
            return action.model_copy(update={"value": value})
        if kind == "select" and action.value is None:
            c = next(x for x in obs.candidates if x.selector == action.selector)
            others = [o for o in c.options if o != c.value] or list(c.options)
            return action.model_copy(update={"value": self._next_value(sig, others)})
        if kind == "upload" and action.value is None:
            c = next(x for x in obs.candidates if x.selector == action.selector)
            return action.model_copy(update={"value": self._next_value(sig, uploads.names_for(c.accept))})
        if kind == "drag" and action.value is None:
            dx, dy = self.rng.choice(((120, 0), (-120, 0), (0, 120), (80, -60), (-60, 90)))
            return action.model_copy(update={"value": f"{dx},{dy}"})
        if kind == "key" and action.value is None:
            return action.model_copy(update={"value": playing.concrete_key(sig, self.rng)})
        if kind == "key" and action.value and action.value.startswith("hold:"):
            # a hold that is chosen again goes on longer: games reward holding on
            keys, _, ms = action.value[5:].rpartition(":")
            most = playing.VIRTUAL_HOLD_MAX_MS if self._virtual else playing.HOLD_MAX_MS
            longer = min(most, int(ms) * (1 + self.memory.tried_family[self.memory.family(sig)]))
            return action.model_copy(update={"value": f"hold:{keys}:{longer}"})
        return action

    # ---- choice rules ------------------------------------------------------
    def _see(self, obs: observing.Observation) -> None:
        """Note which elements are new on the page and how many items it shows, and
        the names each element has shown."""
        self.memory.views[rules.view_of(obs.url)] = obs.step
        for c in obs.candidates:
            if c.name and len(self.memory.names_seen[c.selector]) < 8:
                self.memory.names_seen[c.selector].add(c.name)
        selectors = {rules.signature("", c.selector) for c in obs.candidates}
        for selector in selectors - self.memory.present:
            self.memory.born[selector] = obs.step
        self.memory.present = selectors


    def _destructive(self, obs: observing.Observation, options: list[tuple[str, evidence.Action]]
                     ) -> tuple[set[str], set[str]]:
        """(destructive signatures, those to hold back: some constructive family is
        untried, or a rebuild after the last tear-down is still due)."""
        by_selector = {c.selector: c for c in obs.candidates}
        harmful, untried, in_items = set(), False, set()
        for sig, action in options:
            c = by_selector.get(action.selector or "")
            if c is None or action.kind not in ("click", "check", "type", "select", "upload") or sig in self.memory.guesses \
                    or (c.tag == "a" and not rules.filtering(c)):
                continue  # (a guess at a container, or a link to another view, builds nothing up)
            if action.kind in ("click", "check") and rules.destructive(c):
                harmful.add(sig)
                if c.item is not None:
                    in_items.add(sig)
            elif self.memory.tried_family[self.memory.family(sig)] == 0:
                untried = True
        # (once tried, an item's delete waits while the list is short: deleting each
        # item as it comes keeps the list from ever having a few to filter, view or clear)
        short = rules.item_count(obs) < rules.FEW_ITEMS and rules.can_add_items(obs)
        tried = {sig for sig in in_items if short and self.memory.tried_family[self.memory.family(sig)] > 0}
        return harmful, (harmful if untried or self.memory.torn_down else tried)

    @staticmethod
    def _candidate(obs: observing.Observation, action: evidence.Action) -> observing.Candidate | None:
        return next((x for x in obs.candidates if x.selector == action.selector), None) if action.selector else None

    # ---- the protocol ------------------------------------------------------
    def choose(self, observation: observing.Observation) -> evidence.Action | None:
        obs = observation
        self._see(obs)
        here = place(obs)
        self.memory.states.add(here)
        followup = following.next_action(self.memory, obs)
        if followup is not None:
            sig, action = followup
            self._choice = evidence.Choice(how="follow-up")
            return self._commit(obs, sig, self._concrete(sig, action, obs))
        self.memory.chain_root = None
        self.memory.steers = {}
        reach = self._reach()
        elements = offering.element_actions(self.memory, obs, reach)
        options = elements + offering.page_actions(self.memory, obs, reach, nothing_else=not elements,
                                                  virtual=self._virtual, desktop=self.desktop)
        if not options:
            return None
        done = self._done(obs, options, reach)
        if done is not None:
            return evidence.Action(kind="finish", target="page", intent=done)
        around = rules.containers(obs)
        by_selector = {c.selector: c for c in obs.candidates}
        self.memory.guesses = {sig for sig, a in options if rules.guess(a, by_selector.get(a.selector or ""), around)}
        harmful, held = self._destructive(obs, options)
        early = self._early_guesses(obs, options, held, around, reach)
        # (stuck: the table has nothing new to offer here either)
        stuck = self.stalled(obs) and all(self.memory.tried[(here, sig)] for sig, _ in options)
        stumbled = self.clicker.choose(obs) if stuck and self.stall_rng.random() < STALL_SHARE else None
        if stumbled is not None:
            self._choice = evidence.Choice(how="stalled", options=len(options))
            return self._commit(obs, _signature(stumbled), stumbled)
        sig, action, choice = self._pick(obs, options, held, early, harmful)
        self._choice = choice
        chosen = self._concrete(sig, action, obs)
        filling = self._fill_first(obs, sig, chosen)
        if filling is not None:
            self._choice = choice.model_copy(update={"how": "form fill"})
            return filling
        if choice.terms.get("twin"):
            # (a pair turned, the game compares it a moment later: a tester waits to see)
            ms = f"fast:{PAIR_WAIT_MS}" if self._virtual else str(PAIR_WAIT_MS)
            self.memory.followups.append((PAIR_WAIT, evidence.Action(kind="wait", target="page", value=ms), None))
        if chosen.kind == "type":
            typed = next(c for c in obs.candidates if c.selector == chosen.selector)
            following.after_typing(self.memory, typed, obs)
            self.memory.chain_root = sig
            self.memory.torn_down = False  # this is the rebuild (if one was due)
        elif chosen.kind in ("check", "select"):
            picked = next(c for c in obs.candidates if c.selector == chosen.selector)
            following.after_choice(self.memory, picked, obs)
        return self._commit(obs, sig, chosen)

    def _fill_first(self, obs: observing.Observation, sig: str, chosen: evidence.Action) -> evidence.Action | None:
        """A form's button pressed once as it was (the form's errors) is from then on
        pressed after its form is filled: the first field's fill, the rest and the
        button queued; None when ``chosen`` is no such button."""
        button = next((c for c in obs.candidates if c.selector == chosen.selector), None) if chosen.kind == "click" else None
        if button is None or self.memory.tried_family[self.memory.family(sig)] < 1:
            return None
        fills = rules.form_fill(button, obs, self.hints)
        if not fills:
            return None
        self.memory.followups.clear()
        for kind, c, value in fills[1:]:
            self.memory.followups.append((rules.signature(kind, c.selector), evidence.Action(
                kind=kind, target=c.describe(), selector=c.selector, value=value), None))
        self.memory.followups.append((sig, chosen, None))
        kind, c, value = fills[0]
        self.memory.chain_root = sig
        return self._commit(obs, rules.signature(kind, c.selector), evidence.Action(
            kind=kind, target=c.describe(), selector=c.selector, value=value))

    def _pick(self, obs: observing.Observation, options: list[tuple[str, evidence.Action]], held: set[str],
              early: set[str], harmful: set[str]) -> tuple[str, evidence.Action, evidence.Choice]:
        """The option to take and why: the best scored by terms.TABLE, or, with
        probability EPSILON, a seeded random one."""
        if self.rng.random() < EPSILON:
            # (waiting and scrolling are chosen for what they promise, never by chance)
            allowed = [o for o in options if o[0] not in held | early and o[1].kind not in ("wait", "scroll")
                       and not rules.to_here(self._candidate(obs, o[1]), obs.url)] or options
            fresh = [o for o in allowed if self.memory.tried[(place(obs), o[0])] == 0] or allowed
            sig, action = fresh[self.rng.randrange(len(fresh))]
            return sig, action, evidence.Choice(how="random", options=len(options))
        first: dict[str, observing.Candidate] = {}  # (the first candidate of a selector, as the page lists them)
        for c in obs.candidates:
            first.setdefault(c.selector, c)
        situation = terms.Situation(obs, place(obs), self.memory, frozenset(harmful), frozenset(held),
                                    frozenset(early), self.rng, first)
        scored = [(*terms.score(situation, sig, a), i) for i, (sig, a) in enumerate(options)]
        ranked = sorted(scored, key=lambda x: (x[0], x[2]), reverse=True)
        total, parts, best = ranked[0]
        choice = evidence.Choice(how="scored", options=len(options), score=round(total, 3), terms=parts)
        if len(ranked) > 1:
            total, parts, second = ranked[1]
            choice = choice.model_copy(update={
                "runner_up": options[second][1], "runner_up_score": round(total, 3), "runner_up_terms": parts})
        return *options[best], choice

    def _early_guesses(self, obs: observing.Observation, options: list[tuple[str, evidence.Action]],
                       held: set[str], around: set[str], reach: reaching.Reach | None) -> set[str]:
        """The game-like moves (rules.guess, noted in memory.guesses) to hold back this
        step: all of them while a control of a never-tried family is on the page — but
        a page that plays (it listens to keys or pointer motion on the page, or draws
        on a canvas) may spend up to PLAY_SHARE of its steps on them meanwhile."""
        by_selector = {c.selector: c for c in obs.candidates}
        untried = any(
            (c := by_selector.get(action.selector or "")) is not None and sig not in held | self.memory.guesses
            and action.kind in rules.CONTROL_KINDS and rules.control(c, around)
            and self.memory.tried_family[self.memory.family(sig)] == 0 for sig, action in options)
        share = PLAY_SHARE if rules.plays(obs, reach) else 0.0
        if not untried or self.memory.guessed < share * self.memory.acted:
            return set()
        return self.memory.guesses

    def adopt(self, obs: observing.Observation, action: evidence.Action) -> None:
        """``action``, chosen on this page by another policy (the assisted explorer's LLM
        tester), is remembered as if chosen here: where it was tried, what it gained."""
        self._see(obs)
        self.memory.states.add(place(obs))
        self._choice = None
        self._commit(obs, _signature(action), action)

    def stalled(self, obs: observing.Observation) -> bool:
        """Has coverage, measured, not risen for STALL_STEPS steps (and no pair is half
        turned: a memory game's progress shows only once every pair is found)?"""
        last = self.memory.last_clicked
        if last is not None and any(c.name == last.name and c.selector != last.selector and c.tag == last.tag
                                    and c.parents[:1] == last.parents[:1] for c in obs.candidates):
            return False
        return self.code is not None and obs.step - max(self.memory.last_gain, 0) > STALL_STEPS

    def _reach(self) -> reaching.Reach | None:
        if self.code is None or self.context is None or self.context.coverage is None:
            return None
        return reaching.Reach(self.code, self.context.coverage())

    def _done(self, obs: observing.Observation, options: list[tuple[str, evidence.Action]],
              reach: reaching.Reach | None) -> str | None:
        """Why to stop, or None to go on. Measured, the exploration goes on while any
        code the page may still run never ran (reaching.OpenCode), and stops once all
        of it ran and nothing new came for FUNCTIONS_DONE_IDLE steps. Black box, it
        stops when nothing new came for a while and nothing is left that could."""
        if reach is not None:
            self.memory.handler_names |= _handler_names(obs)
            open_code = reach.open_code(frozenset(self.memory.handler_names))
            if open_code.reachable or self.memory.idle < FUNCTIONS_DONE_IDLE:
                return None
            left = ""
            if open_code.dead:
                names = sorted({why.partition(":")[0] for _, _, why in open_code.dead if why.endswith(NO_MENTION)})
                inside = sum(1 for _, _, why in open_code.dead if not why.endswith(NO_MENTION))
                shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
                held = f", and {inside} function{'s' if inside != 1 else ''} inside them" if inside else ""
                left = f" (never called, as no code mentions them: {shown}{held})"
            return (f"every function and statement of the app that can run ran{left}, "
                    f"and nothing new came for {self.memory.idle} steps")
        limit = self.context.idle_steps if self.context is not None else 15
        if self.memory.idle < limit:
            return None
        for sig, action in options:
            if sig != playing.IDLE_WAIT and self.memory.steers.get(sig, 0.0) * FADE ** self.memory.fruitless[sig] >= STEER_FLOOR:
                return None  # (a wait for timers whose callbacks never ran counts too)
            if action.kind not in ("wait", "scroll") and self.memory.tried[(place(obs), sig)] == 0:
                return None
        return f"nothing new reachable after {self.memory.idle} steps (nothing untried or promising left)"

    def _commit(self, obs: observing.Observation, sig: str, action: evidence.Action) -> evidence.Action:
        self.memory.pending = (place(obs), sig, action)
        c = self._candidate(obs, action)
        self.memory.name_before = c.name if c is not None else None
        before = self.memory.last_clicked  # (its twin clicked now, the pair is done: no third)
        paired = before is not None and c is not None and before.name == c.name and before.selector != c.selector
        self.memory.last_clicked = c if action.kind == "click" and not paired else None
        if action.kind == "check" and c is not None and c.checked is not None:
            self.memory.toggled_from[sig] = c.checked
        if action.kind in ("click", "check") and c is not None and rules.destructive(c):
            self.memory.pending_items = rules.item_count(obs)
        return action

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        if self.memory.pending is None:
            return
        state, sig, done = self.memory.pending
        self.memory.pending = None
        selector = done.selector
        now = next((c for c in after.candidates if c.selector == selector), None) if after and selector else None
        revealed = now.name if now is not None and now.name and now.name != self.memory.name_before else None
        self.memory.revealed = (selector, revealed) if selector and revealed else None
        if revealed:
            self.memory.revealing.add(self.memory.family(sig))
        self.memory.tried[(state, sig)] += 1
        self.memory.acted += 1
        self.memory.guessed += sig in self.memory.guesses
        if sig == RELOAD:
            self.memory.last_reload = step.index
        self.memory.last = sig
        self.memory.tried_family[self.memory.family(sig)] += 1
        self.memory.gains[sig] = step.coverage_gain
        self.memory.fruitless[sig] = 0 if step.coverage_gain > 0 else self.memory.fruitless[sig] + 1
        if step.coverage_gain > 0:
            self.memory.last_gain = step.index
        root = self.memory.chain_root
        if root is not None and root != sig and step.coverage_gain > 0 and root in self.memory.gains:
            self.memory.gains[root] += step.coverage_gain
        if self.memory.pending_items is not None and after is not None and rules.item_count(after) < self.memory.pending_items:
            self.memory.torn_down = True
        self.memory.pending_items = None
        if after is not None and place(after) != state:
            self.memory.changes[sig] += 1
        fresh = after is not None and place(after) not in self.memory.states
        if after is not None:
            self.memory.states.add(place(after))
        self.memory.idle = 0 if step.coverage_gain > 0 or fresh else self.memory.idle + 1
        if not step.ok:
            self.memory.failures[sig] += 1
            self.memory.followups.clear()
        if after is None or any("stopped responding" in n for n in step.notes):
            self.memory.banned.add(sig)  # it hung or killed the page: once is enough
            self.memory.followups.clear()

    def choice(self) -> evidence.Choice | None:
        return self._choice

    def end(self, stop_reason: str) -> None:
        """Nothing to conclude: this policy keeps no summary of its own."""

    def summary(self) -> str | None:
        return None


def _signature(action: evidence.Action) -> str:
    """The signature of an action this policy did not offer (the clicker's, the LLM tester's)."""
    return rules.signature(action.kind, action.selector) if action.selector else f"{action.kind}|{action.value}"


_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def _handler_names(obs: observing.Observation) -> set[str]:
    """The words of the handlers the page attached (an inline ``onclick="start()"``
    names what it calls; instrumented handlers are in the code facts already)."""
    sources = {item.handler for items in obs.listeners.values() for item in items}
    sources |= {item.handler for item in obs.page_listeners}
    return {word for source in sources for word in _WORD.findall(source[:reaching.HANDLER_CHARS])}


def place(obs: observing.Observation) -> str:
    """Where the explorer is, for counting what it tried there: the page's address
    and its accessibility tree with numbers blanked, so a ticking timer, a score or a
    move counter does not make every step a new place (a new question, a new list
    item or another view does)."""
    return hashlib.sha1(f"{obs.url}\n{_DIGITS.sub('#', obs.tree)}".encode(errors="surrogatepass")).hexdigest()
