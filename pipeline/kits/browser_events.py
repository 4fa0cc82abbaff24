"""What an app does on its own while a browser session watches it: console errors,
uncaught errors, dialogs, notes (popups closed, downloads refused) and whether its
renderer crashed, collected between two drains with a cap per kind. Pure data and
counting, and the page's own bound (kits/page/quiet.mjs); the browser kit
(kits/browser.py) wires Playwright's events to it.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

from iwcbench.pipeline.kits import injecting

EVENTS_PER_KIND = 20  # per drain; the rest is counted, not listed
TEXT_CAP = 300  # characters kept of one console message, error or dialog text
# What a document may say before kits/page/quiet.mjs counts instead of sending it on
QUIET = {"lines": 1000, "chars": 2000, "errors": 200}


# what a page sends, of Playwright's request resource types
SENT = frozenset({"fetch", "xhr", "ping", "websocket", "eventsource", "document"})

QUIET_SCRIPT = pathlib.Path(__file__).resolve().with_name("page") / "quiet.mjs"


def quiet_script(nonce: str) -> str:
    """kits/page/quiet.mjs called for a session with ``nonce`` (an init script)."""
    return injecting.call(QUIET_SCRIPT, {"nonce": nonce, **QUIET})


def quiet_counts(text: str, nonce: str) -> dict[str, int] | None:
    """The counts in one of quiet.mjs's report lines, or None when ``text`` is not one."""
    prefix = f"iwc-quiet-{nonce} "
    if not text.startswith(prefix):
        return None
    try:
        found = json.loads(text[len(prefix):])
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    return {k: int(v) for k, v in found.items() if k in ("lines", "errors", "uncaught") and isinstance(v, int)}


@dataclasses.dataclass
class Events:
    """What the app did on its own since the last drain."""

    console_errors: list[str] = dataclasses.field(default_factory=list)
    page_errors: list[str] = dataclasses.field(default_factory=list)
    dialogs: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    crashed: bool = False
    # requests the app's pages sent: fetches, XHRs, beacons, sockets, event sources and
    # documents (what a page asks of a server, not the images and styles it shows)
    requests: int = 0
    # counted, not listed: past the cap above, or past the page's bounds (quiet.mjs)
    unlisted: dict[str, int] = dataclasses.field(default_factory=dict)


def _cap(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= TEXT_CAP else text[: TEXT_CAP - 1] + "…"


class Recorder:
    """Collects events with a per-kind cap, so a storm stays a line, not a megabyte."""

    def __init__(self) -> None:
        self.events = Events()
        self.overflow: dict[str, int] = {}

    def add(self, kind: str, text: str) -> None:
        items: list[str] = getattr(self.events, kind)
        if len(items) < EVENTS_PER_KIND:
            items.append(_cap(text))
        else:
            self.overflow[kind] = self.overflow.get(kind, 0) + 1

    def sent(self, resource_type: str) -> None:
        """One request of Playwright's ``resource_type`` seen leaving a page."""
        if resource_type in SENT:
            self.events.requests += 1

    def count(self, kind: str, n: int) -> None:
        """``n`` more of ``kind`` that the page counted instead of sending (quiet.mjs)."""
        if n > 0:
            self.overflow[kind] = self.overflow.get(kind, 0) + n

    def drain(self) -> Events:
        events = self.events
        for kind, count in sorted(self.overflow.items()):
            if kind != "console_lines":
                getattr(events, kind).append(f"… and {count} more")
            events.unlisted[kind] = count
        self.events, self.overflow = Events(), {}
        return events
