"""The recorder part of the explorer: the evidence of each look at the page —
screenshots of new looks, DOM snapshots (each distinct one stored once), the probe's
facts beside the first snapshots, and axe-core on each new layout. It reads the page
through the page part's tab; it must not act on the page or choose anything."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Callable

from iwcbench.pipeline.contracts import artifacts, evidence
from iwcbench.pipeline.kits import browser, capturing, clock, inspecting
from iwcbench.pipeline.stages.exploring import observing, paging, timing

HANG_S = paging.HANG_S
SHOT_EVERY = 3  # a look that changed without a new state is shot at most every 3 steps
MAX_AXE_STATES = 25  # axe-core runs per exploration (one per new state)
AXE_LIMIT_S = 8.0
# axe-core's rules do not yield: on ~50,000 elements one run outlasts 13 s here, and
# only killing the renderer ends it. A page with more elements than this is not checked.
MAX_AXE_ELEMENTS = 15_000
PROBE_BUDGET_MS = 2500  # the probe gives up (the quality stage renders that state) past this


@dataclasses.dataclass(frozen=True)
class Keeping:
    """What the recorder keeps and where: the evidence sink, the largest snapshot, whether
    axe-core looks at each new layout, how many new snapshots are probed."""

    sink: Callable[[str, bytes], None]
    max_dom_bytes: int
    accessibility: bool
    probes: int


class Recorder:
    """The evidence of one exploration's looks at ``page``."""

    def __init__(self, keeping: Keeping, page: paging.Page, parts: timing.Parts) -> None:
        self.sink = keeping.sink
        self.max_dom_bytes = keeping.max_dom_bytes
        self.accessibility = keeping.accessibility
        self.probes_left = keeping.probes  # new DOM snapshots still to probe for the quality stage
        self.page = page
        self.parts = parts
        self.visuals: set[str] = set()
        self.shot_states: set[str] = set()
        self.last_shot = -SHOT_EVERY
        self.last_dom: tuple[bytes, str] | None = None  # digest and key of the last snapshot
        self.externals: set[str] = set()
        self.axe: dict[int, tuple[evidence.AxeViolation, ...]] = {}
        self.axe_version: str | None = None
        self.axe_error: str | None = None
        self.axe_states: set[str] = set()

    def shoot(self, index: int, obs: observing.Observation) -> str | None:
        """A screenshot for each new state; for a new look of a known state (typed
        text, an animating canvas) at most one every SHOT_EVERY steps. Its key, or None."""
        if obs.visual in self.visuals:
            return None
        if obs.state in self.shot_states and index - self.last_shot < SHOT_EVERY:
            return None
        self.visuals.add(obs.visual)
        self.shot_states.add(obs.state)
        self.last_shot = index
        key = f"shots/{index:04d}.png"
        with self.parts.timed("screenshot"):
            self.sink(key, capturing.screenshot(self.page.live_tab, HANG_S))
        return key

    def snapshot(self, index: int, drawn: str | None = None) -> tuple[str, observing.Snapshot]:
        """The step's DOM snapshot (its store key) and what it found; a DOM identical to
        the last one is not stored again, the step names the earlier file. ``drawn``: the
        look's pixels, to tell whether the canvases drew while nobody acted."""
        taken = observing.snapshot(self.page.live_tab, self.max_dom_bytes, HANG_S, drawn)
        digest = hashlib.sha1(taken.data).digest()
        if self.last_dom is not None and self.last_dom[0] == digest:
            return self.last_dom[1], taken
        key = f"dom/{index:04d}.html"
        self.sink(key, taken.data)
        self.last_dom = (digest, key)
        if self.probes_left > 0:
            self.probes_left -= 1
            with self.parts.timed("probe"):
                self._probe(key)
        return key, taken

    def _probe(self, dom: str) -> None:
        """The probe's facts of the live page beside its new snapshot (artifacts.PROBES),
        so that the quality stage need not render the snapshot again. Nothing when the
        page is scrolled and has a fixed or sticky box, or the probe fails: the stage
        renders that state itself."""
        try:
            facts = inspecting.probe(self.page.live_tab, HANG_S + PROBE_BUDGET_MS / 1000, PROBE_BUDGET_MS)
        except browser.PageHung:
            self.probes_left, self.page.overran = 0, True
            raise
        except (browser.PageLost, browser.BrowserGone):
            raise
        except browser.BrowserError:
            return
        if facts is inspecting.OVER_BUDGET:
            self.probes_left = 0  # a page this heavy: the stage renders its states
        elif facts is not None:
            self.sink(artifacts.probe_of(dom), json.dumps(facts, separators=(",", ":")).encode())

    def check_accessibility(self, index: int, obs: observing.Observation, notes: list[str]) -> None:
        """axe-core on each new layout: what is on the page and where, not what its
        text says (a calculator's display or a timer makes a new state every step,
        never a new accessibility problem)."""
        layout = _layout(obs)
        if not self.accessibility or layout in self.axe_states or len(self.axe_states) >= MAX_AXE_STATES:
            return
        self.axe_states.add(layout)
        tab = self.page.live_tab
        try:
            elements = tab.isolated("() => document.getElementsByTagName('*').length", None, HANG_S)
            if isinstance(elements, int) and elements > MAX_AXE_ELEMENTS:
                self.axe_error = self.axe_error or (f"step {index}: the page has {elements:,} elements, more "
                                                    f"than the {MAX_AXE_ELEMENTS:,} axe-core is run on")
                notes.append(f"axe-core not run: {elements:,} elements")
                return
            result = capturing.inject_axe(tab, max(clock.MARGIN_S, self.page.deadline.cap(AXE_LIMIT_S)))
        except browser.PageHung as error:
            # axe-core's rules run without yielding, so its own time limit cannot stop
            # them on a page of tens of thousands of elements: not run again on this app
            self.accessibility, self.page.overran = False, True
            self.axe_error = self.axe_error or f"step {index}: axe-core ran too long ({error}); not run again"
            raise
        except browser.PageLost:
            raise
        except browser.BrowserError as error:
            self.axe_error = self.axe_error or f"step {index}: {error}"
            notes.append(f"axe-core failed: {error}")
            return
        self.axe_version = result.get("version")
        self.axe[index] = tuple(evidence.AxeViolation(**v) for v in result.get("violations", ()))

    def external_links(self, obs: observing.Observation | None, notes: list[str]) -> None:
        """Note each link off the app the first time it is on the page (never followed)."""
        for link in obs.external_links if obs else ():
            if link not in self.externals:
                self.externals.add(link)
                notes.append(f"external link not followed: {link}")


def _layout(obs: observing.Observation) -> str:
    """What is on the page and where it is: the page's address and title and the
    kinds of its controls, without their text."""
    kinds = sorted({(c.tag, c.role, c.type, c.kinds, c.item is not None) for c in obs.candidates})
    where = obs.url.split("?", 1)[0]
    return hashlib.sha1(repr((where, obs.title, obs.canvases, kinds)).encode()).hexdigest()
