"""The browser kit: Debian's Chromium driven by Playwright. Nothing else imports
playwright. It launches, routes and observes; it decides nothing about exploring.

A ``Session`` is one browser context with at most one ``Tab`` at a time, in a
``Browser`` of its own or in a worker's, lent from app to app (a fresh context each
time). Every blocking call goes through the browser's watchdog (kits/watchdog.py), so
an app stuck in an endless loop costs a deadline, never the run. Playwright's
exceptions do not leave this module: callers see ``BrowserError`` and its subclasses.

A session's browser reaches only the origins the session allows: it is started behind
the network guard (kits/launching.py, kits/egress.py), and its profile and temporary
files live in a folder of its own that is removed when the browser ends, however it
ended. Scripts of ours run where the page cannot reach them: ``Tab.isolated``
in an isolated world, ``Tab.main`` serialised by V8 (kits/devtools.py).
"""

from __future__ import annotations

import dataclasses
import pathlib
import secrets
import urllib.parse
from typing import Any, Callable, Literal, Sequence

import playwright.sync_api as pw

from iwcbench.pipeline.kits import browser_events, chromium, devtools, egress, injecting, launching, pageclock
from iwcbench.pipeline.kits import watchdog as watchdogs
from iwcbench.pipeline.kits.mirror import mediatypes

CHROMIUM_ARGS = launching.CHROMIUM_ARGS
PAGE = pathlib.Path(__file__).resolve().with_name("page")  # the page scripts of this kit
chromium_path = launching.chromium_path
# callers name them browser.* (one assignment each: mypy takes a lone class assignment as a type alias)
Browser = chromium.Browser
launch = chromium.launch


class BrowserError(Exception):
    """A browser call failed: the element was not there, a timeout, a bad value."""


class PageLost(BrowserError):
    """The page is gone (renderer crashed, or the app closed its own window)."""


class PageHung(PageLost):
    """The page stopped responding; the watchdog killed its renderer."""


class BrowserGone(BrowserError):
    """The whole browser is gone (killed by the watchdog, or it died)."""


@dataclasses.dataclass(frozen=True)
class ContextOptions:
    viewport_width: int = 1280  # pixels
    viewport_height: int = 800  # pixels
    timezone: str = "UTC"  # fixed, so dates in snapshots do not depend on the machine
    locale: str = "en-US"
    seed: int = 0  # seeds the page's Math.random, so runs repeat
    # watchdog: seconds between escalation stages. Generous: a loaded machine can take
    # seconds to report a killed renderer, and killing the whole browser for that
    # would cost the app its exploration.
    hang_grace_s: float = 8.0
    network_namespace: bool = True  # when the machine allows one (kits/launcher.py)


class Session:
    """One browser context for one exploration. Use as a context manager; on exit the
    context is closed. ``allow``: the origins the browser may connect to (the app's);
    ``coverage_hashes``: SHA-256 of the scripts whose V8 coverage ``Tab.take_coverage``
    reports (none: V8 coverage is not collected). ``browser``: a worker's ``Browser``
    to borrow (its guard lets through only ``allow`` while the session lasts); without
    one the session starts a browser of its own and ends it, any Chromium process left
    over killed and its folder removed."""

    def __init__(self, options: ContextOptions, headless: bool = True, allow: Sequence[str] = (),
                 coverage_hashes: frozenset[str] = frozenset(), browser: Browser | None = None) -> None:
        self.options = options
        self.allow = tuple(allow)
        self.coverage_hashes = frozenset(coverage_hashes)
        self.tab: Tab | None = None
        self.context: pw.BrowserContext | None = None
        self.nonce = secrets.token_hex(8)  # names the observer's hint events (kits/page/init.mjs)
        self.popups = 0  # windows the app opened (each closed at once)
        # Tabs opened from now on get Playwright's clock: time flows as usual, and
        # Tab.fast_forward / a held key can run timers and frames ahead of it.
        self.virtual_time = False
        self._clocked = False  # the current context has the clock (it is the whole context's)
        self._installers: list[Callable[[Any], None]] = []  # applied to every context (routes)
        self._recorder = browser_events.Recorder()
        self._opening = False
        self._owned = browser is None
        self.browser = browser if browser is not None else Browser(
            headless, options.network_namespace, options.hang_grace_s)

    @property
    def watchdog(self) -> watchdogs.Watchdog:
        return self.browser.watchdog

    @property
    def guard(self) -> egress.Guard | None:
        return self.browser.guard

    @property
    def isolation(self) -> str:
        return self.browser.isolation

    def __enter__(self) -> Session:
        try:
            self.browser.ensure()
            guard = self.browser.guard
            assert guard is not None  # ensure() starts the browser behind a guard
            guard.only(self.allow)
            guard.drain()  # what an earlier session's pages tried is not this one's
            self.context = self._context()
        except BaseException:
            self.__exit__(None, None, None)
            self.browser.close()  # one that would not open a context is started afresh next time
            raise
        return self

    def _context(self) -> pw.BrowserContext:
        opts = self.options
        context = self.browser.new_context(
            viewport={"width": opts.viewport_width, "height": opts.viewport_height},
            device_scale_factor=1,
            service_workers="block",
            accept_downloads=False,
            timezone_id=opts.timezone,
            locale=opts.locale,
            color_scheme="light",
            bypass_csp=True,  # our observation scripts must run whatever the app's CSP says
        )
        context.add_init_script(browser_events.quiet_script(self.nonce))
        context.add_init_script(injecting.call(PAGE / "init.mjs", {"seed": int(opts.seed), "nonce": self.nonce}))
        context.on("page", self._on_new_page)
        for install in self._installers:
            install(context)
        self._clocked = False
        return context

    def add_installer(self, install: Callable[[Any], None]) -> None:
        """``install(context)`` now and on every context this session opens later (a
        router's routes: they belong to the context)."""
        self._installers.append(install)
        install(self.context)

    def _renew(self) -> None:
        """A context of its own again (Playwright's clock, once installed, is the whole
        context's and cannot be taken off): the current one's pages are closed."""
        if self.tab is not None:
            self.tab.close()
        chromium.close_quietly(self.watchdog, self.context)
        self.context = _guarded(self, 15.0, "open a browser context", self._context)

    def __exit__(self, *exc: object) -> None:
        if self.context is not None:
            chromium.close_quietly(self.watchdog, self.context)
        self.context = None
        guard = self.browser.guard
        if guard is not None:
            guard.only(())
        # A browser that had to be killed is not lent again.
        if self._owned or self.watchdog.killed or not self.browser.connected:
            self.browser.close()
        else:
            self.watchdog.forget_ended()

    @property
    def connected(self) -> bool:
        return self.context is not None and self.browser.connected

    def _on_new_page(self, page: pw.Page) -> None:
        if self._opening:
            return
        self.popups += 1
        self._recorder.add("notes", f"popup closed: {page.url or 'about:blank'}")
        try:
            page.close()
        except Exception:  # noqa: BLE001 - it may have closed itself already
            pass

    def new_tab(self, plain: bool = False) -> Tab:
        """Close the current tab (if any) and open a fresh one with event capture (and
        V8 coverage from its first script on, when asked for). ``plain``: without the
        clock and without V8 coverage, whatever the session has (the page as a user's
        browser runs it)."""
        if self.tab is not None:
            self.tab.close()
        if not self.connected:
            raise BrowserGone("the browser is gone")
        clocked = self.virtual_time and not plain
        if self._clocked and not clocked:
            self._renew()
        context = self.context
        assert context is not None  # connected (above), and _renew opens a new one
        self._opening = True
        try:
            page = _guarded(self, 15.0, "open a page", context.new_page)
        finally:
            self._opening = False
        cdp = _guarded(self, 10.0, "attach to the page", lambda: context.new_cdp_session(page))
        tools = devtools.Devtools(cdp, self.coverage_hashes)
        if clocked:  # (page/timers.js: a timer's error stays a page error under the clock)
            # Paused at a fixed instant: the page's time moves only when the explorer
            # lets it (Tab.fast_forward, a held key, a wait), by the same amounts in every
            # run, whatever the machine's load; never in catch-up bursts. Its animations too.
            if not self._clocked:
                _guarded(self, 10.0, "install the page's clock", lambda: pageclock.install(page))
                self._clocked = True
            _guarded(self, 10.0, "install the page's clock", lambda: page.add_init_script(path=PAGE / "timers.js"))
            _guarded(self, 10.0, "freeze the page's animations", tools.freeze_animations)
        if self.coverage_hashes and not plain:
            _guarded(self, 10.0, "start V8 coverage", tools.start_coverage)
        self.tab = Tab(self, page, tools, clocked)
        return self.tab

    def drain(self) -> browser_events.Events:
        return self._recorder.drain()

    def drain_network(self) -> tuple[str, ...]:
        """Connections the network guard refused since the last call."""
        return self.guard.drain() if self.guard is not None else ()

    def serve_files(self, files: dict[str, bytes]) -> None:
        """From now on, answer requests for these URLs (exact, without query) with
        these bytes, for every page of the session, before any other route."""
        self.add_installer(lambda context: context.route(_files_matcher(files), _files_handler(files)))


def _files_matcher(files: dict[str, bytes]) -> Callable[[str], bool]:
    return lambda url: url.split("?", 1)[0].split("#", 1)[0] in files


def _files_handler(files: dict[str, bytes]) -> Callable[[Any], None]:
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


def _translate(session: Session, error: Exception, what: str, deadline_s: float) -> BrowserError:
    stage = session.watchdog.fired
    message = str(error).split("\n", 1)[0]
    if stage == "renderer":
        return PageHung(f"the page stopped responding for {deadline_s:g} s during {what}; "
                        "its renderer was killed")
    if stage in ("browser", "driver"):
        return BrowserGone(f"the browser stopped responding during {what}; it was killed")
    if "crashed" in message.lower():
        return PageLost(f"the page crashed during {what}")
    if not session.connected:
        return BrowserGone(f"the browser closed during {what}: {message}")
    if "closed" in message.lower() and session.tab is not None and session.tab.page.is_closed():
        return PageLost(f"the page was closed during {what}")
    return BrowserError(message)


def _guarded(session: Session, deadline_s: float, what: str, call: Callable[[], Any]) -> Any:
    try:
        with session.watchdog.guard(deadline_s):
            return call()
    except pw.Error as error:
        raise _translate(session, error, what, deadline_s) from None


class Tab:
    """One page of the session, with its events wired to the session's recorder.
    Each method takes the seconds it may use; the watchdog enforces them."""

    SLACK_S = 3.0  # watchdog margin above Playwright's own timeout

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
        return _guarded(self.session, seconds + self.SLACK_S, what, call)

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

    def click(self, selector: str, timeout_s: float, count: int = 1, at: tuple[float, float] | None = None,
              button: str = "left") -> None:
        """Click the element (at fractions ``at`` of its box; default its middle)."""
        loc = self.page.locator(selector).first
        self._call(f"click {selector}", timeout_s,
                   lambda: loc.click(timeout=timeout_s * 1000, click_count=count, button=button,  # type: ignore[arg-type]  # a str Playwright checks
                                     position=self._position(loc, at, timeout_s)))

    def fill(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"fill {selector}", timeout_s, lambda: loc.fill(value, timeout=timeout_s * 1000))

    def select(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"select in {selector}", timeout_s,
                   lambda: loc.select_option(value, timeout=timeout_s * 1000))

    def hover(self, selector: str, timeout_s: float, at: tuple[float, float] | None = None) -> None:
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
        return _guarded(self.session, deadline_s, "a page script",
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
            return _guarded(self.session, deadline_s, what, call)
        except devtools.ScriptError as error:
            raise BrowserError(f"{what} failed: {error}") from None

    def title(self, deadline_s: float = 5.0) -> str:
        return _guarded(self.session, deadline_s, "reading the title", self.page.title)

    def serve_files(self, files: dict[str, bytes]) -> None:
        """As Session.serve_files, for this page only."""
        self.page.route(_files_matcher(files), _files_handler(files))

    def png(self, timeout_s: float) -> bytes:
        """Playwright's own screenshot of the viewport (slower than DevTools' fast one)."""
        return self._call("a screenshot", timeout_s, lambda: self.page.screenshot(type="png", timeout=timeout_s * 1000))

    def protocol(self, method: str, params: dict | None = None, deadline_s: float = 5.0) -> dict:
        """One DevTools protocol call on this page, through the tab's own session."""
        return _guarded(self.session, deadline_s, f"the DevTools call {method}",
                        lambda: self.devtools.cdp.send(method, params or {}))
