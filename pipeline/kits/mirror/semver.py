"""The small subset of npm's semver that CDN URLs use: versions, ranges, dist-tags.

Supported: exact versions (``1.2.3``, ``v1.2.3``, pre-releases, build metadata),
partials and wildcards (``4``, ``4.4``, ``4.x``, ``*``), ``^``, ``~``, comparators
(``>=``, ``<=``, ``>``, ``<``, ``=``) joined by spaces, hyphen ranges (``1 - 2``), and
``||``. Pre-releases match only when the range names a pre-release of the same
``major.minor.patch`` (npm's rule). Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Mapping

_VERSION = re.compile(
    r"^\s*[v=]?\s*(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?\s*$")
_PARTIAL = re.compile(
    r"^[v=]?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
_COMPARATOR = re.compile(r"^(\^|~>?|>=|<=|>|<|=)?\s*(.*)$")


@dataclasses.dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple = ()  # pre-release identifiers: (0, n) numeric, (1, s) text

    @property
    def key(self) -> tuple:
        # A release sorts after all of its pre-releases.
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, self.pre)

    def __lt__(self, other: "Version") -> bool:
        return self.key < other.key

    def __le__(self, other: "Version") -> bool:
        return self.key <= other.key

    def __gt__(self, other: "Version") -> bool:
        return self.key > other.key

    def __ge__(self, other: "Version") -> bool:
        return self.key >= other.key

    @property
    def triple(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)


def _pre(text: str | None) -> tuple:
    if not text:
        return ()
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in text.split("."))


def parse(text: str) -> Version | None:
    """A full version, or None when ``text`` is not one."""
    m = _VERSION.match(text)
    if not m:
        return None
    return Version(int(m[1]), int(m[2]), int(m[3]), _pre(m[4]))


_FLOOR_PRE = ((0, 0),)  # "-0": the lowest pre-release, so "<5.0.0-0" excludes 5's pre-releases


def _wild(part: str | None) -> bool:
    return part is None or part in ("x", "X", "*")


def _comparators(token: str) -> list[tuple[str, Version]] | None:
    """One comparator token → bounds as (op, version); [] means any; None: invalid."""
    m = _COMPARATOR.match(token)
    if not m:
        return None
    op, rest = m[1] or "", m[2].strip()
    if rest in ("", "*", "x", "X", "latest"):
        return [] if op in ("", "=", ">=", "^", "~", "~>") else None
    p = _PARTIAL.match(rest)
    if not p:
        return None
    raw = [p[1], p[2], p[3]]
    parts = [None if _wild(x) else int(x) for x in raw]
    pre = _pre(p[4])
    if parts[0] is None:
        return []
    major = parts[0]
    minor = parts[1] if parts[1] is not None else 0
    patch = parts[2] if parts[2] is not None else 0
    low = Version(major, minor, patch, pre)
    if parts[1] is None:
        high = Version(major + 1, 0, 0, _FLOOR_PRE)
    elif parts[2] is None:
        high = Version(major, minor + 1, 0, _FLOOR_PRE)
    else:
        high = None
    if op in ("", "="):
        return [(">=", low), ("<", high)] if high else [("=", low)]
    if op in ("~", "~>"):
        top = Version(major + 1, 0, 0, _FLOOR_PRE) if parts[1] is None else Version(major, minor + 1, 0, _FLOOR_PRE)
        return [(">=", low), ("<", top)]
    if op == "^":
        if major > 0 or parts[1] is None:
            top = Version(major + 1, 0, 0, _FLOOR_PRE)
        elif minor > 0 or parts[2] is None:
            top = Version(0, minor + 1, 0, _FLOOR_PRE)
        else:
            top = Version(0, 0, patch + 1, _FLOOR_PRE)
        return [(">=", low), ("<", top)]
    if op == ">":
        return [(">=", high)] if high else [(">", low)]
    if op == "<=":
        return [("<", high)] if high else [("<=", low)]
    return [(op, low)]  # ">=", "<"


def _compare(op: str, version: Version, bound: Version) -> bool:
    if op == "=":
        return version.key == bound.key
    if op == ">=":
        return version >= bound
    if op == ">":
        return version > bound
    if op == "<=":
        return version <= bound
    return version < bound  # "<"


@dataclasses.dataclass(frozen=True)
class Range:
    sets: tuple[tuple[tuple[str, Version], ...], ...]  # OR of ANDs

    def matches(self, version: Version) -> bool:
        for bounds in self.sets:
            if not all(_compare(op, version, b) for op, b in bounds):
                continue
            if not version.pre:
                return True
            # npm: a pre-release matches only if the range names one of the same triple.
            if any(b.pre and b.pre != _FLOOR_PRE and b.triple == version.triple for _, b in bounds):
                return True
        return False


def parse_range(text: str) -> Range | None:
    """A range, or None when ``text`` is not one (it may then be a dist-tag)."""
    sets = []
    for alternative in text.split("||"):
        alternative = alternative.strip()
        hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", alternative)
        if hyphen:
            low, high = _comparators(">=" + hyphen[1]), _comparators("<=" + hyphen[2])
            if low is None or high is None:
                return None
            sets.append(tuple(low + high))
            continue
        # "^ 1.2" and ">= 1.2" are allowed: glue operators to their operands first.
        tokens = re.sub(r"(\^|~>?|>=|<=|>|<|=)\s+", r"\1", alternative).split()
        bounds: list[tuple[str, Version]] = []
        for token in tokens or [""]:
            found = _comparators(token)
            if found is None:
                return None
            bounds.extend(found)
        sets.append(tuple(bounds))
    return Range(tuple(sets))


def pick(wanted: str, versions: Iterable[str], tags: Mapping[str, str]) -> str | None:
    """The version an npm CDN serves for ``wanted``: a dist-tag's version, the exact
    version, or the highest version in the range (pre-releases only when named).
    ``""`` and ``latest`` mean the ``latest`` tag (the highest stable without one)."""
    available = {v: parsed for v in versions if (parsed := parse(v)) is not None}
    wanted = wanted.strip()
    if wanted in ("", "latest") and tags.get("latest") in available:
        return tags["latest"]
    if wanted in tags and tags[wanted] in available:
        return tags[wanted]
    exact = parse(wanted)
    if exact is not None:
        for text, parsed in available.items():
            if parsed.key == exact.key:
                return text
        return None
    wanted_range = parse_range(wanted)
    if wanted_range is None:
        return None
    matching = [(parsed, text) for text, parsed in available.items() if wanted_range.matches(parsed)]
    return max(matching, key=lambda m: m[0].key)[1] if matching else None
