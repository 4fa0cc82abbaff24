"""The snapshot's idle window, in real Chromium: a page on which nothing can change
while nobody acts is not waited for; a page with anything pending (an interval, a
timeout, an animation frame loop, a running CSS animation, a worker) or with timers
the page replaced itself is waited for as before, and its ticking element is marked
volatile. Playwright's clock (``wait``) always waits; under the clock the window passes
in the page's time, at once, and a ticker is still marked."""

from __future__ import annotations

import time

import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import observing

from fakes.apps import pages_served

pytestmark = pytest.mark.browser

BODY = "<!doctype html><title>q</title><p id=tick>0</p>"
PAGES = {
    "still": "",
    "interval": "<script>setInterval(() => { tick.textContent = String(Date.now()); }, 20)</script>",
    "timeout-pending": "<script>setTimeout(() => { tick.textContent = 'late'; }, 60000)</script>",
    "timeout-ran": "<script>setTimeout(() => { tick.textContent = 'ran'; }, 1)</script>",
    "interval-cleared": "<script>clearInterval(setInterval(() => {}, 10))</script>",
    "frame-loop": "<script>(function f() { tick.textContent = String(performance.now()); requestAnimationFrame(f); })()</script>",
    "own-scheduler": "<script>window.setTimeout = function (fn) { return 0; };</script>",
    "css-animation": "<style>@keyframes s { to { opacity: 0.5 } } #tick { animation: s 1s infinite }</style>",
    "worker": "<script>new Worker(URL.createObjectURL(new Blob(['onmessage = () => 0'])))</script>",
}


@pytest.fixture(scope="module")
def served():
    with pages_served({name: BODY + script for name, script in PAGES.items()}, "iwc-quiet-") as url, \
            browser.Browser() as chromium:
        yield url, chromium


def _snapshot(served, page: str, wait: bool = False) -> dict:
    url, chromium = served
    with browser.Session(browser.ContextOptions(), allow=(url,), browser=chromium) as session:
        tab = session.new_tab()
        tab.goto(f"{url}{page}/index.html", 15)
        time.sleep(0.2)  # the page's own short timers have run
        observing.observe(tab, 0, 5.0)  # the look starts the idle window
        return tab.isolated(observing.SNAPSHOT, {"idleMs": observing.IDLE_MS, "nonce": session.nonce,
                                                  "wait": wait}, 5.0)


@pytest.mark.parametrize("page", ["still", "timeout-ran", "interval-cleared"])
def test_a_page_with_nothing_pending_is_not_waited_for(served, page):
    raw = _snapshot(served, page)
    assert raw["waited"] is False and raw["volatile"] == [] and 'id="tick"' in raw["html"]


@pytest.mark.parametrize("page", ["interval", "timeout-pending", "frame-loop", "own-scheduler", "css-animation",
                                  "worker"])
def test_a_page_that_can_change_on_its_own_is_waited_for(served, page):
    assert _snapshot(served, page)["waited"] is True


def test_the_ticking_element_is_still_marked_volatile(served):
    marks = _snapshot(served, "interval")["volatile"]
    assert any(m["text"] or m["children"] for m in marks), marks


def test_under_playwrights_clock_the_window_always_lasts(served):
    assert _snapshot(served, "still", wait=True)["waited"] is True


def test_under_playwrights_clock_the_window_passes_in_the_pages_own_time(served):
    """observing.snapshot runs the page's clock through the window instead of waiting
    for it: with the clock paused (no time passes unless it is run), the page's time
    still moves on by at least the window, and the element its interval rewrites
    (every 20 ms, each in its own task) is marked volatile."""
    url, chromium = served
    with browser.Session(browser.ContextOptions(), allow=(url,), browser=chromium) as session:
        session.virtual_time = True
        tab = session.new_tab()
        tab.goto(f"{url}interval/index.html", 15)
        tab.page.clock.pause_at(tab.main("Date.now()") + 1000)
        observing.observe(tab, 0, 5.0)
        before = tab.main("Date.now()")
        taken = observing.snapshot(tab, 1 << 20, 5.0)
        after = tab.main("Date.now()")
    assert after - before >= observing.IDLE_MS
    assert b'id="tick"' in taken.data
    assert any(m.text or m.children for m in taken.volatile), taken.volatile
