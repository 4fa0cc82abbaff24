"""A Chromium for one session or for a worker's sessions one after another, started
behind the network guard (kits/launching.py, kits/egress.py) in a folder of its own,
with its watchdog (kits/watchdog.py). kits/browser.py's ``Session`` opens its contexts
in it; nothing else here knows about pages.
"""

from __future__ import annotations

import pathlib
import shutil
import uuid
from typing import Any

import playwright.sync_api as pw

from iwcbench.pipeline.kits import egress, launching
from iwcbench.pipeline.kits import watchdog as watchdogs


def launch(playwright: pw.Playwright, headless: bool = True, tag: str | None = None,
           executable: pathlib.Path | None = None, proxy: str | None = None) -> pw.Browser:
    """Launch Chromium with the flags that keep it from dialling out. ``tag`` is put
    on the browser's command line so the watchdog can find the process; ``proxy`` is
    the network guard every connection must take. Downloads are refused by the
    contexts; were one let through, it would land in the session's folder."""
    downloads = str(launching.home(executable.parent) / "Downloads") if executable is not None else None
    return playwright.chromium.launch(executable_path=str(executable or launching.chromium_path()), headless=headless,
                                      args=launching.args(tag, proxy), downloads_path=downloads)


def close_quietly(watchdog: watchdogs.Watchdog, closing: Any) -> None:
    """Close a Playwright browser or context under the watchdog; one already dead is
    fine."""
    try:
        with watchdog.guard(10.0):
            closing.close()
    except Exception:  # noqa: BLE001 - already dead is fine when closing
        pass


class Browser:
    """One Chromium behind its own network guard, in a folder of its own, that sessions
    use one after another: a worker starts it once instead of once per app. It starts
    when the first session asks for it (``ensure``), and again after a session had to
    kill it, after it died, or after ``RECYCLE_AFTER`` sessions (a long-lived browser
    process holds on to memory). ``close`` ends it: every Chromium process of it is
    killed if need be and its folder removed."""

    RECYCLE_AFTER = 40  # sessions

    def __init__(self, headless: bool = True, network_namespace: bool = True, hang_grace_s: float = 8.0) -> None:
        self.headless = headless
        self.network_namespace = network_namespace
        self.hang_grace_s = hang_grace_s
        self.folder: pathlib.Path | None = None
        self.guard: egress.Guard | None = None
        self.isolation = ""  # how the network was fenced off, in words
        self.watchdog = watchdogs.Watchdog(None, hang_grace_s)
        self.launches = 0  # how often it was started
        self.sessions = 0  # sessions since the last start
        self._driver: pw.Playwright | None = None
        self._browser: pw.Browser | None = None

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    def ensure(self) -> None:
        """Started and answering, for one more session."""
        if self.connected and not self.watchdog.killed and self.sessions < self.RECYCLE_AFTER:
            self.sessions += 1
            return
        self.close()
        tag = uuid.uuid4().hex
        self.folder = launching.session_folder()
        try:
            socket_path = str(self.folder / "g.sock") if self.network_namespace else None
            self.guard = egress.Guard((), unix_path=socket_path)
            executable = launching.write_launcher(self.folder, socket_path, self.guard.port)
            with launching.temporary_files_in(self.folder):
                self._driver = pw.sync_playwright().start()
            self._browser = launch(self._driver, self.headless, tag, executable, self.guard.url)
            self.isolation = launching.isolation(self.folder)
            self.watchdog = watchdogs.Watchdog(watchdogs.find_tagged(tag), self.hang_grace_s)
        except BaseException:
            self.close()
            raise
        self.launches += 1
        self.sessions = 1

    def new_context(self, **options: Any) -> pw.BrowserContext:
        assert self._browser is not None, "Browser.ensure() first"
        return self._browser.new_context(**options)

    def close(self) -> None:
        if self._browser is not None:
            close_quietly(self.watchdog, self._browser)
        if self._driver is not None:
            try:
                self._driver.stop()
            except Exception:  # noqa: BLE001 - the driver may have been killed
                pass
        self.watchdog.reap()
        if self.guard is not None:
            self.guard.close()
        if self.folder is not None:
            # A killed driver or browser cleans up nothing; a flooded profile is big.
            shutil.rmtree(self.folder, ignore_errors=True)
        self._browser = self._driver = self.guard = self.folder = None
