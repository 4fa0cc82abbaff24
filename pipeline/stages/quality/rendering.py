"""The quality stage's Chromium work (through kits/browser): render stored states and
load the start page on a phone.

* States: each explored state's DOM snapshot is shown again at its own address in a
  1280×800 page with JavaScript off (its stylesheets, fonts and images load through the
  same hermetic router as during exploring), and the probe (probe.js) reads components,
  icons, text, media and boxes. Nothing the app does at runtime runs again, so a state
  costs a render, not a replay.
* Phone: the start page loaded live at 375×667 with touch (the viewport meta tag
  applies), probed, with every request it made and what answered it.

It must not score anything; an app's trouble is recorded in ``Rendered.problems``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from typing import Callable

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.quality import tooling

log = logging.getLogger(__name__)

DESKTOP = (1280, 800)
PHONE = (375, 667)
SETTLE_MS = 400  # after a live load: late scripts, web fonts and layout
RENDER_SETTLE_MS = 150  # after a snapshot's load (no script runs; images and fonts are in)
RENDER_TIMEOUT_S = 8.0
PROBE_DEADLINE_S = 10.0
CRASH = "S_crash"
_NOSCRIPT = re.compile(rb"<noscript\b[^>]*>.*?</noscript\s*>", re.IGNORECASE | re.DOTALL)


@dataclasses.dataclass
class Rendered:
    states: dict[str, dict] = dataclasses.field(default_factory=dict)  # state id → probe facts
    phone: dict | None = None
    phone_requests: list[tuple[str, int | None, str | None]] = dataclasses.field(default_factory=list)
    phone_errors: list[str] = dataclasses.field(default_factory=list)
    problems: dict[str, str] = dataclasses.field(default_factory=dict)  # "states" | "phone" → why
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)


def chosen_states(graph: evidence.StateGraph | None, limit: int) -> list[evidence.StateNode]:
    """The first ``limit`` states in visiting order that have a DOM snapshot."""
    if graph is None:
        return []
    return [n for n in graph.nodes if n.id != CRASH and n.dom][:limit]


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def render_states(nodes: list[evidence.StateNode], read: Callable[[str], bytes | None],
                  router: browser.Router, out: Rendered, seed: int = 0) -> None:
    started = time.monotonic()
    probe = tooling.probe_source()
    options = browser.ContextOptions(viewport_width=DESKTOP[0], viewport_height=DESKTOP[1], seed=seed,
                                     javascript=False)
    try:
        with browser.Session(options) as session:
            router.install(session.context)
            for node in nodes:
                html = read(node.dom or "")
                if not html:
                    continue
                try:
                    # a fresh page each time: states of one document differ only in their
                    # fragment, and going there in the same page would not load anything
                    tab = session.new_tab()
                    tab.serve_once(_without_fragment(node.url), _NOSCRIPT.sub(b"", html))
                    tab.goto(node.url, RENDER_TIMEOUT_S)
                    tab.pause(RENDER_SETTLE_MS)
                    out.states[node.id] = tab.evaluate(probe, {"max": 400}, PROBE_DEADLINE_S)
                except browser.BrowserGone:
                    raise
                except browser.BrowserError as error:
                    out.problems.setdefault("states", f"{node.id}: {error}")
            router.drain()  # what the renders asked for was asked during exploring already
    except browser.BrowserError as error:
        out.problems["states"] = f"Chromium failed while rendering states: {error}"
    out.seconds["states"] = round(time.monotonic() - started, 3)


def load_phone(url: str, router: browser.Router, out: Rendered, load_timeout_s: float, seed: int = 0) -> None:
    started = time.monotonic()
    options = browser.ContextOptions(viewport_width=PHONE[0], viewport_height=PHONE[1], seed=seed, mobile=True)
    try:
        with browser.Session(options) as session:
            router.install(session.context)
            tab = session.new_tab()
            status = tab.goto(url, load_timeout_s)
            if status is not None and status >= 400:
                out.problems["phone"] = f"HTTP {status} for the start page"
            tab.pause(SETTLE_MS)
            out.phone = tab.evaluate(tooling.probe_source(), {"max": 400}, PROBE_DEADLINE_S)
            out.phone_requests = list(tab.requests)
            events = session.drain()
            out.phone_errors = list(events.page_errors)
            blocked, _ = router.drain()
            out.phone_requests += [(b.split(" (", 1)[0], None, "blocked by the sandbox") for b in blocked
                                   if not b.startswith("…")]
    except browser.BrowserError as error:
        out.problems["phone"] = f"the start page did not load on the phone viewport: {error}"
    out.seconds["phone"] = round(time.monotonic() - started, 3)
