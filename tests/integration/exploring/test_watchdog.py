"""The browser kit's watchdog: a hung renderer or browser costs a deadline, never the
run, and no Chromium process outlives its session."""

from __future__ import annotations

import os
import signal

import pytest

from iwcbench.pipeline.kits import browser, watchdog

pytestmark = pytest.mark.browser

LOOPING = "data:text/html,<button id=b onclick='while(true){}'>freeze</button>"


def _gone(pids: set[int]) -> list[int]:
    return [p for p in pids if watchdog.alive(p)]


def test_a_hung_renderer_is_killed_and_the_session_goes_on():
    with browser.Session(browser.ContextOptions(hang_grace_s=6.0)) as session:
        tab = session.new_tab()
        tab.quick_aim = False  # (Playwright's waiting click: its own timeout ends it)
        tab.goto(LOOPING, 10)
        with pytest.raises(browser.BrowserError):
            tab.click("#b", 1.0)  # Playwright's own timeout: the click never completes
        with pytest.raises(browser.PageHung):
            tab.evaluate("() => 1", None, 1.5)  # no Playwright timeout covers this one
        assert session.drain().crashed
        fresh = session.new_tab()
        fresh.goto("data:text/html,<p>alive</p>", 10)
        assert fresh.evaluate("() => document.body.innerText") == "alive"
        seen = set(session.watchdog.seen) | set(watchdog.tree(session.watchdog.browser_pid))
    assert seen and not _gone(seen)


def test_a_click_on_a_hung_page_finds_it_hung_before_pressing():
    with browser.Session(browser.ContextOptions(hang_grace_s=6.0)) as session:
        tab = session.new_tab()
        tab.goto(LOOPING, 10)
        with pytest.raises(browser.PageHung):
            tab.click("#b", 1.0)  # the aim (page/aim.mjs) is a script of ours: the watchdog ends it
        assert session.drain().crashed
        fresh = session.new_tab()
        fresh.goto("data:text/html,<p>alive</p>", 10)
        assert fresh.evaluate("() => document.body.innerText") == "alive"


def test_a_frozen_browser_is_killed_whole_and_leaves_no_process():
    with browser.Session(browser.ContextOptions(hang_grace_s=1.0)) as session:
        tab = session.new_tab()
        tab.goto("data:text/html,<p>x</p>", 10)
        pids = set(watchdog.tree(session.watchdog.browser_pid))
        os.kill(session.watchdog.browser_pid, signal.SIGSTOP)  # killing renderers cannot help now
        with pytest.raises(browser.BrowserGone):
            tab.evaluate("() => 1", None, 1.0)
        assert session.watchdog.fired in ("browser", "driver")
    assert pids and not _gone(pids)
