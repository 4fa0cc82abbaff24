"""A browser the watchdog had to kill leaves nothing in the temporary folder: not its
profile (which a page can fill with hundreds of MB), not Playwright's artifacts."""

from __future__ import annotations

import os
import signal

import pytest

from iwcbench.pipeline.kits import browser

pytestmark = pytest.mark.browser

FLOOD = ("data:text/html,<script>"
         "indexedDB.open('f', 1).onupgradeneeded = (e) => e.target.result.createObjectStore('s');"
         "localStorage.setItem('k', 'x'.repeat(1 << 20));</script><p>flooding</p>")


def test_a_browser_killed_whole_leaves_no_profile(own_tmp):
    with browser.Session(browser.ContextOptions(hang_grace_s=1.0)) as session:
        tab = session.new_tab()
        tab.goto(FLOOD, 10)
        assert list(own_tmp.iterdir()), "the browser's profile should be in TMPDIR while it runs"
        os.kill(session.watchdog.browser_pid, signal.SIGSTOP)  # killing renderers cannot help
        with pytest.raises(browser.BrowserGone):
            tab.evaluate("() => 1", None, 1.0)
    assert list(own_tmp.iterdir()) == []


def test_a_killed_driver_leaves_no_profile(own_tmp):
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto(FLOOD, 10)
        os.kill(session.watchdog.driver_pid, signal.SIGKILL)  # the watchdog's last resort
        with pytest.raises(browser.BrowserError):
            tab.evaluate("() => 1", None, 3.0)
    assert list(own_tmp.iterdir()) == []
