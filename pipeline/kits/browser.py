"""The browser kit: Debian's Chromium driven by Playwright. Nothing outside this kit imports
playwright. It launches, routes and observes; it decides nothing about exploring.

A ``Session`` is one browser context with at most one ``Tab`` at a time (kits/tab: the
page's gestures, reads and scripts; kits/browser_errors: how a call fails), in a
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
from typing import Any, Callable, Sequence

import playwright.sync_api as pw

from iwcbench.pipeline.kits import browser_events, chromium, devtools, egress, injecting, launching, pageclock
from iwcbench.pipeline.kits.browser_errors import BrowserError as BrowserError, BrowserGone as BrowserGone
from iwcbench.pipeline.kits.browser_errors import PageHung as PageHung, PageLost as PageLost, guarded
from iwcbench.pipeline.kits.tab import Tab as Tab, files_handler, files_matcher
from iwcbench.pipeline.kits import watchdog as watchdogs

CHROMIUM_ARGS = launching.CHROMIUM_ARGS
PAGE = pathlib.Path(__file__).resolve().with_name("page")  # the page scripts of this kit
chromium_path = launching.chromium_path
# callers name them browser.* (one assignment each: mypy takes a lone class assignment as a type alias)
Browser = chromium.Browser
launch = chromium.launch


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
        self.context = guarded(self, 15.0, "open a browser context", self._context)

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
            page = guarded(self, 15.0, "open a page", context.new_page)
        finally:
            self._opening = False
        cdp = guarded(self, 10.0, "attach to the page", lambda: context.new_cdp_session(page))
        tools = devtools.Devtools(cdp, self.coverage_hashes)
        if clocked:  # (page/timers.js: a timer's error stays a page error under the clock)
            # Paused at a fixed instant: the page's time moves only when the explorer
            # lets it (Tab.fast_forward, a held key, a wait), by the same amounts in every
            # run, whatever the machine's load; never in catch-up bursts. Its animations too.
            if not self._clocked:
                guarded(self, 10.0, "install the page's clock", lambda: pageclock.install(page))
                self._clocked = True
            guarded(self, 10.0, "install the page's clock", lambda: page.add_init_script(path=PAGE / "timers.js"))
            guarded(self, 10.0, "freeze the page's animations", tools.freeze_animations)
        if self.coverage_hashes and not plain:
            guarded(self, 10.0, "start V8 coverage", tools.start_coverage)
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
        self.add_installer(lambda context: context.route(files_matcher(files), files_handler(files)))
