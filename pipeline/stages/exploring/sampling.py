"""Short strings a JavaScript regular expression accepts, and near misses it refuses.

An app's handlers check input with regexes (``/^\\d{6}$/.test(code)``); the explorer
types a string the check accepts so the success branch runs, and a near miss so the
refusal runs too. Pure: source and flags in, a string (or None) out. A JS regex is
translated to Python's syntax, parsed with ``re._parser`` and walked: each repeat
runs its minimum ('+' once, '*' and '?' not at all), a class gives its most ordinary
member, simple positive lookaheads (``(?=.*\\d)``) are written into the text they guard.
Every answer is checked with Python's ``re`` the way JS's ``.test`` does (a search:
the anchors are in the pattern); what cannot be sampled or checked gives None, never
an exception. It must not guess: a string it cannot verify is not returned.
"""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

MAX_SOURCE = 512  # characters of regex source we try; longer ones are generated code
MAX_SAMPLE = 256
LONG_REPEATS = 16  # what an open-ended repeat runs in the long form ('+' → 16 times)
# a class's member, most ordinary first: 'a' for \w, '1' for \d (not 0: "at least one"
# checks), 'A' for [A-Z2-7]; then the rest of printable ASCII, then a few others
_PREFERRED = ("a1A" + "bcdefghijklmnopqrstuvwxyz" + "023456789" + "BCDEFGHIJKLMNOPQRSTUVWXYZ"
              + " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" + "\t\né€\u00a0日")
# what a near miss puts in place of one character, tried in this order
_SWAPS = ("a", "1", "A", " ", "!", "-", ".", "@", "_", "é")
# JS escapes of letters Python's re reads the same way; any other escaped letter is
# JS's identity escape (\e is "e") but an error in Python
_SAME_ESCAPES = frozenset("bBdDsSwWfnrtvx0123456789")
# a parsed (sub)pattern: re._parser's (opcode, argument) pairs
_Items = Any


class _Unsampled(Exception):
    """A construct this sampler does not write text for (a conditional group, \\p{L})."""


def matching(source: str, flags: str = "", long: bool = False) -> str | None:
    """A short string the JS regex ``/source/flags`` accepts, or None when none can be
    written and checked. ``long``: open-ended repeats run 16 times instead of their
    minimum (``[A-Z2-7]+`` gives 16 letters, a usable base32 secret, not one)."""
    return _matching(source, flags, long)


def not_matching(source: str, flags: str = "") -> str | None:
    """A near miss: the shortest accepted string with one character changed to one the
    regex refuses (the last character first), else one character short, else one too
    many; None when the regex accepts every such change or cannot be sampled. Never
    the empty string (a tester types that anyway)."""
    valid = _matching(source, flags, False)
    compiled = _compiled(source, flags)
    if valid is None or compiled is None:
        return None
    swapped = (valid[:i] + ch + valid[i + 1:] for i in reversed(range(len(valid))) for ch in _SWAPS if ch != valid[i])
    for text in (*swapped, valid[:-1], valid + valid[-1:], valid + "!"):
        if text and compiled.search(text) is None:
            return text
    return None


def matches(source: str, flags: str, text: str) -> bool:
    """Does the JS regex accept ``text`` (as ``.test`` would)? False when it cannot be read."""
    compiled = _compiled(source, flags)
    return compiled is not None and compiled.search(text) is not None


@functools.lru_cache(maxsize=2048)
def _matching(source: str, flags: str, long: bool) -> str | None:
    compiled = _compiled(source, flags)
    if compiled is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = _parser.parse(compiled.pattern, compiled.flags)
    for overlay in (True, False):
        try:
            text = _Writer(long, overlay).sequence(tree)
        except (_Unsampled, RecursionError):
            return None
        if len(text) <= MAX_SAMPLE and compiled.search(text) is not None:
            return text
    return None


@functools.lru_cache(maxsize=2048)
def _compiled(source: str, flags: str) -> re.Pattern[str] | None:
    python = translate(source) if len(source) <= MAX_SOURCE else None
    if python is None:
        return None
    # ASCII: JS's \d and \w are ASCII (unicode only with the u flag's \p{…}, which we refuse)
    options = re.ASCII
    options |= re.IGNORECASE if "i" in flags else 0
    options |= re.MULTILINE if "m" in flags else 0
    options |= re.DOTALL if "s" in flags else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JS's [[] is Python's "possible nested set" warning
        try:
            return re.compile(python, options)
        except (re.error, OverflowError, RecursionError):
            return None


def translate(source: str) -> str | None:
    """JS regex source in Python's syntax: named groups and their references, JS's
    ``[^]`` (anything) and ``[]`` (nothing), ``\\u{…}``, ``\\cX`` and identity escapes
    of letters; None for ``\\p{…}`` property escapes, which Python's re lacks."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            piece, i = _escape(source, i, in_class)
            if piece is None:
                return None
            out.append(piece)
            continue
        if not in_class and source.startswith("[^]", i):
            out.append(r"[\s\S]")
            i += 3
            continue
        if not in_class and source.startswith("[]", i):
            out.append("(?!)")
            i += 2
            continue
        if not in_class and source.startswith("(?<", i) and not source.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            if source.startswith("[^", i):
                out.append("^")
                i += 1
        elif ch == "[" and in_class:
            out.append(r"\[")  # literal in a JS class, a nested-set warning in Python
        elif ch == "]" and in_class:
            in_class = False
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _escape(source: str, i: int, in_class: bool) -> tuple[str | None, int]:
    """The Python form of the escape at ``source[i]`` and where the text goes on."""
    nxt = source[i + 1]
    if nxt in "pP":
        return None, i + 2
    if nxt == "k" and source.startswith("<", i + 2) and ">" in source[i + 3:]:
        end = source.index(">", i + 3)
        return f"(?P={source[i + 3:end]})", end + 1
    if nxt == "u" and source.startswith("{", i + 2) and "}" in source[i + 3:]:
        end = source.index("}", i + 3)
        try:
            return re.escape(chr(int(source[i + 3:end], 16))), end + 1
        except (ValueError, OverflowError):
            return None, end + 1
    if nxt == "c" and i + 2 < len(source) and source[i + 2].isascii() and source[i + 2].isalpha():
        return re.escape(chr(ord(source[i + 2]) % 32)), i + 3
    if nxt == "B" and in_class:
        return "B", i + 2
    if nxt.isascii() and nxt.isalpha() and nxt not in _SAME_ESCAPES and nxt != "u":
        return nxt, i + 2
    return source[i:i + 2], i + 2


class _Writer:
    """Writes one string for a parsed pattern: each node's most ordinary text."""

    def __init__(self, long: bool, overlay: bool) -> None:
        self.long = long
        # positive lookaheads' text written over the text that follows them (True) or
        # in front of it (False): "A1" over "aaaaaaaa" for (?=.*[A-Z])(?=.*\d).{8,}
        self.overlay = overlay
        self.groups: dict[int, str] = {}

    def sequence(self, items: _Items) -> str:
        out: list[str] = []
        ahead: list[str] = []  # text positive lookaheads want at this point
        for op, av in items:
            if op is sre.ASSERT and av[0] == 1:
                ahead.append(self.sequence(av[1]))
                continue
            out.append(self.node(op, av))
        text = "".join(out)
        wanted = "".join(ahead)
        if not wanted:
            return text
        if self.overlay and len(text) >= len(wanted):
            return wanted + text[len(wanted):]
        return wanted + text

    def node(self, op: Any, av: Any) -> str:
        if op is sre.LITERAL:
            return chr(av)
        if op is sre.NOT_LITERAL:
            return _member([(sre.NEGATE, None), (sre.LITERAL, av)])
        if op is sre.ANY:
            return "a"
        if op is sre.IN:
            return _member(av)
        if op is sre.BRANCH:
            return self._branch(av[1])
        if op is sre.SUBPATTERN:
            group, _, _, inner = av
            text = self.sequence(inner)
            if group is not None:
                self.groups[group] = text
            return text
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, inner = av
            count = max(low, LONG_REPEATS) if self.long and high == sre.MAXREPEAT and low >= 1 else low
            return "".join(self.sequence(inner) for _ in range(count))
        if op is sre.ATOMIC_GROUP:
            return self.sequence(av)
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            return ""  # anchors and other assertions: the final check decides
        if op is sre.GROUPREF and av in self.groups:
            return self.groups[av]
        raise _Unsampled(str(op))

    def _branch(self, alternatives: list[_Items]) -> str:
        for alternative in alternatives:
            try:
                return self.sequence(alternative)
            except _Unsampled:
                continue
        raise _Unsampled("branch")


def _member(items: _Items) -> str:
    """The most ordinary character of a class (``[A-Z2-7]`` → "A", ``[^@\\s]`` → "a")."""
    for ch in _PREFERRED:
        if _in_class(ch, items):
            return ch
    for op, av in items:  # a class of nothing ordinary ([\u4e00-\u9fa5]): its first member
        if op is sre.LITERAL:
            return chr(av)
        if op is sre.RANGE:
            return chr(av[0])
    raise _Unsampled("class")


def _in_class(ch: str, items: _Items) -> bool:
    code = ord(ch)
    negate = bool(items) and items[0][0] is sre.NEGATE
    found = False
    for op, av in items[1:] if negate else items:
        if op is sre.LITERAL:
            found = code == av
        elif op is sre.RANGE:
            found = av[0] <= code <= av[1]
        elif op is sre.CATEGORY:
            found = _in_category(ch, av)
        else:
            raise _Unsampled(str(op))
        if found:
            break
    return found != negate


def _in_category(ch: str, category: Any) -> bool:
    ascii_word = ch.isascii() and (ch.isalnum() or ch == "_")
    table = {
        sre.CATEGORY_DIGIT: ch.isascii() and ch.isdigit(),
        sre.CATEGORY_NOT_DIGIT: not (ch.isascii() and ch.isdigit()),
        sre.CATEGORY_WORD: ascii_word,
        sre.CATEGORY_NOT_WORD: not ascii_word,
        sre.CATEGORY_SPACE: ch.isspace(),
        sre.CATEGORY_NOT_SPACE: not ch.isspace(),
    }
    if category not in table:
        raise _Unsampled(str(category))
    return table[category]
