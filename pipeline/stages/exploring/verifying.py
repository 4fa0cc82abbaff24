"""Whose hang is it. When the instrumented page stops responding or crashes, the app's
original build — no counters, no V8 coverage, no clock: the page as a user's browser
runs it — is given the same action in a plain tab. Only when it fails too is the
failure the app's. Otherwise the harness is the cause, and it is lightened for the
rest of the exploration, one level at a time (``LEVELS``): first V8's crediting and
the clock, then the counters themselves (the original build is explored, the coverage
credited so far kept). Every lightening is recorded in the trace, and the steps go on
to the budget. With nothing left to take off, a page that answers with patience is
still not called hung (it is slow, on this machine, not stuck). Without an original
build to compare with (black box), a hang counts as the app's, as before.

It must not choose actions; it acts on the page only to replay the one that failed.
"""

from __future__ import annotations

import dataclasses
import time

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import acting, observing, paging, tracking

# what is switched off at each level, in order (the cheapest evidence to lose first)
LEVELS = ("crediting and the clock", "the coverage counters")
# How long the original build is given to answer the action and one look: a page that
# is slow on a loaded machine (software WebGL, a busy neighbour) answers within this;
# a busy loop never does. At most a sixth of what is left of the app's time (the load,
# the action and the look each get it: a real hang costs the check about that again),
# and with less than MIN_LEFT_S left there is no check: the loss counts, as it did.
PATIENCE_S = 12.0
MIN_LEFT_S = 4 * paging.HANG_S


@dataclasses.dataclass(frozen=True)
class Verdict:
    """Did the original build fail the same action (``apps``), and what was seen."""

    apps: bool
    detail: str


class Harness:
    """How much of the harness one exploration still carries, and why parts went."""

    def __init__(self, originals: dict[str, bytes] | None) -> None:
        self.originals = originals or {}
        self.level = 0
        self.lightened: list[str] = []

    def checkable(self, page: paging.Page) -> bool:
        """There is an original build to check against, and time to check it."""
        return bool(self.originals) and page.deadline.left() >= MIN_LEFT_S

    @property
    def lightenable(self) -> bool:
        return self.level < len(LEVELS)

    def lighten(self, index: int, page: paging.Page, tracker: tracking.Tracker, why: str) -> str:
        """Switch the next level off for the pages opened from now on; the note that says so."""
        part = LEVELS[self.level]
        session = page.live_session
        if self.level == 0:
            session.coverage_hashes = frozenset()
            session.virtual_time = False
            tracker.crediting = False
        else:
            session.serve_files(paging.served_files(page.url, self.originals))
        self.level += 1
        note = f"step {index}: {part} switched off for the rest of the exploration ({why})"
        self.lightened.append(note)
        return note


def original(page: paging.Page, originals: dict[str, bytes], action: evidence.Action,
             action_timeout_s: float) -> Verdict:
    """The original build, loaded in a plain tab, given ``action`` (a load: the load
    itself), then looked at once, each with its patience to answer. What it did on its
    own (errors, requests) is not the step's: it is drained and dropped."""
    session = page.live_session
    began = time.monotonic()
    patience = min(PATIENCE_S, max(paging.HANG_S, page.deadline.left() / 6))
    try:
        tab = session.new_tab(plain=True)
    except browser.PageLost as failed:
        return Verdict(apps=True, detail=f"the app's original build could not be checked: {failed}")
    page.tab = tab
    try:
        tab.serve_files(paging.served_files(page.url, originals))
        try:
            tab.goto(page.url, min(page.load_s(), patience))
        except browser.PageLost:
            raise
        except browser.BrowserError:
            pass  # a load event that never comes is not a hang: the look below tells
        if action.kind != "load":
            try:
                acting.perform(tab, action, max(action_timeout_s, patience), page.url)
            except browser.PageLost:
                raise
            except browser.BrowserError:
                pass  # its target may not be on a fresh page: the page answered all the same
        observing.observe(tab, 0, patience)
        verdict = Verdict(apps=False, detail=(
            f"the app's original build, without our counters, crediting or clock, answered "
            f"{action.label()} ({time.monotonic() - began:.1f} s with its load): not the app's failure"))
    except browser.PageLost as failed:
        verdict = Verdict(apps=True, detail=f"the app's original build failed the same way: {failed}")
    finally:
        session.drain()
        page.router.drain()
    return verdict
