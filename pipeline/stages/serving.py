"""The serve stage: an app's static files over HTTP on loopback, one port per app.

``serve(root)`` is a context manager giving a ``Served`` (its URL, port and a log of
requests); ``serve_forever(root, host, port)`` is the same server as a long-running
process (``iwc app serve``, the Kubernetes sidecar). GET and HEAD only; files only
from inside ``root`` (``..`` segments and symlinks leading out are refused);
``/dir/`` serves ``dir/index.html``; no directory listings; ``Cache-Control:
no-store`` so every load reaches the server; single byte ranges for media. A bad
request gets an HTTP error, never a crashed server. It must not build, instrument or
rewrite apps, and never binds anything but the address it is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import logging
import os
import pathlib
import re
import signal
import socket
import threading
import urllib.parse
from typing import Iterator

from iwcbench.pipeline.kits.mirror import mediatypes

log = logging.getLogger(__name__)
IDLE_TIMEOUT_S = 30.0  # a kept-alive connection with no request for this long is closed
MAX_LOG = 100_000  # requests kept in Served's log


@dataclasses.dataclass(frozen=True)
class Request:
    method: str
    path: str  # as the client sent it (query included)
    status: int


class Served:
    """A running server: ``url`` ends with ``/``; ``requests()`` reads the log and
    ``drain()`` takes what was logged since the last drain. Thread-safe."""

    def __init__(self, root: pathlib.Path, host: str, port: int) -> None:
        self.root = root
        self.host = host
        self.port = port
        self.url = f"http://{host}:{port}/"
        self._lock = threading.Lock()
        self._log: list[Request] = []
        self._drained = 0

    def record(self, request: Request) -> None:
        with self._lock:
            if len(self._log) < MAX_LOG:
                self._log.append(request)

    def requests(self) -> tuple[Request, ...]:
        with self._lock:
            return tuple(self._log)

    def drain(self) -> tuple[Request, ...]:
        with self._lock:
            fresh, self._drained = tuple(self._log[self._drained:]), len(self._log)
            return fresh


class _Handler(http.server.BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"  # keep-alive: Chromium opens fewer connections
    timeout = IDLE_TIMEOUT_S
    server_version = "iwc-bench"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib's name
        log.debug("%s " + format, self.address_string(), *args)

    def send_response(self, code: int, message: str | None = None) -> None:
        self.server.served.record(Request(self.command or "?", self.path or "", code))
        super().send_response(code, message)

    def _plain(self, status: int, text: str, extra: dict[str, str] | None = None) -> None:
        body = (text + "\n").encode()
        if status >= 400:
            self.close_connection = True  # after an error, start clean
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The stdlib's HTML error page, without echoing the request back.
        try:
            self._plain(code, message or self.responses.get(code, ("error",))[0])
        except OSError:
            pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib's name
        try:
            self._serve()
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True  # the browser went away mid-answer

    do_HEAD = do_GET

    def _method_not_allowed(self) -> None:
        self.close_connection = True
        self._plain(405, "method not allowed", {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed

    def _target(self) -> tuple[pathlib.Path | None, int, str]:
        """(file, status, redirect location). status != 200: no file."""
        raw_path = urllib.parse.urlsplit(self.path).path
        path = urllib.parse.unquote(raw_path, errors="strict")
        if "\0" in path or "\\" in path or not path.startswith("/"):
            return None, 400, ""
        segments = [s for s in path.split("/") if s not in ("", ".")]
        if ".." in segments:
            return None, 403, ""
        root = self.server.root
        target = root.joinpath(*segments)
        try:
            real = target.resolve(strict=True)
        except (OSError, RuntimeError):
            return None, 404, ""
        if not real.is_relative_to(root):
            return None, 403, ""  # a symlink leading out of the app
        if real.is_dir():
            if not raw_path.endswith("/"):
                query = urllib.parse.urlsplit(self.path).query
                return None, 301, raw_path + "/" + (f"?{query}" if query else "")
            index = (real / "index.html").resolve()
            if not index.is_file() or not index.is_relative_to(root):
                return None, 404, ""
            return index, 200, ""
        if not real.is_file():
            return None, 404, ""
        return real, 200, ""

    def _serve(self) -> None:
        try:
            file, status, location = self._target()
        except (UnicodeDecodeError, ValueError):
            file, status, location = None, 400, ""
        if status == 301:
            self._plain(301, "moved", {"Location": location})
            return
        if file is None:
            self._plain(status, {400: "bad request", 403: "forbidden"}.get(status, "not found"))
            return
        try:
            handle = open(file, "rb")
        except OSError:
            self._plain(404, "not found")
            return
        with handle:
            size = os.fstat(handle.fileno()).st_size
            start, end = 0, size - 1
            ranged = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "").strip())
            if ranged and (ranged[1] or ranged[2]):
                if ranged[1]:
                    start, end = int(ranged[1]), min(int(ranged[2] or size - 1), size - 1)
                else:
                    start = max(0, size - int(ranged[2]))
                if start > end or start >= size:
                    self._plain(416, "range not satisfiable", {"Content-Range": f"bytes */{size}"})
                    return
            length = max(0, end - start + 1)
            self.send_response(206 if ranged and (ranged[1] or ranged[2]) else 200)
            self.send_header("Content-Type", mediatypes.content_type(file.name))
            self.send_header("Content-Length", str(length))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Accept-Ranges", "bytes")
            if length != size:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.end_headers()
            if self.command == "HEAD":
                return
            handle.seek(start)
            remaining = length
            while remaining > 0:
                chunk = handle.read(min(1 << 16, remaining))
                if not chunk:
                    break
                self.wfile.write(chunk)
                remaining -= len(chunk)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # kept-alive browser connections must not hold up shutdown
    allow_reuse_address = False  # an explicit port is ours alone (port 0 always is)

    def __init__(self, root: pathlib.Path, host: str, port: int) -> None:
        self.root = root
        super().__init__((host, port), _Handler)
        self.served = Served(root, host, self.server_address[1])

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001 - stdlib's signature
        log.debug("request from %s failed", client_address, exc_info=True)


def _open(root: pathlib.Path, host: str, port: int) -> _Server:
    folder = pathlib.Path(root).resolve(strict=True)
    if not folder.is_dir():
        raise NotADirectoryError(f"not a folder: {root}")
    return _Server(folder, host, port)


def start_url(base: str, entry: str | None) -> str:
    """Where a user opens the app: the folder of an entry page named index.html (as a
    dev server serves it: a path router sees "/", not "/index.html"), else the page."""
    path = (entry or "index.html").lstrip("/")
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return base.rstrip("/") + "/" + path


@contextlib.contextmanager
def serve(root: pathlib.Path, host: str = "127.0.0.1") -> Iterator[Served]:
    """Serve ``root`` on ``host`` at a free port until the block ends."""
    server = _open(root, host, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              name=f"serve:{server.served.port}", daemon=True)
    thread.start()
    try:
        yield server.served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def serve_forever(root: pathlib.Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``root`` until SIGTERM or SIGINT (the sidecar's whole life)."""
    server = _open(root, host, port)

    def on_signal(signum: int, _frame: object) -> None:
        # shutdown() waits for serve_forever, which runs on this thread: call it elsewhere.
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    print(f"serving {server.root} at {server.served.url}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
