"""Chromium's DevTools protocol for one tab: what the page's own JavaScript cannot touch.

* ``isolated(source, arg)``: run a function in an isolated world (``Page.createIsolatedWorld``),
  which shares the page's DOM but none of its globals: a page that replaces
  ``Array.from`` or ``getComputedStyle`` changes nothing there. State a script keeps on
  that world's ``window`` lasts as long as the document.
* ``main(expression)``: evaluate in the page's own world and return the value as V8
  serialises it (no page-side JavaScript runs to serialise it).
* ``freeze_animations()`` / ``animate(ms)``: the document timeline frozen, and its running
  animations moved by the page time the clock let pass (kits/pageclock.py).
* ``start_coverage()`` / ``take_coverage()``: V8's precise block coverage, with the
  SHA-256 of each script's source (``Debugger.scriptParsed``), so coverage can be
  credited only where the genuine instrumented code ran (stages/exploring/crediting.py). The
  debugger never pauses (``setSkipAllPauses``): a ``debugger;`` statement is ignored.

Duck-typed on Playwright's CDPSession (``send``, ``on``); kits/browser.py owns the
session, guards every call with the watchdog and translates errors. This module must
not decide anything about exploring or scoring.
"""

from __future__ import annotations

import pathlib
from typing import Any

from iwcbench.pipeline.kits import injecting

WORLD = "iwc-observer"
ANIMATIONS = injecting.function(pathlib.Path(__file__).resolve().with_name("page") / "animations.mjs")


class ScriptError(Exception):
    """The evaluated script threw; the message is the exception's description."""


class Devtools:
    def __init__(self, cdp: Any, wanted_hashes: frozenset[str] = frozenset()) -> None:
        self.cdp = cdp
        self.wanted = wanted_hashes
        self.scripts: dict[str, str] = {}  # scriptId -> SHA-256, wanted scripts only
        self._frame: str | None = None
        self.coverage = False

    # ---- worlds ------------------------------------------------------------------
    def _frame_id(self, fresh: bool = False) -> str:
        if self._frame is None or fresh:
            self._frame = self.cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
        return self._frame

    def _world(self) -> int:
        for fresh in (False, True):
            try:
                made = self.cdp.send("Page.createIsolatedWorld",
                                     {"frameId": self._frame_id(fresh), "worldName": WORLD})
                return made["executionContextId"]
            except Exception:  # a stale frame id: ask once more
                if fresh:
                    raise
        raise AssertionError("unreachable")

    def isolated(self, source: str, arg: Any = None) -> Any:
        """Call the function expression ``source`` with ``arg`` (JSON) in the isolated
        world; await it if it returns a promise; return its value."""
        return self._evaluate({"expression": injecting.invoke(source, arg), "contextId": self._world()})

    def freeze_animations(self) -> None:
        """Freeze the document timeline, for every document the tab loads: the page's CSS
        transitions and animations and Web Animations then move only by ``animate``."""
        self.cdp.send("Animation.setPlaybackRate", {"playbackRate": 0})

    def animate(self, ms: int) -> int:
        """Move the running animations of a frozen timeline by ``ms`` (page/animations.mjs);
        how many moved. 0 when the document has no world or lost it (between loads): the
        next document's animations start where they are. A crash is raised, for the caller."""
        try:
            context = self._world()
        except Exception:  # noqa: BLE001 - a frame between documents (a lost page fails the next call)
            return 0
        try:
            return self._evaluate({"expression": injecting.invoke(ANIMATIONS, {"ms": ms}), "contextId": context}) or 0
        except Exception as error:
            if "context" in str(error).lower():  # (the document went away mid-call: a navigation)
                return 0
            raise

    def touch(self, x: float, y: float, dx: float, dy: float, moves: int = 6) -> None:
        """A finger down at (x, y), moved by (dx, dy) in ``moves`` steps, lifted."""
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for i in range(1, moves + 1 if dx or dy else 1):
            point = {"x": x + dx * i / moves, "y": y + dy * i / moves}
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def main(self, expression: str) -> Any:
        return self._evaluate({"expression": expression})

    def _evaluate(self, params: dict) -> Any:
        reply = self.cdp.send("Runtime.evaluate", {
            **params, "returnByValue": True, "awaitPromise": True, "silent": True})
        failed = reply.get("exceptionDetails")
        if failed:
            detail = (failed.get("exception") or {}).get("description") or failed.get("text") or "an exception"
            raise ScriptError(str(detail).split("\n", 1)[0][:300])
        return (reply.get("result") or {}).get("value")

    # ---- coverage ----------------------------------------------------------------
    def start_coverage(self) -> None:
        """Start V8's precise coverage; call before the page's scripts run."""
        self.cdp.on("Debugger.scriptParsed", self._parsed)
        self.cdp.send("Debugger.enable")
        self.cdp.send("Debugger.setSkipAllPauses", {"skip": True})
        self.cdp.send("Profiler.enable")
        self.cdp.send("Profiler.startPreciseCoverage", {"callCount": True, "detailed": True})
        self.coverage = True

    def _parsed(self, event: dict) -> None:
        digest = event.get("hash")
        if digest in self.wanted:
            self.scripts[str(event.get("scriptId"))] = digest

    def take_coverage(self) -> list[tuple[str, list[dict]]]:
        """(SHA-256, functions) of every wanted script, counts since the last take."""
        if not self.coverage:
            return []
        result = self.cdp.send("Profiler.takePreciseCoverage").get("result") or []
        return [(self.scripts[str(s["scriptId"])], s.get("functions") or [])
                for s in result if str(s.get("scriptId")) in self.scripts]
