"""A worker's Chromium is started once and lent to one app after another: each session
gets a fresh context (nothing of the app before it: no storage, no cookies), the
network guard lets through only the origins of the session under way, a browser the
watchdog had to kill is started again for the next session, and closing it leaves
nothing in the temporary folder."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import tempfile

import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages import serving

pytestmark = pytest.mark.browser

PAGE = ("<!doctype html><title>reuse</title><p id=seen></p><script>"
        "document.getElementById('seen').textContent = localStorage.getItem('mark') || 'none';"
        "localStorage.setItem('mark', 'left by an earlier app'); document.cookie = 'c=1';"
        "</script>")


@pytest.fixture()
def two_apps():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="iwc-apps-", dir="/tmp"))  # not in the TMPDIR watched
    for name in ("a", "b"):
        (folder / name).mkdir()
        (folder / name / "index.html").write_text(PAGE)
    with serving.serve(folder / "a") as a, serving.serve(folder / "b") as b:
        yield a.url, b.url
    shutil.rmtree(folder, ignore_errors=True)


def _visit(chromium: browser.Browser, url: str, allow: str) -> tuple[str, str, tuple[str, ...]]:
    with browser.Session(browser.ContextOptions(hang_grace_s=1.0), allow=(allow,), browser=chromium) as session:
        tab = session.new_tab()
        status = tab.goto(url + "index.html", 15)
        seen = tab.isolated("() => (document.getElementById('seen') || {}).textContent + '|' + document.cookie",
                            None, 5)
        return str(status), seen, session.drain_network()


def test_sessions_share_a_browser_but_nothing_else(two_apps, own_tmp):
    a, b = two_apps
    with browser.Browser() as chromium:
        assert _visit(chromium, a, a)[:2] == ("200", "none|c=1")
        # the same origin again, a fresh context: the first app's storage and cookie are gone
        assert _visit(chromium, a, a)[:2] == ("200", "none|c=1")
        # another app's session: the guard no longer lets the first app's server through
        status, _, refused = _visit(chromium, a, b)
        assert status != "200" and any(a.split("//", 1)[1].rstrip("/") in r for r in refused), (status, refused)
        assert _visit(chromium, b, b)[0] == "200"
        assert chromium.launches == 1 and chromium.sessions == 4
        assert list(own_tmp.iterdir()), "the browser's folder should be in TMPDIR while it runs"
    assert list(own_tmp.iterdir()) == []


def test_a_killed_browser_is_started_again_for_the_next_session(two_apps, own_tmp):
    a, _ = two_apps
    with browser.Browser(hang_grace_s=1.0) as chromium:
        with browser.Session(browser.ContextOptions(), allow=(a,), browser=chromium) as session:
            tab = session.new_tab()
            tab.goto(a + "index.html", 15)
            os.kill(session.watchdog.browser_pid, signal.SIGSTOP)  # killing renderers cannot help
            with pytest.raises(browser.BrowserGone):
                tab.evaluate("() => 1", None, 1.0)
        assert not chromium.connected
        assert _visit(chromium, a, a)[:2] == ("200", "none|c=1")
        assert chromium.launches == 2
    assert list(own_tmp.iterdir()) == []
