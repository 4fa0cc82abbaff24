"""The network guard: a loopback HTTP proxy that every connection of the browser takes.

Chromium is launched with ``--proxy-server`` pointing here and
``--proxy-bypass-list=<-loopback>``, so even 127.0.0.1 goes through it — including what
page-level request routing never sees (SharedWorkers, WebSockets from workers, requests
sent while a page unloads, speculative prefetches, TURN over TCP). ``Guard(allowed)``
lets through connections to the allowed servers (the app's own, ``host:port``) and
answers everything else with 403, recording each refusal (``drain()``). It speaks the
part of HTTP/1.1 proxying Chromium uses: absolute-form requests (``GET http://h:p/x``),
forwarded with ``Connection: close``, and ``CONNECT h:p`` tunnels (WebSocket, TLS,
TURN). With ``unix_path`` it listens on a Unix socket too, for a browser in a network
namespace of its own (kits/launcher.py relays to it).

It decides nothing about apps and never looks inside bodies; it only connects to the
servers it was told are allowed, and never resolves a name it refuses.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import threading
import urllib.parse
from typing import Iterable

log = logging.getLogger(__name__)
HEAD_CAP = 64 * 1024  # bytes of a request or response head
IDLE_S = 30.0  # a connection with no traffic for this long is closed
MAX_CONNECTIONS = 256  # at once; beyond this, new connections are refused
HISTORY_CAP = 20_000  # refusals kept
URL_CAP = 300
REASON = "refused by the network guard: only the app's own server is reachable"
# Chromium's own service traffic (component updates, sign-in probes): not the app's doing.
BROWSER_HOSTS = ("update.googleapis.com", "content-autofill.googleapis.com", "accounts.google.com", "clients2.google.com",
                 "optimizationguide-pa.googleapis.com", "redirector.gvt1.com",
                 "safebrowsingohttpgateway.googleapis.com", "www.googleapis.com")
_HOP = {b"connection", b"keep-alive", b"proxy-connection", b"proxy-authorization", b"te",
        b"trailer", b"upgrade"}


def origin_key(origin: str) -> tuple[str, int]:
    """``http://Host:8080`` → ("host", 8080)."""
    parts = urllib.parse.urlsplit(origin if "://" in origin else f"http://{origin}")
    default = 443 if parts.scheme in ("https", "wss") else 80
    return (parts.hostname or "").lower(), parts.port or default


def _cap(text: str) -> str:
    return text if len(text) <= URL_CAP else text[: URL_CAP - 1] + "…"


class Guard:
    """The proxy; a context manager. ``url`` is what ``--proxy-server`` takes."""

    def __init__(self, allowed: Iterable[str] = (), unix_path: str | None = None) -> None:
        self.allowed = {origin_key(a) for a in allowed}
        self._lock = threading.Lock()
        self.refused: list[str] = []
        self.background = 0  # refused requests of the browser itself
        self._seen = 0
        self._open = 0
        self._listeners = [socket.create_server(("127.0.0.1", 0), backlog=128)]
        self.port = self._listeners[0].getsockname()[1]
        self.unix_path = unix_path
        if unix_path:
            unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            unix.bind(unix_path)
            os.chmod(unix_path, 0o600)
            unix.listen(128)
            self._listeners.append(unix)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, args=(s,), daemon=True,
                                          name=f"iwc-guard:{self.port}") for s in self._listeners]
        for thread in self._threads:
            thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def allow(self, origin: str) -> None:
        with self._lock:
            self.allowed.add(origin_key(origin))

    def only(self, origins: Iterable[str]) -> None:
        """From now on allow these servers and no other: a guard that outlives one app
        (the quality stage's browsers serve app after app) lets the next app reach its
        own server, never the last one's."""
        with self._lock:
            self.allowed = {origin_key(o) for o in origins}

    def __enter__(self) -> Guard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        for listener in self._listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for thread in self._threads:
            thread.join(timeout=2)
        if self.unix_path:
            with contextlib.suppress(OSError):
                os.unlink(self.unix_path)

    def drain(self) -> tuple[str, ...]:
        """Refusals since the last drain ("URL (reason)", "tunnel to host:port (reason)")."""
        with self._lock:
            fresh, self._seen = self.refused[self._seen:], len(self.refused)
        return tuple(dict.fromkeys(fresh))

    # ---- connections -------------------------------------------------------------
    def _accept(self, listener: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                full = self._open >= MAX_CONNECTIONS
                if not full:
                    self._open += 1
            if full:
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(IDLE_S)
            head, rest = _read_head(conn)
            if head is not None:
                self._handle(conn, head, rest)
        except OSError:
            pass
        except Exception:  # one bad connection must not stop the guard
            log.debug("network guard: a connection failed", exc_info=True)
        finally:
            with contextlib.suppress(OSError):
                conn.close()
            with self._lock:
                self._open -= 1

    def _handle(self, conn: socket.socket, head: bytes, rest: bytes) -> None:
        line, _, headers = head.partition(b"\r\n")
        try:
            method, target, version = line.decode("latin-1").split(" ", 2)
        except ValueError:
            conn.sendall(_status(400, "bad request"))
            return
        if method.upper() == "CONNECT":
            host, _, port = target.rpartition(":")
            key = (host.strip("[]").lower(), int(port) if port.isdigit() else 0)
            if key not in self.allowed:
                self._refuse(conn, f"tunnel to {_cap(target)}", key[0])
                return
            upstream = socket.create_connection(key, timeout=IDLE_S)
            with upstream:
                conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                _pipe(conn, upstream, rest)
            return
        parts = urllib.parse.urlsplit(target)
        if parts.scheme != "http" or not parts.hostname:
            self._refuse(conn, _cap(target), "", status=400)
            return
        key = ((parts.hostname or "").lower(), parts.port or 80)
        if key not in self.allowed:
            self._refuse(conn, _cap(target), key[0])
            return
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        kept = [h for h in headers.split(b"\r\n") if h and h.split(b":", 1)[0].strip().lower() not in _HOP]
        request = f"{method} {path} {version}\r\n".encode() + b"".join(h + b"\r\n" for h in kept) \
            + b"Connection: close\r\n\r\n"
        upstream = socket.create_connection(key, timeout=IDLE_S)
        with upstream:
            upstream.sendall(request + rest)
            response, body = _read_head(upstream)
            if response is None:
                return
            status, _, response_headers = response.partition(b"\r\n")
            kept = [h for h in response_headers.split(b"\r\n")
                    if h and h.split(b":", 1)[0].strip().lower() not in _HOP]
            conn.sendall(status + b"\r\n" + b"".join(h + b"\r\n" for h in kept)
                         + b"Connection: close\r\n\r\n" + body)
            _pipe(conn, upstream, b"")

    def _refuse(self, conn: socket.socket, what: str, host: str, status: int = 403) -> None:
        with self._lock:
            if host in BROWSER_HOSTS:
                self.background += 1
            elif len(self.refused) < HISTORY_CAP:
                self.refused.append(f"{what} ({REASON})")
        with contextlib.suppress(OSError):
            conn.sendall(_status(status, "blocked by iwc-bench"))


def _status(code: int, text: str) -> bytes:
    body = (text + "\n").encode()
    reason = {400: "Bad Request", 403: "Forbidden"}.get(code, "Error")
    return (f"HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode() + body


def _read_head(conn: socket.socket) -> tuple[bytes | None, bytes]:
    """(head without the blank line, bytes read past it); head None on EOF or junk."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_CAP:
            return None, b""
        chunk = conn.recv(16384)
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _pipe(client: socket.socket, upstream: socket.socket, pending: bytes) -> None:
    """Copy bytes both ways until either side closes or goes quiet for IDLE_S."""
    if pending:
        upstream.sendall(pending)
    with selectors.DefaultSelector() as selector:
        # each registration carries (the socket to read, the one to write): the key's
        # fileobj is typed as any file-like, the sockets are what we hold
        selector.register(client, selectors.EVENT_READ, (client, upstream))
        selector.register(upstream, selectors.EVENT_READ, (upstream, client))
        while True:
            ready = selector.select(IDLE_S)
            if not ready:
                return
            for key, _ in ready:
                source, sink = key.data
                data = source.recv(65536)
                if not data:
                    return
                sink.sendall(data)
