"""What instrumenting leaves for the explorer: the five JSON files of an app's metadata
folder (``.iwc/``, kept out of the served site) and the original files, as one bundle.

The files are written by Node (instrument.js with facts.js, sites.js and vendor.js;
for a built app, building.py from js/recording.cjs and sites.js), so their formats are
declared here once and every file is validated when it is read back
(``parse``): a change on the JavaScript side that Python does not expect fails there,
naming the file and the field, instead of quietly steering or crediting nothing.

    coverage-map.json      coverage key -> Istanbul's initial FileCoverage (its own format)
    coverage-sources.json  coverage key -> the original source text (plateau guidance)
    sites.json             coverage key -> where its counters sit in the served code
    code-facts.json        coverage key -> facts for the explorer (calls, keys, timers)
    vendored.json          coverage key -> library code in it (counter ids, and why)
    original/<path>        every file instrumenting rewrote, as it was

Coverage keys are paths relative to the served root ("js/app.js"), "<page>#inline-N"
for inline blocks and "<page>#handlers" for a page's handler attributes. The bundle
keeps each file's JSON as parsed (the explorer's coverage arithmetic works on
Istanbul's own format); the models below are its schema. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, Literal, TypeVar

import pydantic

from iwcbench.pipeline.contracts import base, evidence


class _Node(pydantic.BaseModel):
    """Written by Node: strict types (no coercion), unknown fields an error."""

    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", strict=True)


# (branch id, arm): JSON has no tuples, so the pair is read from a list
Guard = Annotated[tuple[str, int], pydantic.Strict(False)]


# ---- Istanbul's FileCoverage (istanbul-lib-coverage), as instrument.js and the build write it
class Position(_Node):
    line: int | None = None  # absent: the implicit else of an if without one
    column: int | None = None  # null: Istanbul's Infinity (to the end of the line)


class Range(_Node):
    start: Position
    end: Position
    skip: bool | None = None  # /* istanbul ignore */


class FunctionMeta(_Node):
    name: str
    decl: Range
    loc: Range
    line: int
    skip: bool | None = None


class BranchMeta(_Node):
    loc: Range
    type: str  # if, cond-expr, switch, binary-expr, default-arg, ...
    locations: list[Range]
    line: int
    skip: bool | None = None


class FileCoverage(_Node):
    path: str
    statementMap: dict[str, Range]
    fnMap: dict[str, FunctionMeta]
    branchMap: dict[str, BranchMeta]
    s: dict[str, int]
    f: dict[str, int]
    b: dict[str, list[int]]
    coverage_schema: str | None = pydantic.Field(None, alias="_coverageSchema")
    hash: str | None = None
    inputSourceMap: dict[str, Any] | None = None  # a build's, when its bundler gave one
    # ours: "server" when only the app's own server runs the file (a SvelteKit load or
    # form action, a Remix loader module); its counters are read from the server
    side: Literal["server"] | None = None


SIDE = "side"  # FileCoverage's field of ours: the keys only the app's own server runs


def server_keys(coverage_map: dict) -> frozenset[str]:
    """The keys of ``coverage_map`` that only the app's own server runs."""
    return frozenset(k for k, fc in coverage_map.items() if isinstance(fc, dict) and fc.get(SIDE) == "server")


# ---- sites.js: where each counter sits in the code V8 runs
class Sites(_Node):
    """The counters of one script: UTF-16 offsets of each increment, by counter id
    (branches by arm), and the SHA-256 V8 knows the script by."""

    sha256: str
    s: dict[str, list[int]]
    f: dict[str, list[int]]
    b: dict[str, list[list[int]]]


# ---- facts.js: what the explorer reads from the code
class FunctionFacts(_Node):
    name: str | None  # None: an anonymous function
    calls: list[str]  # names it calls (or passes on)
    inner: list[str]  # ids of nested functions that run with it (not attached handlers)


class KeyFact(_Node):
    key: str  # as Playwright presses it ("ArrowUp", "Space", "z")
    mods: list[str]  # "Control", "Shift", "Alt"
    hold: bool  # read from a map of held keys (a game loop), not from an event
    fn: str | None  # Istanbul function id of the code reading it
    guards: list[Guard]  # (branch id, arm) the check sits under


class KeySequence(_Node):
    keys: list[str]
    users: list[str]  # function ids that read the array


class TimerFact(_Node):
    fn: str | None  # the function that schedules it
    callback: str | None  # its callback's function id, when it is a function literal
    callee: str | None  # its callback's name, when it is named
    delay: float | None  # ms; None: not a literal


class Pattern(_Node):
    """A regular expression the code tests input with, as JavaScript writes it."""

    source: str  # "^\\d{6}$"; a pattern attribute as the browser reads it: "^(?:[0-9]{4})$"
    flags: str  # "i", "g", "v" (a pattern attribute's)


class CodeFacts(_Node):
    fns: dict[str, FunctionFacts]
    keys: list[KeyFact]
    sequences: list[KeySequence]
    timers: list[TimerFact]
    # fid -> name, for functions other code can only reach by that name (a declaration,
    # `const f = () => …`), and every name the script uses: a named function no script
    # of the page mentions is unreachable (facts written before these came: none known)
    named: dict[str, str] = {}
    mentions: list[str] = []
    routes: list[str] = []  # "#/active", "/about": views the code routes to
    # what the code checks input against (checks.js; facts written before: none known):
    # strings it compares a value with ("SAVE20"), regexes it tests one with, and
    # numbers it compares one with (value.length < 8: 8)
    literals: list[str] = []
    patterns: list[Pattern] = []
    numbers: list[float] = []
    targets: list[str] = []  # selectors clicked elements are tested against (".seat"): event delegation


# ---- vendor.js: library code inside a script
class VendoredCode(_Node):
    reason: str  # "source map: 3 of 40 functions come from node_modules ...", "library banner (jQuery v3.7.1)"
    s: list[str]  # counter ids of library code
    f: list[str]
    b: list[str]


# ---- what instrument.js and sites.js print on stdout
class NodeOutcome(_Node):
    """instrument.js's result: the scripts it instrumented and those it skipped."""

    files: tuple[evidence.InstrumentedFile, ...]
    skipped: tuple[evidence.SkippedFile, ...]


class SitesOutcome(_Node):
    """sites.js run on a built site: how many keys it placed."""

    keys: int


@dataclasses.dataclass(frozen=True)
class File:
    """One JSON file of the metadata folder: its name and its schema."""

    name: str
    schema: pydantic.TypeAdapter
    about: str


COVERAGE_MAP = File("coverage-map.json", pydantic.TypeAdapter(dict[str, FileCoverage]),
                    "Istanbul's initial FileCoverage per coverage key")
SOURCE_TEXTS = File("coverage-sources.json", pydantic.TypeAdapter(dict[str, str]),
                    "the original source text per coverage key")
SITES = File("sites.json", pydantic.TypeAdapter(dict[str, Sites | list[Sites]]),
             "where the counters sit in the served code (a list: a page's handler attributes)")
FACTS = File("code-facts.json", pydantic.TypeAdapter(dict[str, CodeFacts]), "code facts per coverage key")
VENDORED = File("vendored.json", pydantic.TypeAdapter(dict[str, VendoredCode]), "library code per coverage key")
FILES: tuple[File, ...] = (COVERAGE_MAP, SOURCE_TEXTS, SITES, FACTS, VENDORED)
ORIGINALS = "original"  # folder: each file instrumenting rewrote, as it was
FOLDER = ".iwc"  # the metadata folder, inside the instrumented copy until the run moves it out


class Drift(ValueError):
    """A file Node wrote does not have the shape declared here (our bug, not the app's)."""


def parse(file: File, raw: bytes | str) -> dict:
    """The JSON of ``file``, checked against its schema (``Drift`` when it does not fit)."""
    try:
        data = json.loads(raw)
        file.schema.validate_python(data)
    except ValueError as exc:  # bad JSON, or pydantic.ValidationError
        raise Drift(f"{file.name} does not have the declared shape (contracts/instrumented.py): "
                    f"{_first_problem(exc)}") from exc
    return data


N = TypeVar("N", bound=_Node)


def check(schema: type[N], raw: bytes | str, what: str) -> N:
    """A Node process's stdout as ``schema`` (``Drift`` when it does not fit)."""
    try:
        return schema.model_validate_json(raw)
    except pydantic.ValidationError as exc:
        raise Drift(f"{what} does not have the declared shape: {_first_problem(exc)}") from exc


def _first_problem(exc: Exception) -> str:
    if isinstance(exc, pydantic.ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{exc.error_count()} problem(s), first at {where or 'the top'}: {first['msg']}"
    return str(exc)


class Instrumented(base.Model):
    """What instrumenting found and wrote for one app: its report and, when something
    was instrumented, the files the explorer is given. ``coverage_map`` None: black box
    (nothing to measure); then the other files are empty."""


    report: evidence.InstrumentationReport
    coverage_map: dict[str, Any] | None = None  # COVERAGE_MAP's JSON
    sources: dict[str, str] = {}  # SOURCE_TEXTS
    sites: dict[str, Any] = {}  # SITES' JSON
    facts: dict[str, CodeFacts] = {}  # FACTS, validated
    vendored: dict[str, Any] = {}  # VENDORED's JSON
    originals: dict[str, bytes] = {}  # ORIGINALS: served path -> the file as it was

    @property
    def measured(self) -> bool:
        """Is there code whose coverage is measured?"""
        return bool(self.coverage_map)
