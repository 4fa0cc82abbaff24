"""The heuristic's score as a table of named terms. An option's score is the sum,
over the table, of each term's weight times its value for that option; the option
with the highest score is chosen. Each term is one reason a tester would give
("never tried here", "it just appeared", "it would delete what is still to be
built on"), so a step's choice reads as the terms that decided it: the trace records
the chosen action's non-zero terms and the runner-up's (evidence.Choice).

Pure: a term reads the page (observing.Observation), the option and the
exploration's memory (memory.Memory); it never changes them nor touches the page.
The one exception is ``tie_break``, which draws from the policy's seeded random
generator, once per option, in the options' order — so a seed still gives one trace.

docs/heuristic.md is generated from TABLE (hack/gen-docs): edit a term here.
"""

from __future__ import annotations

import collections
import dataclasses
import random
from typing import Callable

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import memory, observing, rules

SIBLINGS = 3  # tries of a family after which its untried members count little
FADE = 0.6  # what steering promises, kept per try of it that raised nothing
STEER_CAP = 4.0
GAIN_CAP = 5.0
CHANGES_CAP = 3  # times it changed the page state that still count
RECENT_STEPS = 2
EARLY_VIEW_STEPS = 12  # the steps another view may wait for the list to have a few items
PRIORS = {"type": 0.6, "upload": 0.6, "click": 0.5, "select": 0.4, "check": 0.4, "key": 0.3, "hover": 0.1,
          "drag": 0.0, "route": 0.2, "resize": -0.5, "scroll": -0.5, "wait": -1.0, "back": -1.5}


@dataclasses.dataclass(frozen=True)
class Situation:
    """One step's view of the choice: the page, where it is, the memory, and the
    sets of options the step's rules singled out."""

    obs: observing.Observation
    place: str  # heuristic.place(obs)
    memory: memory.Memory
    harmful: frozenset[str]  # destructive options' signatures
    held: frozenset[str]  # of them, those held back (something is to be built first)
    early: frozenset[str]  # game-like moves held back while a control is untried
    rng: random.Random
    by_selector: dict[str, observing.Candidate]

    def candidate(self, action: evidence.Action) -> observing.Candidate | None:
        return self.by_selector.get(action.selector) if action.selector else None

    def tries_here(self, sig: str) -> int:
        return self.memory.tried[(self.place, sig)]

    def family_tries(self, sig: str) -> int:
        return self.memory.tried_family[self.memory.family(sig)]


Value = Callable[[Situation, str, evidence.Action], float]


@dataclasses.dataclass(frozen=True)
class Term:
    """A reason to prefer (positive weight) or avoid (negative) an option: it adds
    ``weight × value(situation, signature, action)``. ``value`` is 1 or 0 for a yes/no
    reason, a count or an amount otherwise (``unit`` says which)."""

    name: str
    weight: float
    value: Value
    unit: str
    doc: str


def _untried(s: Situation, sig: str, action: evidence.Action) -> float:
    fresh = s.family_tries(sig) < SIBLINGS or s.memory.family(sig) in s.memory.revealing
    return float(s.tries_here(sig) == 0 and fresh)


def _untried_sibling(s: Situation, sig: str, action: evidence.Action) -> float:
    fresh = s.family_tries(sig) < SIBLINGS or s.memory.family(sig) in s.memory.revealing
    return float(s.tries_here(sig) == 0 and not fresh)


def _tried_here(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(s.tries_here(sig))


def _steer(s: Situation, sig: str, action: evidence.Action) -> float:
    return min(s.memory.steers.get(sig, 0.0), STEER_CAP) * FADE ** s.memory.fruitless[sig]


def _echo(s: Situation, sig: str, action: evidence.Action) -> float:
    revealed = s.memory.revealed
    if revealed is None or action.kind != "click" or action.selector == revealed[0] \
            or revealed[1] not in s.memory.names_seen.get(action.selector or "", ()):
        return 0.0
    c = s.candidate(action)
    return float(c is not None and c.name != revealed[1])  # it shows something else now: hidden again


def _new_family(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(s.family_tries(sig) == 0)


def flipped(s: Situation, sig: str, action: evidence.Action) -> bool:
    """Is this toggle now the other way round than when it was last clicked?"""
    if action.kind != "check" or sig not in s.memory.toggled_from:
        return False
    c = s.candidate(action)
    return c is not None and c.checked is not None and c.checked != s.memory.toggled_from[sig]


def _last_gain(s: Situation, sig: str, action: evidence.Action) -> float:
    if sig in s.harmful or flipped(s, sig, action):
        return 0.0
    return min(s.memory.gains.get(sig, 0.0), GAIN_CAP)


def _undo(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(sig == s.memory.last and action.kind == "check")


def _changed_state(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(min(s.memory.changes[sig], CHANGES_CAP))


def _failed(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(s.memory.failures[sig])


def _just_appeared(s: Situation, sig: str, action: evidence.Action) -> float:
    if not action.selector or s.obs.step <= 1:
        return 0.0
    return float(s.obs.step - s.memory.born.get(rules.signature("", action.selector), 0) < RECENT_STEPS)


def _held_back(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(sig in s.held)


def _to_here(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(action.kind == "click" and rules.to_here(s.candidate(action), s.obs.url))


def early_filter(s: Situation, sig: str, action: evidence.Action) -> bool:
    """A filter, a route or a link to another view of the app tried before the list
    has a few items to filter (a stats view shows nothing of an empty list); another
    view waits EARLY_VIEW_STEPS steps at most (a list that will not grow past two
    items must not keep the app's other views out of reach)."""
    if action.kind == "route" or s.memory.family(sig).startswith(("view|", "route|")):
        is_filter = s.obs.step < EARLY_VIEW_STEPS
    elif action.kind in ("click", "check") and action.selector:
        c = s.candidate(action)
        is_filter = c is not None and (rules.filtering(c) or rules.bulk(c))
    else:
        return False
    return is_filter and rules.item_count(s.obs) < rules.FEW_ITEMS and rules.can_add_items(s.obs)


def _early_filter(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(early_filter(s, sig, action))


def _rebuild(s: Situation, sig: str, action: evidence.Action) -> float:
    if action.kind != "type" or not s.memory.torn_down:
        return 0.0
    c = s.candidate(action)
    return float(c is not None and c.item is None)


def _prior(s: Situation, sig: str, action: evidence.Action) -> float:
    return PRIORS.get(action.kind, 0.0)


def _tie_break(s: Situation, sig: str, action: evidence.Action) -> float:
    return s.rng.random()


def _twin(s: Situation, sig: str, action: evidence.Action) -> float:
    """Is it the other one of a pair with the element clicked last: a sibling of the
    same kind and name, where the siblings show two of each of several names (the
    cards of a memory game, whose faces are in the page before they are turned)?"""
    last = s.memory.last_clicked
    if last is None or action.kind != "click" or action.selector == last.selector:
        return 0.0
    c = s.candidate(action)
    if c is None or c.name != last.name or c.tag != last.tag or c.parents[:1] != last.parents[:1] or not c.name:
        return 0.0
    names = collections.Counter(x.name for x in s.obs.candidates if x.tag == c.tag and x.parents[:1] == c.parents[:1])
    return float(names[c.name] == 2 and len(names) >= 2 and sum(names.values()) >= 4)


def _early_guess(s: Situation, sig: str, action: evidence.Action) -> float:
    return float(sig in s.early)


YES = "yes / no"
# (in the order the score adds them: the sum's rounding, and so the trace, stays one)
TABLE: tuple[Term, ...] = (
    Term("untried_here", 3.0, _untried, YES,
         "never tried in this state, and its family (the same control in another list item, or elements "
         "whose listeners run the same handlers) tried fewer than SIBLINGS times or each of its members "
         "reveals something of its own (the cards of a memory game)"),
    Term("untried_sibling", 1.0, _untried_sibling, YES,
         "never tried in this state, but its family was tried SIBLINGS times already: the tenth dot of a "
         "chart with one handler for all is hardly worth a step"),
    Term("tried_here", -1.0, _tried_here, "tries in this state", "each earlier try of it in this state"),
    Term("steer", 2.0, _steer, f"points, at most {STEER_CAP:g}",
         "what it could still add to coverage (steering: the value of the handlers it fires, of key plays "
         "whose branches never ran, of waiting for timers whose callbacks never ran, of a link to a view the "
         "page was never on), kept at FADE per try of it since it last raised coverage"),
    Term("echo", 4.0, _echo, YES,
         "it once showed the name the last action just revealed on another element, and shows something "
         "else now: a tester remembers where they saw the other card of a pair"),
    Term("new_family", 2.0, _new_family, YES, "its family was never tried anywhere"),
    Term("last_gain", 1.0, _last_gain, f"points, at most {GAIN_CAP:g}",
         "the statement coverage its last try gained (a form's follow-ups credit theirs to the typing). "
         "Never for a destructive action (a delete pays once; repeating it only empties the page), nor for "
         "a toggle now the other way round (it paid for the way it went)"),
    Term("undo", -5.0, _undo, YES, "the checkbox, radio or switch toggled last step: twice in a row undoes it"),
    Term("changed_state", 0.5, _changed_state, f"times, at most {CHANGES_CAP}", "times it changed the page's state"),
    Term("failed", -2.5, _failed, "failures", "times it could not be performed (one that hung the page is never offered again)"),
    Term("just_appeared", 1.5, _just_appeared, YES,
         "its element appeared in the last RECENT_STEPS steps: a new list item's checkbox before the filters again"),
    Term("held_back", -6.0, _held_back, YES,
         "destructive (delete, remove, x, clear, reset, ...) while a constructive action of a never-tried "
         "family is on the page, or a rebuild is due, or (a list item's, once tried) while the list has "
         "fewer than rules.FEW_ITEMS items and a field to add them: state is built up first"),
    Term("to_here", -8.0, _to_here, YES,
         "a link to the very address the page is on (it outweighs what its last try gained elsewhere)"),
    Term("early_filter", -4.0, _early_filter, YES,
         "a list's filter (All / Active / Completed), a route of the app's router, a link to another view, "
         "or an action on the whole list (Toggle all), while the list has fewer than rules.FEW_ITEMS items and "
         "a field to add them; another view waits EARLY_VIEW_STEPS steps at most"),
    Term("rebuild", 5.0, _rebuild, YES,
         "typing into a free-standing field after a destructive action took items off the page, until the "
         "next typing: what was torn down is built again"),
    Term("twin", 6.0, _twin, YES,
         "the other element of a pair with the one clicked last: a sibling of the same kind and name, where "
         "the siblings hold two of each of several names (a memory game's cards, their faces in the page "
         "before they are turned)"),
    Term("prior", 1.0, _prior, "points", "a small prior per kind of action: " + ", ".join(
        f"{kind} {value:+g}" for kind, value in PRIORS.items())),
    Term("tie_break", 0.75, _tie_break, "a seeded draw in [0, 1)", "breaks ties, the same way for a seed"),
    Term("early_guess", -8.0, _early_guess, YES,
         "a game-like move (a key on the page, a press at some place of an element, anything on a "
         "container or a canvas) while a control of a never-tried family is on the page: every control is "
         "tried before the explorer guesses. A page that plays may spend up to PLAY_SHARE of its steps on "
         "such moves meanwhile"),
)
WEIGHTS = {term.name: term.weight for term in TABLE}


def score(s: Situation, sig: str, action: evidence.Action) -> tuple[float, dict[str, float]]:
    """An option's score and its non-zero terms (name → points), summed in TABLE's
    order."""
    total, parts = 0.0, {}
    for term in TABLE:
        points = term.weight * term.value(s, sig, action)
        if points:
            total += points
            parts[term.name] = round(points, 3)
    return total, parts
