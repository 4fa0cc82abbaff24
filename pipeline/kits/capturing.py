"""What is read off a page for the evidence: its Istanbul counters, a screenshot, and
axe-core's findings, each through the browser kit's Tab (so under its watchdog). It
must not act on the page."""

from __future__ import annotations

import base64

from iwcbench.pipeline.kits import browser, injecting, processes


def read_coverage(tab: browser.Tab, deadline_s: float = 10.0) -> dict | None:
    """The page's Istanbul counters (``window.__coverage__``), None when absent. Read
    without running any of the page's JavaScript but a getter the page put there
    (which raises BrowserError)."""
    value = tab.main("window.__coverage__ || null", deadline_s)
    return value if isinstance(value, dict) else None


def screenshot(tab: browser.Tab, timeout_s: float = 10.0) -> bytes:
    """A PNG of the viewport. Encoded for speed (DevTools' optimizeForSpeed: about
    half the time of Playwright's screenshot, files about twice as large)."""
    try:
        shot = tab.protocol("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}, timeout_s)
        return base64.b64decode(shot["data"])
    except (browser.BrowserError, KeyError, ValueError) as failed:
        if isinstance(failed, browser.PageLost):
            raise
    return tab.png(timeout_s)


def inject_axe(tab: browser.Tab, time_limit_s: float = 10.0) -> dict:
    """Run axe-core on the page: ``{"version": str, "violations": [{id, impact, help,
    nodes}]}``. It runs in the isolated world, injected once per document by
    evaluation: the page can neither see it nor break it by replacing builtins, and
    the DOM snapshots never contain it. Raises BrowserError when it fails or overruns."""
    if not tab.isolated("() => typeof window.axe === 'object'", None, 5.0):
        source = (processes.node_tools_dir() / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
        tab.isolated("(src) => { (0, eval)(src); return typeof window.axe; }", source, 15.0)
    return tab.isolated(injecting.function(browser.PAGE / "axe.mjs"), int(time_limit_s * 1000), time_limit_s + 5.0)
