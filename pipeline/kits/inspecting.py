"""Reading what a page runs, for the explorer: the event listeners elements carry (through the DevTools protocol), whether the page shows
anything at all, and the quality stage's probe of what it shows (kits/page/probe.mjs). Calls go through kits/browser.py's Tab (its watchdog bounds each
one); this module reads, it never changes the page or decides anything.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Sequence

from iwcbench.pipeline.kits import browser, injecting

HANDLER_CHARS = 4000  # of a handler's source kept (enough for its first counters and calls)
LISTENER_GROUP = "iwc-listeners"
SHOWS = injecting.function(browser.PAGE / "shows.mjs")  # why the page shows nothing, or null
PROBE_SCRIPT = browser.PAGE / "probe.mjs"  # styles, icons, text, media, boxes, links of what a page shows
PROBE_MAX = 400  # items the probe lists per kind (components, texts, boxes, ...)
PROBE = injecting.function(PROBE_SCRIPT)


@dataclasses.dataclass(frozen=True)
class Listener:
    """One event listener: its event type and its handler's source text."""

    type: str
    handler: str


def listeners(tab: browser.Tab, selectors: Sequence[str], deadline_s: float = 5.0
              ) -> tuple[list[tuple[Listener, ...]], tuple[Listener, ...]]:
    """Event listeners per selector (of the first element it matches, and of that
    element's form), and of window, document and body, read through the DevTools
    protocol (DOMDebugger.getEventListeners): listeners from inline ``on*``
    attributes and from any script are seen, whatever the page did to
    addEventListener. An unmatched selector has none. A form many of the elements
    share is read once. ``deadline_s`` bounds each protocol call."""
    expression = injecting.call(browser.PAGE / "listened.mjs", list(selectors))
    found = tab.protocol("Runtime.evaluate", {"expression": expression, "objectGroup": LISTENER_GROUP}, deadline_s)
    try:
        array = (found.get("result") or {}).get("objectId")
        props = tab.protocol("Runtime.getProperties", {"objectId": array, "ownProperties": True}, deadline_s)
        values = {int(p["name"]): p.get("value") or {} for p in props.get("result", ()) if str(p.get("name", "")).isdigit()}
        try:
            form_of = [int(i) for i in json.loads(values[max(values)]["value"])] if values else []
        except (KeyError, TypeError, ValueError):
            form_of = []
        if len(form_of) != len(selectors):  # (the page broke the script's answer): none heard
            return [() for _ in selectors], ()
        # (every object but the last, the forms' indices: the elements, their forms, window, document, body)
        heard = [_heard(tab, values.get(index, {}).get("objectId"), deadline_s) for index in range(max(values, default=0))]
    finally:
        tab.protocol("Runtime.releaseObjectGroup", {"objectGroup": LISTENER_GROUP}, deadline_s)
    per_selector = [heard[i] + (heard[len(selectors) + f] if f >= 0 else ()) for i, f in enumerate(form_of)]
    return per_selector, tuple(item for part in heard[-3:] for item in part)


def _heard(tab: browser.Tab, object_id: str | None, deadline_s: float) -> tuple[Listener, ...]:
    """The listeners of one object (none for a null)."""
    if not object_id:
        return ()
    reply = tab.protocol("DOMDebugger.getEventListeners", {"objectId": object_id, "depth": 0}, deadline_s)
    return tuple(Listener(type=str(item.get("type", "")),
                          handler=str((item.get("handler") or {}).get("description") or "")[:HANDLER_CHARS])
                 for item in reply.get("listeners", ()))


def shows_nothing(tab: browser.Tab, deadline_s: float = 5.0) -> str | None:
    """Why the page shows nothing at all (no text, media, control or painted box
    in its body), or None when it shows something (kits/page/shows.mjs)."""
    return tab.evaluate(SHOWS, None, deadline_s)


OVER_BUDGET: dict = {"over_budget": True}  # probe(): the page is too big to probe in the budget


def probe(tab: browser.Tab, deadline_s: float = 5.0, budget_ms: int | None = None) -> dict | None:
    """The probe's facts of the page as it is now (kits/page/probe.mjs, read in an
    isolated world), as they are on the page seen from its top, where the quality stage
    renders a stored snapshot: boxes are in page coordinates, so a scrolled page gives
    the same facts, unless it has a fixed or sticky box (which moves with the scroll):
    then None, and that state is left to the stage. With ``budget_ms``, the probe
    stops walking the page once that long has passed: OVER_BUDGET."""
    facts = tab.isolated(PROBE, {"max": PROBE_MAX, "budget_ms": budget_ms}, deadline_s)
    if isinstance(facts, dict) and facts.get("over_budget"):
        return OVER_BUDGET
    if not isinstance(facts, dict) or (any(facts.get("scroll") or ()) and facts.get("pinned", True)):
        return None
    return facts
