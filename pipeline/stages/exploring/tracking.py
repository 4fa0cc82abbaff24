"""The coverage part of the explorer: Istanbul's counters of the documents the page
has shown, kept across page loads, and credited only where V8 saw the code run
(crediting.py). It reads the page's counters when asked; it must not act on the page
or decide anything about the exploration."""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.request

from iwcbench.pipeline.contracts import evidence, instrumented
from iwcbench.pipeline.kits import browser, capturing
from iwcbench.pipeline.stages.exploring import coverage as istanbul, crediting, observing, timing

HANG_S = observing.HANG_S


@dataclasses.dataclass(frozen=True)
class Measured:
    """What instrumenting gave for an app whose code is measured."""

    coverage_map: dict  # Istanbul's initial FileCoverage per coverage key (its own format)
    own_map: dict  # coverage_map without recognised library code
    sites: dict  # where each counter sits in the served code (crediting.py)
    facts: dict[str, instrumented.CodeFacts]  # what the code does, per coverage key (steering)
    # where the app's own server gives its counters (contracts/servers.py), None: not asked
    server_counters: str | None = None


MAX_TARGETS = 40


def targets(facts: dict[str, instrumented.CodeFacts]) -> tuple[str, ...]:
    """The selectors the app's code tests clicked elements against, every file's, the
    first MAX_TARGETS (observing.observe offers what passes them)."""
    return tuple(dict.fromkeys(t for file_facts in facts.values() for t in file_facts.targets))[:MAX_TARGETS]


class Tracker:
    """The counters of one exploration. Black box (``measured`` None): nothing is read."""

    def __init__(self, measured: Measured | None, parts: timing.Parts) -> None:
        self.measured = measured
        self.parts = parts
        self.base: dict = {}  # counters of documents already left
        self.live: dict | None = None  # counters of the current document
        self.doc: float | None = None
        self.confirmed: set[crediting.Counter] = set()  # counters V8 saw run
        self._unconfirmed: dict = {}  # claimed, not confirmed, at the last V8 take
        self.forged_noted = 0
        self.summary = evidence.CoverageSummary()
        # False once the harness was lightened (verifying.py): V8 is no longer asked,
        # and the counters the page reports are credited as they are
        self.crediting = True
        # the app's server-side counters, as its server last gave them (they run in its
        # process, out of the page's reach: counted as they are); None: it has none
        self.server: dict = {}
        self.server_url = measured.server_counters if measured is not None else None

    @property
    def coverage_map(self) -> dict | None:
        return self.measured.coverage_map if self.measured is not None else None

    @property
    def own_map(self) -> dict | None:
        return self.measured.own_map if self.measured is not None else None

    def claimed(self) -> dict:
        """Istanbul's counters as the page reported them (the page can write them)."""
        if self.live is None:
            return self.base
        return istanbul.merge(self.base, self.live)

    def total(self) -> dict:
        """The counters credited: those V8 saw run (stages/exploring/crediting.py), and
        those of the app's own server."""
        page = self.claimed() if not self.crediting else crediting.credit(self.claimed(), self.confirmed)
        return istanbul.merge(page, self.server) if self.server else page

    def _read_server(self, notes: list[str]) -> None:
        """The app's server's counters, when it has any (a server whose build counted
        nothing answers {}); a static site answers 404 and is not asked again, nor is a
        server that did not answer."""
        if self.server_url is None:
            return
        with self.parts.timed("coverage"):
            try:
                with urllib.request.urlopen(self.server_url, timeout=HANG_S) as answer:
                    counters = json.loads(answer.read())
            except (OSError, ValueError) as error:
                if not isinstance(error, urllib.error.HTTPError) or error.code != 404:
                    notes.append(f"the app's server-side counters could not be read: {error}")
                counters = None
        if isinstance(counters, dict):
            self.server = counters or self.server
        else:
            self.server_url = None

    def page_left(self) -> None:
        """The current document is gone: keep what it counted."""
        if self.live is not None:
            self.base = istanbul.merge(self.base, self.live)
        self.live, self.doc = None, None

    def _confirm(self, measured: Measured, tab: browser.Tab, notes: list[str]) -> None:
        """Ask V8 what ran when the page claims counters V8 has not confirmed yet (or
        their counts moved since it was last asked)."""
        unconfirmed = {c: n for c, n in crediting.claims(self.claimed()).items() if c not in self.confirmed}
        if unconfirmed and unconfirmed != self._unconfirmed:
            with self.parts.timed("crediting"):
                self.confirmed |= crediting.confirmations(measured.sites, tab.take_coverage(HANG_S))
            unconfirmed = {c: n for c, n in unconfirmed.items() if c not in self.confirmed}
        self._unconfirmed = unconfirmed
        if len(unconfirmed) > self.forged_noted:
            self.forged_noted = len(unconfirmed)
            notes.append(f"{len(unconfirmed)} coverage counters the page reports were not seen to run "
                         "by V8; they are not credited")

    def read(self, tab: browser.Tab, obs: observing.Observation, notes: list[str]) -> float:
        """Read the page's counters after a step; the statement coverage it gained (points)."""
        if self.measured is None:
            return 0.0
        before = self.summary.statements or 0.0
        try:
            snapshot = capturing.read_coverage(tab, HANG_S)
        except browser.PageLost:
            raise
        except browser.BrowserError as error:
            # The page broke its own counters: it keeps what was credited so far (0 %
            # when nothing was), never "not measured".
            notes.append(f"coverage could not be read: {error}")
            snapshot = self.live if obs.doc == self.doc else None
        if obs.doc != self.doc:
            self.page_left()
        self.live, self.doc = snapshot, obs.doc
        self._read_server(notes)
        if self.crediting:
            self._confirm(self.measured, tab, notes)
        self.summary = istanbul.summarize_both(self.total(), self.measured.coverage_map, self.measured.own_map)
        return round((self.summary.statements or 0.0) - before, 4)
