"""Carry out one ``evidence.Action`` on a tab (the grammar is in policy.py). It does
what it is told and raises browser.BrowserError when it cannot; it records nothing
and must not decide anything.
"""

from __future__ import annotations

import json

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import uploads


VIRTUAL_MAX_MS = 60_000  # the most page time one wait or hold may run ahead in virtual time


class BadAction(browser.BrowserError):
    """The action itself is malformed (a policy's mistake, recorded as ok=False)."""


def _pair(value: str | None, default: tuple[float, float]) -> tuple[float, float]:
    if not value:
        return default
    try:
        dx, dy = (float(v) for v in value.split(","))
    except ValueError:
        raise BadAction(f"expected 'dx,dy', got {value!r}") from None
    return dx, dy


def _place(value: str | None) -> tuple[float, float] | None:
    """``"at:0.2,0.75"``: fractions of the element's box; None for its middle."""
    if not value or not value.startswith("at:"):
        return None
    fx, fy = _pair(value[3:], (0.5, 0.5))
    if not (0 <= fx <= 1 and 0 <= fy <= 1):
        raise BadAction(f"a place is two fractions of the box between 0 and 1, got {value!r}")
    return fx, fy


def _route_script(route: str) -> str:
    """What going to a view of the app's router is, in the page: a hash set on the
    address (its hashchange follows), or a path pushed to the history and announced
    as a popstate, as a router's own links do. Only within the page's origin."""
    if route.startswith("#"):
        return f"location.hash = {json.dumps(route)}, location.href"
    if route.startswith("/") and not route.startswith("//"):
        return (f"history.pushState(null, '', {json.dumps(route)}), "
                "dispatchEvent(new PopStateEvent('popstate', {state: null})), location.href")
    raise BadAction(f"a route is '#…' or '/…' within the app, got {route!r}")


def _need(action: evidence.Action) -> str:
    if not action.selector:
        # a target without a selector names an element the policy could not find
        raise BadAction(f"no element to {action.kind}: {action.target}" if action.target
                        else f"a {action.kind} action needs a selector")
    return action.selector


def perform(tab: browser.Tab, action: evidence.Action, timeout_s: float, start_url: str) -> None:
    """Do ``action``. ``timeout_s`` bounds each wait for an element to be actionable."""
    kind = action.kind
    if kind == "click" or kind == "check":
        where = _place(action.value)
        tab.click(_need(action), timeout_s, count=2 if action.value == "double" else 1, at=where,
                  button="right" if action.value == "right" else "left")
    elif kind == "type":
        tab.fill(_need(action), action.value or "", timeout_s)
    elif kind == "select":
        tab.select(_need(action), action.value or "", timeout_s)
    elif kind == "upload":
        name, media, data = uploads.file(action.value or "")
        tab.upload(_need(action), name, media, data, timeout_s)
    elif kind == "hover":
        tab.hover(_need(action), timeout_s, at=_place(action.value))
    elif kind in _BY_KIND:
        _BY_KIND[kind](tab, action, timeout_s)
    elif kind == "scroll":
        dx, dy = _pair(action.value, (0.0, 600.0))
        tab.scroll(dx, dy, timeout_s)
    elif kind == "back":
        tab.back(timeout_s)
    elif kind == "route":
        tab.main(_route_script(action.value or ""), timeout_s)
    elif kind == "load":
        tab.goto(start_url, timeout_s * 2)
    else:
        raise BadAction(f"the explorer cannot perform a {kind!r} action")


def _drag(tab: browser.Tab, action: evidence.Action, timeout_s: float) -> None:
    value = action.value or "0,0"
    if value.startswith("to:"):
        tab.drag_to(_need(action), value[3:], timeout_s)
    elif value.startswith("touch:"):
        dx, dy = _pair(value[6:], (0.0, 0.0))
        tab.touch(_need(action), dx, dy, timeout_s)
    else:
        dx, dy = _pair(value, (0.0, 0.0))
        tab.drag(_need(action), dx, dy, timeout_s)


def _key(tab: browser.Tab, action: evidence.Action, timeout_s: float) -> None:
    if action.selector:
        tab.focus(action.selector, timeout_s)
    value = (action.value or "").strip()
    if value.startswith("hold:"):
        try:
            _, keys, ms = value.split(":")
            longest = VIRTUAL_MAX_MS if tab.virtual_time else int(timeout_s * 1000)
            tab.hold(keys.split("+"), min(int(ms), longest), timeout_s)
        except ValueError:
            raise BadAction(f"expected 'hold:Key:ms', got {value!r}") from None
    elif value:
        tab.press(value.split(), timeout_s)
    else:
        raise BadAction("a key action needs keys in its value")


def _resize(tab: browser.Tab, action: evidence.Action, timeout_s: float) -> None:
    width, _, height = (action.value or "").partition("x")
    try:
        size = int(width), int(height)
    except ValueError:
        raise BadAction(f"expected 'WIDTHxHEIGHT', got {action.value!r}") from None
    if not (200 <= size[0] <= 4000 and 200 <= size[1] <= 4000):
        raise BadAction(f"a viewport is 200 to 4000 pixels each way, got {action.value!r}")
    tab.resize(size[0], size[1], timeout_s)


def _wait(tab: browser.Tab, action: evidence.Action, timeout_s: float) -> None:
    value = action.value or "500"
    fast = value.startswith("fast:")
    try:
        ms = int(float(value[5:] if fast else value))
    except ValueError:
        raise BadAction(f"expected milliseconds or 'fast:ms', got {action.value!r}") from None
    if fast and tab.virtual_time:
        tab.fast_forward(max(0, min(ms, VIRTUAL_MAX_MS)), timeout_s)
    else:  # (a replayed trace on a page without the clock waits as long as it may)
        tab.pause(max(0, min(ms, int(timeout_s * 1000))))


_BY_KIND = {"drag": _drag, "key": _key, "resize": _resize, "wait": _wait}
