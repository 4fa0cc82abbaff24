"""How the browser kit fails: its errors (``BrowserError``: a call failed; ``PageLost``:
the page is gone; ``PageHung``: its renderer was killed for not answering;
``BrowserGone``: the whole browser is), and the one place a Playwright error becomes
one of them, told by what the watchdog did and what is still alive (``guarded``).
Playwright's exceptions do not leave the kit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import playwright.sync_api as pw

if TYPE_CHECKING:
    from iwcbench.pipeline.kits.browser import Session


class BrowserError(Exception):
    """A browser call failed: the element was not there, a timeout, a bad value."""


class PageLost(BrowserError):
    """The page is gone (renderer crashed, or the app closed its own window)."""


class PageHung(PageLost):
    """The page stopped responding; the watchdog killed its renderer."""


class BrowserGone(BrowserError):
    """The whole browser is gone (killed by the watchdog, or it died)."""


def translate(session: Session, error: Exception, what: str, deadline_s: float) -> BrowserError:
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


def guarded(session: Session, deadline_s: float, what: str, call: Callable[[], Any]) -> Any:
    try:
        with session.watchdog.guard(deadline_s):
            return call()
    except pw.Error as error:
        raise translate(session, error, what, deadline_s) from None
