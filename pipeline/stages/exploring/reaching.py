"""What of an app's code has not run yet, and what might still run it: the steering
signal of the heuristic explorer.

Pure: Istanbul's coverage map and live counters, the code facts instrumenting
wrote (pipeline/js/facts.js: calls, keys, timers per function) and the source text
of the handlers the page attached, in; numbers and key plays out. ``Code`` is built
once per exploration, ``Reach`` once per coverage snapshot. It must not touch the
page or keep state between snapshots.

The value of a function is what running it could add: 1 if it never ran, plus a
little for each statement of it that never ran, plus — halved at each level — the
value of what it calls by name (three levels deep). A handler's value is the value
of its function; an action's value is the best value among the handlers it fires.

What can still run (``Reach.open_code``): a function that never ran is dead when
nothing can call it — a named function no script of the page mentions and no handler
the page attached names (facts.js's ``named`` and ``mentions``), or one nested in a
dead function. Everything else that never ran, and every statement that never ran in
a function that did, is open: the exploration goes on while any is left.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import re
from typing import Any

from iwcbench.pipeline.contracts import instrumented

DEPTH = 3  # call levels followed by name
STATEMENT_WEIGHT = 0.05  # value of one statement that never ran, inside a function that did
STATEMENT_CAP = 1.0
_COUNTER = re.compile(r"(cov_[A-Za-z0-9_$]+)\(\)\.f\[(\d+)\]")
_CALLED = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_NOT_CALLS = {"if", "for", "while", "switch", "catch", "function", "return", "typeof", "new"}
HANDLER_CHARS = 4000  # of a handler's source read for names when it carries no counter
HOLD_MS = 700  # a held key's first hold (the heuristic holds longer when it repeats one)
NO_MENTION = "nothing mentions it"
STORAGE = frozenset({"localStorage", "sessionStorage", "indexedDB"})
PAUSES = {"p", "P", "KeyP", "Escape", "Pause"}
PAUSE_WEIGHT = 0.3  # the most a pause key read in a game loop weighs (open keys weigh 1 and up)
# (by key and by code: `e.code === 'KeyD'` is as much a move as `e.key === 'd'`)
MOVES = {"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "w", "a", "s", "d", "W", "A", "S", "D",
         "KeyW", "KeyA", "KeyS", "KeyD"}


def coverage_variable(key: str) -> str:
    """The name Istanbul gives a file's coverage function (istanbul-lib-instrument's
    genVar: 'cov_' + the first 12 hex digits of SHA-1(path), in base 36)."""
    digest = int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:12], 16)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        digest, rest = divmod(digest, 36)
        text = digits[rest] + text
        if digest == 0:
            return "cov_" + text


def _position(loc: dict | None) -> tuple[int, int]:
    start = (loc or {}).get("start") or {}
    return (start.get("line") or 0, start.get("column") or 0)


def _end(loc: dict | None) -> tuple[int, int]:
    end = (loc or {}).get("end") or {}
    return (end.get("line") or 0, end.get("column") or 0)


@dataclasses.dataclass(frozen=True)
class OpenCode:
    """What of the app's own code never ran, split by whether the page may still run it."""

    functions: tuple[tuple[str, str], ...]  # never ran, and something may call them
    statements: int  # never ran, inside functions that ran
    dead: tuple[tuple[str, str, str], ...]  # (file, fid, why) never ran, and nothing calls them

    @property
    def reachable(self) -> bool:
        return bool(self.functions or self.statements)


@dataclasses.dataclass(frozen=True)
class KeyPlay:
    """Keys to press (``value`` in the action grammar) and why: the branch arms they
    guard that never ran, or the function they belong to."""

    value: str  # "Control+z", "ArrowUp ArrowUp ...", "hold:ArrowRight:700"
    hold: bool
    weight: float


class Code:
    """The static side: functions by (file, id), names to functions, statements and
    branch arms inside each function, key facts and timers."""

    def __init__(self, coverage_map: dict, facts: dict[str, instrumented.CodeFacts] | None) -> None:
        self.coverage_map = coverage_map
        self.facts: dict[str, instrumented.CodeFacts] = facts or {}
        self.variables = {coverage_variable(key): key for key in coverage_map}
        self.names: dict[str, list[tuple[str, str]]] = {}
        self.calls: dict[tuple[str, str], tuple[str, ...]] = {}
        self.inner: dict[tuple[str, str], tuple[str, ...]] = {}
        self.statements: dict[tuple[str, str], tuple[str, ...]] = {}
        for key, initial in coverage_map.items():
            fns = initial.get("fnMap") or {}
            file_facts = self.facts[key].fns if key in self.facts else {}
            starts = sorted((_position(loc), sid) for sid, loc in (initial.get("statementMap") or {}).items())
            positions = [p for p, _ in starts]
            for fid, fn in fns.items():
                fact = file_facts.get(fid)
                name = (fact.name if fact is not None else None) or (
                    fn.get("name") if not str(fn.get("name", "")).startswith("(anonymous") else None)
                if name:
                    self.names.setdefault(name, []).append((key, fid))
                self.calls[(key, fid)] = tuple(dict.fromkeys(fact.calls)) if fact is not None else ()
                self.inner[(key, fid)] = tuple(fact.inner) if fact is not None else ()
                lo, hi = _position(fn.get("loc")), _end(fn.get("loc"))
                first = bisect.bisect_left(positions, lo)
                last = bisect.bisect_right(positions, hi)
                self.statements[(key, fid)] = tuple(sid for _, sid in starts[first:last])
        self.parent, self.owner = _nesting(coverage_map)
        self.named = {(key, fid): name for key, file_facts in self.facts.items() if not key.endswith("#handlers")
                      for fid, name in file_facts.named.items()}
        self.routes = tuple(dict.fromkeys(route for file_facts in self.facts.values() for route in file_facts.routes))
        self.mentioned = {name for file_facts in self.facts.values() for name in file_facts.mentions}
        # (what it stored shows again only after a reload: lists kept in localStorage)
        self.stores = bool(self.mentioned & STORAGE)

    def unmentioned(self, handler_names: frozenset[str]) -> set[tuple[str, str]]:
        """Named functions nothing mentions: no script, and no handler the page attached."""
        return {target for target, name in self.named.items()
                if name not in self.mentioned and name not in handler_names}

    def handler_functions(self, source: str) -> list[tuple[str, str]]:
        """The functions a handler runs: its own (from the first Istanbul counter in
        its source) or, for code without counters (an inline ``onclick="start()"``),
        the functions it calls by name."""
        match = _COUNTER.search(source[:HANDLER_CHARS])
        if match and match.group(1) in self.variables:
            return [(self.variables[match.group(1)], match.group(2))]
        found: list[tuple[str, str]] = []
        for name in _CALLED.findall(source[:HANDLER_CHARS]):
            if name not in _NOT_CALLS:
                found.extend(self.names.get(name, ()))
        return found


class Reach:
    """The dynamic side: values against one coverage snapshot (merged counters)."""

    def __init__(self, code: Code, coverage: dict) -> None:
        self.code = code
        self.coverage = coverage
        self._memo: dict[tuple[str, str, int], float] = {}

    def _counts(self, key: str, metric: str) -> dict:
        return (self.coverage.get(key) or {}).get(metric) or {}

    def ran(self, key: str, fid: str) -> bool:
        return _number(self._counts(key, "f").get(fid)) > 0

    def _unrun_statements(self, key: str, fid: str) -> int:
        counts = self._counts(key, "s")
        return sum(1 for sid in self.code.statements.get((key, fid), ()) if _number(counts.get(sid)) <= 0)

    def own(self, key: str, fid: str) -> float:
        """What running this function itself could add."""
        if not self.ran(key, fid):
            return 1.0 + min(STATEMENT_CAP, STATEMENT_WEIGHT * len(self.code.statements.get((key, fid), ())))
        return min(STATEMENT_CAP, STATEMENT_WEIGHT * self._unrun_statements(key, fid))

    def value(self, key: str, fid: str, depth: int = DEPTH) -> float:
        """(Recursion through a cycle is cut by the depth; values are memoised per
        depth, so a function reached along two paths is computed once.)"""
        memo = (key, fid, depth)
        if memo in self._memo:
            return self._memo[memo]
        self._memo[memo] = total = self.own(key, fid)  # a cycle back here sees its own part only
        if depth > 0:
            nested = [(key, inner) for inner in self.code.inner.get((key, fid), ())]
            called = [target for name in self.code.calls.get((key, fid), ()) for target in self.code.names.get(name, ())]
            for target in dict.fromkeys(nested + called):
                if target != (key, fid):
                    total += 0.5 * self.value(target[0], target[1], depth - 1)
        self._memo[memo] = total
        return total

    def handler_value(self, source: str) -> float:
        return max((self.value(k, f) for k, f in self.code.handler_functions(source)), default=0.0)

    def arm_ran(self, key: str, bid: str, arm: int) -> bool:
        hits = self._counts(key, "b").get(bid) or []
        return arm < len(hits) and _number(hits[arm]) > 0

    def _key_weight(self, key: str, fact: instrumented.KeyFact, open_arms: list) -> float:
        """What pressing one key the code reads could add (see key_plays)."""
        fn = fact.fn
        if open_arms:
            weight = 1.0 + 0.5 * len(open_arms)
        elif not fact.guards and fn is not None and self.own(key, str(fn)) > 0:
            weight = 0.5
        else:
            weight = 0.1
        if fact.hold and fact.key in PAUSES:
            # A pause read in the game loop (keys["p"]) is kept for when the rest is
            # played out: a game paused early is played no further, and one whose
            # loop stops reading keys while paused cannot be resumed. (A keydown
            # handler's pause toggles back, and its Escape closes a dialog or
            # cancels an edit: left as they are.)
            return min(weight, PAUSE_WEIGHT)
        if fact.hold and fn is not None:
            # A loop reading held keys is a game still to be played while the
            # loop (or what it calls) has code that never ran.
            weight = max(weight, min(1.2, 0.6 * self.value(key, str(fn))))
        return weight

    def key_plays(self) -> list[KeyPlay]:
        """Keys the code compares against whose branch arms never ran (weight 1 and
        up), then the other keys it knows (weight 0.1): single keys with their
        modifiers, held keys, and arrays of keys pressed as one sequence."""
        plays: dict[str, KeyPlay] = {}
        for key, facts in self.code.facts.items():
            by_handler: dict[str, list[str]] = {}  # handler fid -> its keys with open arms, in order
            held: dict[str, float] = {}  # held key -> weight
            # (a key compared in two handlers — keydown sets `keys.right = true`, keyup
            # sets it back — is held as a game loop would read it: tapped, it moves a frame)
            readers: dict[str, set[str]] = {}
            for fact in facts.keys:
                if not fact.hold and fact.key in MOVES and fact.fn is not None:
                    readers.setdefault("+".join([*fact.mods, fact.key]), set()).add(str(fact.fn))
            for name in (n for n, fns in readers.items() if len(fns) >= 2):
                value = f"hold:{name}:{HOLD_MS}"
                weight = max(self._key_weight(key, f, []) for f in facts.keys if "+".join([*f.mods, f.key]) == name)
                held[name] = max(held.get(name, 0.0), weight)
                plays.setdefault(value, KeyPlay(value=value, hold=True, weight=weight))
            for fact in facts.keys:
                open_arms = [g for g in fact.guards if not self.arm_ran(key, str(g[0]), int(g[1]))]
                fn = fact.fn
                weight = self._key_weight(key, fact, open_arms)
                name = "+".join([*fact.mods, fact.key])
                value = f"hold:{name}:{HOLD_MS}" if fact.hold else name
                if fact.hold:
                    held[name] = max(held.get(name, 0.0), weight)
                if value not in plays or plays[value].weight < weight:
                    plays[value] = KeyPlay(value=value, hold=fact.hold, weight=weight)
                if open_arms and fn is not None and not fact.hold and name not in by_handler.get(str(fn), []):
                    by_handler.setdefault(str(fn), []).append(name)
            # Moving while pressing an action key (fire, jump, sprint): held together.
            # (never a pause key: held with a move it pauses and resumes every frame)
            moves = [k for k in held if k in MOVES]
            actions = [k for k in held if k not in MOVES and k not in PAUSES]
            for move in moves[:4]:
                for act in actions[:2]:
                    value = f"hold:{move}+{act}:{HOLD_MS}"
                    plays.setdefault(value, KeyPlay(value=value, hold=True, weight=max(held[move], held[act])))
            # One handler's open keys in a row: "Tab Enter" reaches what needs both.
            for names in by_handler.values():
                if 2 <= len(names):
                    value = " ".join(names[:4])
                    plays.setdefault(value, KeyPlay(value=value, hold=False, weight=1.2))
            for sequence in facts.sequences:
                users = sequence.users
                open_users = any(self.own(key, str(fid)) > 0 or any(self.own(key, inner) > 0 for inner in self.code.inner.get((key, str(fid)), ()))
                                 for fid in users)
                called_open = any(self.value(key, str(fid)) > self.own(key, str(fid)) for fid in users)
                weight = 1.5 if open_users or called_open else 0.1
                value = " ".join(sequence.keys)
                if value not in plays or plays[value].weight < weight:
                    plays[value] = KeyPlay(value=value, hold=False, weight=weight)
        return sorted(plays.values(), key=lambda p: (-p.weight, p.value))

    def handler_keys(self, source: str) -> list[tuple[str, float]]:
        """Keys a handler (or what runs with it) compares against, as (Playwright key,
        weight): 1 and up while branch arms they guard never ran, else 0.1 — the Escape
        and Enter of an edit field."""
        found: dict[str, float] = {}
        for key, fid in self.code.handler_functions(source):
            fids = {fid, *self.code.inner.get((key, fid), ())}
            for fact in self.code.facts[key].keys if key in self.code.facts else ():
                if str(fact.fn) not in fids or fact.hold:
                    continue
                open_arms = [g for g in fact.guards if not self.arm_ran(key, str(g[0]), int(g[1]))]
                weight = 1.0 + 0.5 * len(open_arms) if open_arms else 0.1
                name = "+".join([*fact.mods, fact.key])
                found[name] = max(found.get(name, 0.0), weight)
        return sorted(found.items(), key=lambda item: (-item[1], item[0]))

    def pending_timers(self) -> list[float]:
        """Delays (ms) of timers that were scheduled (their scheduler ran) but whose
        callback never ran: waiting may run them. Unknown delays count as 1000."""
        delays: list[float] = []
        for key, facts in self.code.facts.items():
            if key not in self.coverage:
                continue
            for timer in facts.timers:
                scheduler = timer.fn
                if scheduler is not None and not self.ran(key, str(scheduler)):
                    continue
                targets: list[tuple[str, str]] = []
                if timer.callback is not None:
                    targets.append((key, str(timer.callback)))
                elif timer.callee:
                    targets.extend(self.code.names.get(timer.callee, ()))
                if any(self.value(k, f, depth=1) > 0.2 for k, f in targets):
                    delays.append(float(timer.delay) if timer.delay is not None else 1000.0)
        return delays

    def open_code(self, handler_names: frozenset[str] = frozenset()) -> OpenCode:
        """What never ran, split into what the page may still run and what nothing calls
        (``handler_names``: names the page's attached handlers call)."""
        code = self.code
        unmentioned = code.unmentioned(handler_names)
        dead: dict[tuple[str, str], str] = {}
        live: list[tuple[str, str]] = []
        for key, initial in code.coverage_map.items():
            for fid in initial.get("fnMap") or {}:
                if self.ran(key, fid):
                    continue
                if (key, fid) in unmentioned:
                    dead[(key, fid)] = f"{code.named[(key, fid)]}: {NO_MENTION}"
                    continue
                outer = code.parent.get((key, fid))
                while outer is not None and not self.ran(*outer) and outer not in unmentioned:
                    outer = code.parent.get(outer)
                if outer is not None and outer in unmentioned and not self.ran(*outer):
                    dead[(key, fid)] = f"inside {code.named[outer]}, which nothing mentions"
                else:
                    live.append((key, fid))
        statements = 0
        for key in code.coverage_map:
            counts = self._counts(key, "s")
            for sid, owner in code.owner.get(key, {}).items():
                if _number(counts.get(sid)) <= 0 and self.ran(key, owner):
                    statements += 1
        return OpenCode(functions=tuple(live), statements=statements,
                        dead=tuple((k, f, why) for (k, f), why in dead.items()))


def _nesting(coverage_map: dict) -> tuple[dict[tuple[str, str], tuple[str, str]], dict[str, dict[str, str]]]:
    """Each function's innermost enclosing function, and each statement's innermost
    function (statements outside every function have none), by location: one sweep
    per file over starts in order, with a stack of the functions still open."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}
    owner: dict[str, dict[str, str]] = {}
    for key, initial in coverage_map.items():
        spans = sorted(((_position(fn.get("loc")), _inverse(_end(fn.get("loc"))), fid)
                        for fid, fn in (initial.get("fnMap") or {}).items()))
        items = [(start, 0, end, fid) for start, end, fid in spans]
        items += [(_position(loc), 1, _inverse(_end(loc)), sid)
                  for sid, loc in (initial.get("statementMap") or {}).items()]
        items.sort()
        stack: list[tuple[tuple[int, int], str]] = []  # (end, fid) of the functions open here
        mine: dict[str, str] = {}
        for start, kind, end, ident in items:
            while stack and stack[-1][0] < start:
                stack.pop()
            if kind == 0:
                if stack:
                    parent[(key, ident)] = (key, stack[-1][1])
                stack.append((_inverse(end), ident))
            elif stack:
                mine[ident] = stack[-1][1]
        owner[key] = mine
    return parent, owner


def _inverse(position: tuple[int, int]) -> tuple[int, int]:
    """(an end sorted descending: of two spans starting together, the longer first)"""
    return (-position[0], -position[1])


def _number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
