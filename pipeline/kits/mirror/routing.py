"""The routers that decide every request of an explored app's browser context (Playwright
route handlers): ``Hermetic``, the sandbox with the CDN mirror, and ``OriginGuard``, the
same rule without one; both are a ``Router``.

``Hermetic(app_origin, mirror)`` follows the sandbox's request rule (kits/mirror/rule.py,
the one the quality stage's browsers follow too): requests to the app's own origin and
``data:``/``blob:`` go through; public CDN URLs (kits/cdn.HOSTS) are answered from the
local mirror with ``Access-Control-Allow-Origin: *`` or refused when it cannot answer;
everything else is refused (``blockedbyclient``). WebSockets to anywhere but the app's
origin are closed. What happened is kept (``blocked``, ``mirrored``) and
``drain()`` hands over what is new since the last call, for the explorer's per-step
record. Create browser contexts with ``context_options()`` so service workers cannot
bypass the handler. Duck-typed on Playwright's Route/WebSocketRoute: this module does
not import playwright, and it never lets an exception out of a handler.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import urllib.parse
from typing import Any, Protocol

from iwcbench.pipeline.kits.mirror import cdn, rule

log = logging.getLogger(__name__)
URL_CAP = 300  # characters of a URL kept in a record
PER_DRAIN = 50  # records listed per drain; the rest are counted
HISTORY_CAP = 20_000  # records kept in ``blocked`` / ``mirrored``
CDN_HEADERS = {
    "access-control-allow-origin": "*",
    "cache-control": "public, max-age=86400",
    "x-iwc-mirror": "1",
}


@dataclasses.dataclass(frozen=True)
class Blocked:
    url: str
    reason: str

    def __str__(self) -> str:
        return f"{self.url} ({self.reason})"


@dataclasses.dataclass(frozen=True)
class Mirrored:
    url: str
    served: str  # package@version/path

    def __str__(self) -> str:
        return f"{self.url} -> {self.served}"


def context_options() -> dict[str, Any]:
    """Keyword arguments for ``browser.new_context`` that the policy relies on: a
    service worker would answer requests without passing through ``handle``."""
    return {"service_workers": "block"}


def _cap(url: str) -> str:
    return url if len(url) <= URL_CAP else url[: URL_CAP - 1] + "…"


class Hermetic:
    def __init__(self, app_origin: str, mirror: cdn.Mirror) -> None:
        self.app_origin = app_origin
        self.mirror = mirror
        self._lock = threading.Lock()
        self.blocked: list[Blocked] = []
        self.mirrored: list[Mirrored] = []
        self._seen_blocked = 0
        self._seen_mirrored = 0

    # ---- Playwright handlers ----------------------------------------------------
    def install(self, context: Any) -> None:
        context.route("**/*", self.handle)
        route_web_socket = getattr(context, "route_web_socket", None)
        if route_web_socket is not None:  # Playwright ≥ 1.48
            route_web_socket(re.compile(".*"), self.handle_web_socket)

    def handle(self, route: Any) -> None:
        try:
            request = route.request
            url = request.url
            decision = rule.decide(url, self.app_origin)
            if decision.action == "pass":
                route.continue_()
                return
            if decision.action == "refuse":
                self._refuse(route, url, decision.reason)
                return
            if getattr(request, "method", "GET") == "OPTIONS":  # CORS preflight
                route.fulfill(status=204, headers={
                    **CDN_HEADERS, "access-control-allow-methods": "GET, HEAD, OPTIONS",
                    "access-control-allow-headers": "*"})
                return
            found = self.mirror.lookup(url)
            if isinstance(found, cdn.Miss):
                self._refuse(route, url, f"not in the CDN mirror: {found.reason}")
                return
            route.fulfill(status=200, body=found.body,
                          headers={**CDN_HEADERS, "content-type": found.content_type})
            self._record(self.mirrored, Mirrored(_cap(url), found.label))
        except Exception as error:  # a handler must never break the page
            log.debug("routing %s failed", getattr(getattr(route, "request", None), "url", "?"),
                      exc_info=True)
            url = getattr(getattr(route, "request", None), "url", "?")
            self._refuse(route, url, f"routing failed: {type(error).__name__}: {error}")

    def handle_web_socket(self, socket: Any) -> None:
        try:
            decision = rule.decide(socket.url, self.app_origin, websocket=True)
            if decision.action == "pass":
                socket.connect_to_server()
                return
            self._record(self.blocked, Blocked(_cap(socket.url), decision.reason))
            socket.close(code=1008, reason="blocked by iwc-bench")
        except Exception:  # the page may already be gone
            log.debug("closing a WebSocket failed", exc_info=True)

    # ---- records ----------------------------------------------------------------
    def _refuse(self, route: Any, url: str, reason: str) -> None:
        self._record(self.blocked, Blocked(_cap(url), reason))
        try:
            route.abort("blockedbyclient")
        except Exception:  # already handled, or the page is gone
            log.debug("aborting %s failed", url, exc_info=True)

    def _record(self, into: list, item: Blocked | Mirrored) -> None:
        with self._lock:
            if len(into) < HISTORY_CAP:
                into.append(item)

    def drain(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(blocked, mirrored) since the last drain, as ``str`` records ("URL (reason)",
        "URL -> package@version/path"); at most PER_DRAIN each, then "… and N more"."""
        with self._lock:
            blocked, self._seen_blocked = self.blocked[self._seen_blocked:], len(self.blocked)
            mirrored, self._seen_mirrored = self.mirrored[self._seen_mirrored:], len(self.mirrored)
        return _listed(blocked), _listed(mirrored)


def _listed(items: list) -> tuple[str, ...]:
    texts = list(dict.fromkeys(str(i) for i in items))
    if len(texts) > PER_DRAIN:
        texts = texts[:PER_DRAIN] + [f"… and {len(texts) - PER_DRAIN} more"]
    return tuple(texts)


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
    """The minimal router: the sandbox's request rule (kits/mirror/rule.py) without a
    CDN mirror, so everything not on the app's origin is refused (HTTP and WebSocket).
    Used when no hermetic router (kits/mirror/routing.py) is given."""

    def __init__(self, app_origin: str) -> None:
        self.app_origin = app_origin
        self._blocked: list[str] = []

    def install(self, context: Any) -> None:  # a Playwright BrowserContext (this kit does not import it)
        def on_request(route: Any) -> None:
            url = route.request.url
            if rule.decide(url, self.app_origin).action == "pass":
                route.continue_()
            else:
                self._blocked.append(url)
                route.abort("blockedbyclient")

        def on_socket(socket: Any) -> None:
            if rule.decide(socket.url, self.app_origin, websocket=True).action == "pass":
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
