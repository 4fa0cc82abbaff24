"""The browser kit: Debian's Chromium driven by Playwright. Nothing else imports
playwright. It launches, routes and observes; it decides nothing about exploring.

A ``Session`` owns one browser, one context and at most one ``Tab`` at a time. Every
blocking call goes through the session's watchdog (kits/watchdog.py), so an app stuck
in an endless loop costs a deadline, never the run. Playwright's exceptions do not
leave this module: callers see ``BrowserError`` and its subclasses.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import shutil
import urllib.parse
import uuid
from typing import Any, Callable, Protocol, Sequence

import playwright.sync_api as pw

from iwcbench.pipeline.kits import processes, watchdog as watchdogs

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
)

EVENTS_PER_KIND = 20  # per drain; the rest is counted, not listed
TEXT_CAP = 300  # characters kept of one console message, error or dialog text


def chromium_path() -> str:
    """The system Chromium (apt). Playwright's own browser downloads are not used."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no chromium on PATH: run hack/setup (apt-get install chromium)")


def launch(playwright, headless: bool = True, tag: str | None = None):
    """Launch Chromium with the flags that keep it from dialling out. ``tag`` is put
    on the browser's command line so the watchdog can find the process."""
    args = list(CHROMIUM_ARGS) + ([f"--iwc-tag={tag}"] if tag else [])
    return playwright.chromium.launch(executable_path=chromium_path(), headless=headless, args=args)


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


# Runs before any app script in every document: records which event types are
# listened to (window/document-level and per element) without touching the DOM, and
# makes Math.random repeatable. Lives under a symbol, invisible to Object.keys.
INIT_SCRIPT = r"""
(() => {
  const KEY = Symbol.for('iwc.explorer');
  if (window[KEY]) return;
  const perElement = new WeakMap();
  const global = new Set();
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, options) {
    try {
      if (this === window || this === document || this === document.documentElement
          || this === document.body) {
        global.add(String(type));
      } else if (this instanceof Element) {
        let types = perElement.get(this);
        if (!types) { types = new Set(); perElement.set(this, types); }
        types.add(String(type));
      }
    } catch (e) { /* never break the app */ }
    return original.call(this, type, fn, options);
  };
  Object.defineProperty(window, KEY, {value: {perElement, global}, enumerable: false});
  let state = (__SEED__ >>> 0) || 1;
  Math.random = function () {
    state = (state + 0x6D2B79F5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
})();
"""


@dataclasses.dataclass
class Events:
    """What the app did on its own since the last drain."""

    console_errors: list[str] = dataclasses.field(default_factory=list)
    page_errors: list[str] = dataclasses.field(default_factory=list)
    dialogs: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    crashed: bool = False


def _cap(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= TEXT_CAP else text[: TEXT_CAP - 1] + "…"


class _Recorder:
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

    def drain(self) -> Events:
        events = self.events
        for kind, count in sorted(self.overflow.items()):
            getattr(events, kind).append(f"… and {count} more")
        self.events, self.overflow = Events(), {}
        return events


def origin_of(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"


class Router(Protocol):
    """What decides every request a browser context makes: installed once on the
    context; ``drain`` gives (blocked, mirrored) records since the last call, as
    text ("URL (reason)", "URL -> package@version/path")."""

    def install(self, context: Any) -> None: ...

    def drain(self) -> tuple[tuple[str, ...], tuple[str, ...]]: ...


class OriginGuard:
    """The minimal router: everything not on the app's origin is refused (HTTP and
    WebSocket). Used when no hermetic router (kits/routing.py) is given."""

    def __init__(self, app_origin: str) -> None:
        self.app_origin = app_origin
        self._blocked: list[str] = []

    def install(self, context) -> None:
        def on_request(route) -> None:
            url = route.request.url
            if url.startswith(("data:", "blob:")) or origin_of(url) == self.app_origin:
                route.continue_()
            else:
                self._blocked.append(url)
                route.abort("blockedbyclient")

        def on_socket(socket) -> None:
            ws_origin = origin_of(socket.url).replace("ws", "http", 1)
            if ws_origin == self.app_origin:
                socket.connect_to_server()
            else:
                self._blocked.append(socket.url)
                socket.close()

        context.route("**/*", on_request)
        context.route_web_socket(re.compile(".*"), on_socket)

    def drain(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(blocked, mirrored) since the last call, as routing.Hermetic.drain gives
        them; this guard mirrors nothing."""
        blocked, self._blocked = tuple(self._blocked), []
        return blocked, ()


class Session:
    """One browser + context for one exploration. Use as a context manager; on exit
    everything is closed and any Chromium process left over is killed."""

    def __init__(self, options: ContextOptions, headless: bool = True) -> None:
        self.options = options
        self.headless = headless
        self.tab: Tab | None = None
        self.context = None
        self._recorder = _Recorder()
        self._opening = False
        self._driver = None
        self._browser = None
        self.watchdog = watchdogs.Watchdog(None, options.hang_grace_s)

    def __enter__(self) -> Session:
        tag = uuid.uuid4().hex
        self._driver = pw.sync_playwright().start()
        try:
            self._browser = launch(self._driver, self.headless, tag)
            self.watchdog = watchdogs.Watchdog(watchdogs.find_tagged(tag), self.options.hang_grace_s)
            opts = self.options
            self.context = self._browser.new_context(
                viewport={"width": opts.viewport_width, "height": opts.viewport_height},
                device_scale_factor=1,
                service_workers="block",
                accept_downloads=False,
                timezone_id=opts.timezone,
                locale=opts.locale,
                color_scheme="light",
                bypass_csp=True,  # our observation scripts must run whatever the app's CSP says
            )
            self.context.add_init_script(INIT_SCRIPT.replace("__SEED__", str(int(opts.seed))))
            self.context.on("page", self._on_new_page)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for closing in (self.context, self._browser):
            if closing is not None:
                try:
                    with self.watchdog.guard(10.0):
                        closing.close()
                except Exception:  # noqa: BLE001 — already dead is fine when closing
                    pass
        if self._driver is not None:
            try:
                self._driver.stop()
            except Exception:  # noqa: BLE001 — the driver may have been killed
                pass
        self.watchdog.reap()
        self.context = self._browser = self._driver = None

    @property
    def connected(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    def _on_new_page(self, page) -> None:
        if self._opening:
            return
        self._recorder.add("notes", f"popup closed: {page.url or 'about:blank'}")
        try:
            page.close()
        except Exception:  # noqa: BLE001 — it may have closed itself already
            pass

    def new_tab(self) -> Tab:
        """Close the current tab (if any) and open a fresh one with event capture."""
        if self.tab is not None:
            self.tab.close()
        if not self.connected:
            raise BrowserGone("the browser is gone")
        self._opening = True
        try:
            page = _guarded(self, 15.0, "open a page", self.context.new_page)
        finally:
            self._opening = False
        self.tab = Tab(self, page)
        return self.tab

    def drain(self) -> Events:
        return self._recorder.drain()


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

    def __init__(self, session: Session, page) -> None:
        self.session = session
        self.page = page
        record = session._recorder.add
        page.on("console", lambda m: m.type == "error" and record("console_errors", m.text))
        page.on("pageerror", lambda e: record("page_errors", f"{e.name}: {e.message}"))
        page.on("dialog", self._on_dialog)
        page.on("crash", lambda _: setattr(session._recorder.events, "crashed", True))
        page.on("download", lambda d: record("notes", f"download refused: {d.suggested_filename}"))

    def _on_dialog(self, dialog) -> None:
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

    def goto(self, url: str, timeout_s: float, wait_until: str = "load") -> int | None:
        """Navigate; returns the HTTP status of the main document (None: no response)."""
        ms = timeout_s * 1000
        response = self._call(f"loading {url}", timeout_s,
                              lambda: self.page.goto(url, timeout=ms, wait_until=wait_until))
        return response.status if response is not None else None

    def wait_for_load(self, timeout_s: float, state: str = "load") -> None:
        self._call("waiting for the page", timeout_s,
                   lambda: self.page.wait_for_load_state(state, timeout=timeout_s * 1000))

    def click(self, selector: str, timeout_s: float, count: int = 1) -> None:
        loc = self.page.locator(selector).first
        self._call(f"click {selector}", timeout_s,
                   lambda: loc.click(timeout=timeout_s * 1000, click_count=count))

    def fill(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"fill {selector}", timeout_s, lambda: loc.fill(value, timeout=timeout_s * 1000))

    def select(self, selector: str, value: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"select in {selector}", timeout_s,
                   lambda: loc.select_option(value, timeout=timeout_s * 1000))

    def hover(self, selector: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"hover {selector}", timeout_s, lambda: loc.hover(timeout=timeout_s * 1000))

    def focus(self, selector: str, timeout_s: float) -> None:
        loc = self.page.locator(selector).first
        self._call(f"focus {selector}", timeout_s, lambda: loc.focus(timeout=timeout_s * 1000))

    def press(self, keys: Sequence[str], timeout_s: float, delay_ms: int = 40) -> None:
        """Press keys in order on whatever has focus (the body when nothing has)."""
        def run() -> None:
            for key in keys:
                self.page.keyboard.press(key, delay=delay_ms)
        self._call(f"press {' '.join(keys)}", timeout_s, run)

    def hold(self, key: str, ms: int, timeout_s: float) -> None:
        def run() -> None:
            self.page.keyboard.down(key)
            self.page.wait_for_timeout(ms)
            self.page.keyboard.up(key)
        self._call(f"hold {key}", timeout_s + ms / 1000, run)

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

    def drag_to(self, selector: str, target: str, timeout_s: float) -> None:
        source, goal = self.page.locator(selector).first, self.page.locator(target).first
        self._call(f"drag {selector} to {target}", timeout_s,
                   lambda: source.drag_to(goal, timeout=timeout_s * 1000))

    def scroll(self, dx: float, dy: float, timeout_s: float) -> None:
        self._call("scroll", timeout_s, lambda: self.page.mouse.wheel(dx, dy))

    def back(self, timeout_s: float) -> None:
        self._call("go back", timeout_s, lambda: self.page.go_back(timeout=timeout_s * 1000))

    def pause(self, ms: int) -> None:
        self._call("wait", ms / 1000, lambda: self.page.wait_for_timeout(ms))

    def evaluate(self, script: str, arg: Any = None, deadline_s: float = 10.0) -> Any:
        """Run a JS function in the page. Playwright has no timeout for this: the
        watchdog's deadline (``deadline_s``, no slack) is the only one."""
        return _guarded(self.session, deadline_s, "a page script",
                        lambda: self.page.evaluate(script, arg))

    def title(self, deadline_s: float = 5.0) -> str:
        return _guarded(self.session, deadline_s, "reading the title", self.page.title)


def read_coverage(tab: Tab, deadline_s: float = 10.0) -> dict | None:
    """The page's Istanbul counters (``window.__coverage__``), None when absent."""
    value = tab.evaluate("() => window.__coverage__ || null", None, deadline_s)
    return value if isinstance(value, dict) else None


def dom_snapshot(tab: Tab, max_bytes: int, deadline_s: float = 10.0) -> bytes:
    """The serialised DOM, cut at ``max_bytes`` with a marker saying so."""
    html = _guarded(tab.session, deadline_s, "reading the DOM", tab.page.content)
    data = html.encode("utf-8")
    if len(data) <= max_bytes:
        return data
    marker = f"\n<!-- iwc-bench: snapshot cut at {max_bytes} of {len(data)} bytes -->\n".encode()
    return data[: max_bytes - len(marker)].decode("utf-8", "ignore").encode() + marker


def screenshot(tab: Tab, timeout_s: float = 10.0) -> bytes:
    """A PNG of the viewport."""
    return tab._call("a screenshot", timeout_s,
                     lambda: tab.page.screenshot(type="png", timeout=timeout_s * 1000))


_AXE_RUN = """async (limitMs) => {
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('axe-core took longer than ' + limitMs + ' ms')), limitMs));
  const result = await Promise.race([
    axe.run(document, {resultTypes: ['violations'], reporter: 'v2'}), timeout]);
  return {version: axe.version, violations: result.violations.map(v => (
    {id: v.id, impact: v.impact || null, help: v.help || '', nodes: v.nodes.length}))};
}"""


def inject_axe(tab: Tab, time_limit_s: float = 10.0) -> dict:
    """Run axe-core on the page: ``{"version": str, "violations": [{id, impact, help,
    nodes}]}``. Injected once per document, by evaluation (not a <script> tag, so the
    DOM snapshots never contain it). Raises BrowserError when it fails or overruns."""
    if not tab.evaluate("() => typeof window.axe === 'object'", None, 5.0):
        source = (processes.node_tools_dir() / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
        # A bare function expression wrapper makes Playwright evaluate, not call, it.
        tab.evaluate("(src) => { (0, eval)(src); return typeof window.axe }", source, 15.0)
    return tab.evaluate(_AXE_RUN, int(time_limit_s * 1000), time_limit_s + 5.0)
