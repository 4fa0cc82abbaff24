"""The hermetic network policy for an explored app (a Playwright route handler).

``Hermetic(app_origin, mirror)``: requests to the app's own origin go through;
``data:``/``blob:`` go through; public CDN URLs (kits/cdn.HOSTS) are answered from
the local mirror with ``Access-Control-Allow-Origin: *`` or refused when it cannot
answer; everything else is refused (``blockedbyclient``). WebSockets to anywhere but
the app's origin are closed. What happened is kept (``blocked``, ``mirrored``) and
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
from typing import Any

from iwcbench.pipeline.kits.mirror import cdn

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


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}".lower()


def _cap(url: str) -> str:
    return url if len(url) <= URL_CAP else url[: URL_CAP - 1] + "…"


class Hermetic:
    def __init__(self, app_origin: str, mirror: cdn.Mirror) -> None:
        self.app_origin = _origin(app_origin)
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
            if url.startswith(("data:", "blob:")) or _origin(url) == self.app_origin:
                route.continue_()
                return
            host = (urllib.parse.urlsplit(url).hostname or "").lower()
            if host not in cdn.HOSTS:
                self._refuse(route, url, "external host")
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
        except Exception as error:  # noqa: BLE001 - a handler must never break the page
            log.debug("routing %s failed", getattr(getattr(route, "request", None), "url", "?"),
                      exc_info=True)
            url = getattr(getattr(route, "request", None), "url", "?")
            self._refuse(route, url, f"routing failed: {type(error).__name__}: {error}")

    def handle_web_socket(self, socket: Any) -> None:
        try:
            if _origin(socket.url) == self.app_origin:
                socket.connect_to_server()
                return
            self._record(self.blocked, Blocked(_cap(socket.url), "WebSocket to an external host"))
            socket.close(code=1008, reason="blocked by iwc-bench")
        except Exception:  # noqa: BLE001 - the page may already be gone
            log.debug("closing a WebSocket failed", exc_info=True)

    # ---- records ----------------------------------------------------------------
    def _refuse(self, route: Any, url: str, reason: str) -> None:
        self._record(self.blocked, Blocked(_cap(url), reason))
        try:
            route.abort("blockedbyclient")
        except Exception:  # noqa: BLE001 - already handled, or the page is gone
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
