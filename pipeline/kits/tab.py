"""One page of a browser session (kits/browser): its events wired to the session's
recorder, and every gesture, read and script a stage asks of the page, each bounded by
the seconds it may use and run under the session's watchdog.
"""

from __future__ import annotations

import pathlib
import urllib.parse
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

import playwright.sync_api as pw

from iwcbench.pipeline.kits import browser_events, devtools, injecting, pageclock
from iwcbench.pipeline.kits.browser_errors import BrowserError, BrowserGone, PageLost, guarded
from iwcbench.pipeline.kits.mirror import mediatypes

if TYPE_CHECKING:
    from iwcbench.pipeline.kits.browser import Session

AIM = injecting.function(pathlib.Path(__file__).resolve().with_name("page") / "aim.mjs")


class Tab:
    """One page of the session, with its events wired to the session's recorder.
    Each method takes the seconds it may use; the watchdog enforces them."""

    SLACK_S = 3.0  # watchdog margin above Playwright's own timeout
    quick_aim = True  # clicks and hovers on a ready element press at once (False: always Playwright's way)

    def __init__(self, session: Session, page: pw.Page, tools: devtools.Devtools, clocked: bool | None = None) -> None:
        self.session = session
        self.page = page
        self.devtools = tools
        # its clock is Playwright's (Session.virtual_time when it was opened)
        self.virtual_time = session.virtual_time if clocked is None else clocked
        self.pace = pageclock.Pace(lambda note: session._recorder.add("notes", note))  # (slow frames: noted)
        record = session._recorder.add
        page.on("console", self._on_console)
        page.on("pageerror", lambda e: record("page_errors", f"{e.name}: {e.message}"))
        page.on("dialog", self._on_dialog)
        page.on("crash", self._on_crash)
        page.on("request", lambda r: session._recorder.sent(r.resource_type))
        page.on("download", lambda d: record("notes", f"download refused: {d.suggested_filename}"))

    def _on_console(self, message: pw.ConsoleMessage) -> None:
        recorder = self.session._recorder
        kind = message.type
        if kind == "error":
            recorder.add("console_errors", message.text)
        elif kind == "debug" and (counts := browser_events.quiet_counts(message.text, self.session.nonce)):
            recorder.count("console_errors", counts.get("errors", 0))
            recorder.count("page_errors", counts.get("uncaught", 0))
            recorder.count("console_lines", counts.get("lines", 0))

    def _on_crash(self, _page: pw.Page) -> None:
        self.session._recorder.events.crashed = True
        # A DevTools call waiting on a dead renderer never returns; closing the page
        # ends it (the caller sees the page lost, and opens a fresh one).
        try:
            self.page.close(run_before_unload=False)
        except Exception:  # noqa: BLE001 - closing a crashed page may fail; it is gone anyway
            pass

    def _on_dialog(self, dialog: pw.Dialog) -> None:
        self.session._recorder.add("dialogs", f"{dialog.type}: {dialog.message}")
        try:
            if dialog.type == "prompt":
                dialog.accept(dialog.default_value or "test")
            else:
                dialog.accept()
        except pw.Error:
            pass  # the page went away with its dialog

    def _call(self, what: str, seconds: float, call: Callable[[], Any]) -> Any:
        return guarded(self.session, seconds + self.SLACK_S, what, call)

    @property
    def url(self) -> str:
        return self.page.url  # cached by the client: safe even when the renderer hangs

    def close(self) -> None:
        try:
            self._call("close the page", 5.0, lambda: self.page.close(run_before_unload=False))
        except BrowserError:
            pass  # a crashed or killed page is closed enough
        if self.session.tab is self:
            self.session.tab = None

    def goto(self, url: str, timeout_s: float,
             wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load") -> int | None:
        """Navigate; returns the HTTP status of the main document (None: no response)."""
        ms = timeout_s * 1000
        response = self._call(f"loading {url}", timeout_s,
                              lambda: self.page.goto(url, timeout=ms, wait_until=wait_until))
        return response.status if response is not None else None

    def wait_for_load(self, timeout_s: float, state: Literal["domcontentloaded", "load", "networkidle"] = "load") -> None:
        self._call("waiting for the page", timeout_s,
                   lambda: self.page.wait_for_load_state(state, timeout=timeout_s * 1000))

    def _position(self, loc: pw.Locator, at: tuple[float, float] | None, timeout_s: float) -> pw.Position | None:
        """Playwright's ``position`` for fractions (fx, fy) of the element's box."""
        if at is None:
            return None
        box = loc.bounding_box(timeout=timeout_s * 1000)
        if box is None:
            raise pw.Error("the element has no box to press in")
        return {"x": box["width"] * at[0], "y": box["height"] * at[1]}

    def _aim(self, selector: str, at: tuple[float, float] | None, enabled: bool) -> tuple[float, float] | None:
        """Where a click or hover on the element lands when Playwright's checks before
        it would pass at once (page/aim.mjs), so the press needs no waiting; None when
        they might not: the caller then goes Playwright's way, which waits, scrolls and
        fails as it always did."""
        try:
            point = self.isolated(AIM, {"selector": selector, "at": list(at) if at else None,
                                        "enabled": enabled, "nonce": self.session.nonce}, 5.0)
        except (PageLost, BrowserGone):
            raise
        except BrowserError:
            return None
        if not (isinstance(point, list) and len(point) == 2):
            return None
        return float(point[0]), float(point[1])

    def click(self, selector: str, timeout_s: float, count: int = 1, at: tuple[float, float] | None = None,
              button: str = "left") -> None:
        """Click the element (at fractions ``at`` of its box; default its middle): at
        once where it is ready (``_aim``), else by Playwright's waiting click."""
        if self.quick_aim and (point := self._aim(selector, at, enabled=True)) is not None:
            x, y = point
            self._call(f"click {selector}", timeout_s,
                       lambda: self.page.mouse.click(x, y, click_count=count, button=button))  # type: ignore[arg-type]  # a str Playwright checks
            return
        loc = self.page.locator(selector).first
        self._call(f"click {selector}", timeout_s,
                   lambda: loc.click(timeout=timeout_s * 1000, click_count=count, button=button,  # type: ignore[arg-type]  # a str Playwright checks
                                     position=self._position(loc, at, timeout_s)))

    def fill(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"fill {selector}", timeout_s, lambda: loc.fill(value, timeout=timeout_s * 1000))

    def upload(self, selector: str, name: str, media: str, data: bytes, timeout_s: float) -> None:
        """Set a file on a file input, as a person picking it in the dialog would (the
        input may be hidden behind the app's own button: it is not clicked)."""
        loc = self.page.locator(selector).first
        payload = pw.FilePayload(name=name, mimeType=media, buffer=data)
        self._call(f"upload {name} to {selector}", timeout_s,
                   lambda: loc.set_input_files(files=payload, timeout=timeout_s * 1000))

    def select(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"select in {selector}", timeout_s,
                   lambda: loc.select_option(value, timeout=timeout_s * 1000))

    def hover(self, selector: str, timeout_s: float, at: tuple[float, float] | None = None) -> None:
        if self.quick_aim and (point := self._aim(selector, at, enabled=False)) is not None:
            x, y = point
            self._call(f"hover {selector}", timeout_s, lambda: self.page.mouse.move(x, y))
            return
        loc = self.page.locator(selector).first
        self._call(f"hover {selector}", timeout_s,
                   lambda: loc.hover(timeout=timeout_s * 1000, position=self._position(loc, at, timeout_s)))

    def focus(self, selector: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"focus {selector}", timeout_s, lambda: loc.focus(timeout=timeout_s * 1000))

    def press(self, keys: Sequence[str], timeout_s: float, delay_ms: int = 40) -> None:
        """Press keys in order on whatever has focus (the body when nothing has)."""
        def run() -> None:
            for key in keys:
                self.page.keyboard.press(key, delay=delay_ms)
        self._call(f"press {' '.join(keys)}", timeout_s, run)

    def hold(self, keys: Sequence[str], ms: int, timeout_s: float) -> None:
        """Hold keys down together (pressed in order, released in reverse) for ``ms``
        of the page's time: in virtual time that passes as fast as the page runs it
        (``fast_forward``), and ``ms`` may be longer than the step."""
        what = f"hold {'+'.join(keys)}"
        if not self.virtual_time:
            def run() -> None:
                for key in keys:
                    self.page.keyboard.down(key)
                self.page.wait_for_timeout(ms)
                for key in reversed(keys):
                    self.page.keyboard.up(key)
            self._call(what, timeout_s + ms / 1000, run)
            return
        def down() -> None:
            for key in keys:
                self.page.keyboard.down(key)

        def up() -> None:
            for key in reversed(keys):
                self.page.keyboard.up(key)
        self._call(what, timeout_s, down)
        self.fast_forward(ms, timeout_s)
        self._call(what, timeout_s, up)

    def fast_forward(self, ms: int, timeout_s: float) -> int:
        """Let ``ms`` of the page's time pass under its clock: timers, frames, animations (pageclock.advance)."""
        clock, tools, call = self.page.clock, self.devtools, self._call
        return pageclock.advance(ms, lambda n: call(f"let {n} ms pass", timeout_s, lambda: clock.run_for(n)),
                                 lambda n: call(f"jump {n} ms ahead", timeout_s, lambda: clock.fast_forward(n)), self.pace,
                                 lambda n: self._devtools(timeout_s, "move its animations", lambda: tools.animate(n)))

    def drag(self, selector: str, dx: float, dy: float, timeout_s: float) -> None:
        """Press in the middle of the element, move by (dx, dy) in steps, release."""
        loc = self.page.locator(selector).first

        def run() -> None:
            box = loc.bounding_box(timeout=timeout_s * 1000)
            if box is None:
                raise pw.Error("the element has no box to drag from")
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            self.page.mouse.move(x, y)
            self.page.mouse.down()
            self.page.mouse.move(x + dx, y + dy, steps=8)
            self.page.mouse.up()
        self._call(f"drag {selector}", timeout_s, run)

    def touch(self, selector: str, dx: float, dy: float, timeout_s: float) -> None:
        """A finger on the element's middle, moved by (dx, dy) in steps, lifted: touch
        events over the DevTools protocol (a tap when both are 0)."""
        loc = self.page.locator(selector).first

        def run() -> None:
            loc.scroll_into_view_if_needed(timeout=timeout_s * 1000)
            box = loc.bounding_box(timeout=timeout_s * 1000)
            if box is None:
                raise pw.Error("the element has no box to touch")
            self.devtools.touch(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, dx, dy)
        self._call(f"touch {selector}", timeout_s, run)

    def drag_to(self, selector: str, target: str, timeout_s: float) -> None:
        source, goal = self.page.locator(selector).first, self.page.locator(target).first
        self._call(f"drag {selector} to {target}", timeout_s,
                   lambda: source.drag_to(goal, timeout=timeout_s * 1000))

    def scroll(self, dx: float, dy: float, timeout_s: float) -> None:
        self._call("scroll", timeout_s, lambda: self.page.mouse.wheel(dx, dy))

    def resize(self, width: int, height: int, timeout_s: float) -> None:
        self._call("resize the viewport", timeout_s, lambda: self.page.set_viewport_size({"width": width, "height": height}))

    def back(self, timeout_s: float) -> None:
        self._call("go back", timeout_s, lambda: self.page.go_back(timeout=timeout_s * 1000))

    def pause(self, ms: int) -> None:
        """Let ``ms`` pass for the page: its own time under the clock, else real time."""
        if self.virtual_time:
            self.fast_forward(ms, ms / 1000 + self.SLACK_S)
            return
        self._call("wait", ms / 1000, lambda: self.page.wait_for_timeout(ms))

    def evaluate(self, script: str, arg: Any = None, deadline_s: float = 10.0) -> Any:
        """Run a JS function in the page. Playwright has no timeout for this: the
        watchdog's deadline (``deadline_s``, no slack) is the only one."""
        return guarded(self.session, deadline_s, "a page script",
                        lambda: self.page.evaluate(script, arg))

    def isolated(self, source: str, arg: Any = None, deadline_s: float = 10.0) -> Any:
        """Call a JS function in an isolated world: the page's DOM, none of its globals,
        so nothing the page replaced can break it. Its value comes back by value."""
        return self._devtools(deadline_s, "a script of ours", lambda: self.devtools.isolated(source, arg))

    def main(self, expression: str, deadline_s: float = 10.0) -> Any:
        """Evaluate an expression in the page's own world; V8 serialises the value."""
        return self._devtools(deadline_s, "reading the page", lambda: self.devtools.main(expression))

    def take_coverage(self, deadline_s: float = 10.0) -> list[tuple[str, list[dict]]]:
        """V8's precise coverage of the session's wanted scripts since the last take."""
        return self._devtools(deadline_s, "reading V8 coverage", self.devtools.take_coverage)

    def _devtools(self, deadline_s: float, what: str, call: Callable[[], Any]) -> Any:
        try:
            return guarded(self.session, deadline_s, what, call)
        except devtools.ScriptError as error:
            raise BrowserError(f"{what} failed: {error}") from None

    def title(self, deadline_s: float = 5.0) -> str:
        return guarded(self.session, deadline_s, "reading the title", self.page.title)

    def serve_files(self, files: dict[str, bytes]) -> None:
        """As Session.serve_files, for this page only."""
        self.page.route(files_matcher(files), files_handler(files))

    def png(self, timeout_s: float) -> bytes:
        """Playwright's own screenshot of the viewport (slower than DevTools' fast one)."""
        return self._call("a screenshot", timeout_s, lambda: self.page.screenshot(type="png", timeout=timeout_s * 1000))

    def protocol(self, method: str, params: dict | None = None, deadline_s: float = 5.0) -> dict:
        """One DevTools protocol call on this page, through the tab's own session."""
        return guarded(self.session, deadline_s, f"the DevTools call {method}",
                        lambda: self.devtools.cdp.send(method, params or {}))


def files_matcher(files: dict[str, bytes]) -> Callable[[str], bool]:
    return lambda url: url.split("?", 1)[0].split("#", 1)[0] in files


def files_handler(files: dict[str, bytes]) -> Callable[[Any], None]:
    def handle(route: pw.Route) -> None:
        url = route.request.url.split("?", 1)[0].split("#", 1)[0]
        path = urllib.parse.urlsplit(url).path
        try:
            route.fulfill(status=200, body=files[url], headers={
                "content-type": mediatypes.content_type(path + "index.html" if path.endswith("/") else path),
                "cache-control": "no-store"})
        except pw.Error:
            pass  # the page went away while the file was on its way
    return handle
