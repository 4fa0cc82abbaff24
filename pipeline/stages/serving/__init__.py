"""The serve stage: an app over HTTP on loopback, one port per app.

``serve(root)`` is a context manager giving a ``Served`` (its URL, port and a log of
requests); ``serve_forever(root, host, port)`` is the same server as a long-running
process (``iwc app serve``, the Kubernetes sidecar).

A static site: GET and HEAD only; files only from inside ``root`` (``..`` segments and
symlinks leading out are refused); ``/dir/`` serves ``dir/index.html``; no directory
listings; ``Cache-Control: no-store`` so every load reaches the server; single byte
ranges for media. A server build (``root`` holds contracts/servers.py's marker): the
app's own framework server runs confined on a Unix socket (launching.py) and every
request is proxied to it (proxying.py). ``serve`` raises ``ServerFailed`` (the app's
defect, with the server log's tail) when that server does not start; ``serve_forever``
then answers every request 503 with the reason and ``FAILED_HEADER``, for the explorer
(``failure_at``). A bad request gets an HTTP error, never a crashed server. It must not
build, instrument or rewrite apps, and never binds anything but the address it is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
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

from iwcbench.pipeline.contracts import servers
from iwcbench.pipeline.kits.mirror import mediatypes
from iwcbench.pipeline.stages.serving import launching, proxying

ServerFailed = launching.ServerFailed

log = logging.getLogger(__name__)
IDLE_TIMEOUT_S = 30.0  # a kept-alive connection with no request for this long is closed
MAX_LOG = 100_000  # requests kept in Served's log
FAILED_HEADER = "X-IWC-Server-Failed"  # on serve_forever's answers when the app's server did not start


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

    def do_GET(self) -> None:
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

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket],
                     client_address: object) -> None:  # socketserver's signature
        log.debug("request from %s failed", client_address, exc_info=True)


class _ProxyHandler(_Handler):
    """Every request to the app's own server (proxying.py)."""

    server: "_ProxyServer"

    def _proxy(self) -> None:
        try:
            self._forward()
        except (BrokenPipeError, ConnectionResetError, socket.timeout, http.client.HTTPException, OSError):
            self.close_connection = True  # one side went away mid-answer

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _proxy

    def _forward(self) -> None:
        if self.command == "GET" and self.path == servers.COUNTERS_PATH:
            self._counters()
            return
        try:
            body = proxying.read_body(self.headers, self.rfile)
        except proxying.BadRequest as exc:
            self._plain(exc.args[0], exc.args[1])
            return
        app = self.server.app_server
        assert app is not None  # _ProxyServer picks this handler only when it has an app server
        try:
            connection, response = proxying.forward(app.socket_path, self.command, self.path, self.headers, body)
        except (OSError, http.client.HTTPException) as exc:
            gone = "" if app.child.alive else f"; it is gone ({app.describe_exit()}): {app.tail()[-300:]}"
            self._plain(502, f"the app's server did not answer: {type(exc).__name__}: {exc}{gone}")
            return
        with contextlib.closing(connection):
            self.send_response(response.status, response.reason)
            for name, value in proxying.response_headers(response):
                self.send_header(name, value)
            self.send_header("Cache-Control", "no-store")
            length = response.getheader("Content-Length")
            body_follows = proxying.has_body(self.command, response.status)
            chunked = body_follows and length is None
            if length is not None:
                self.send_header("Content-Length", length)
            elif chunked:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if body_follows:
                proxying.stream(response, self.wfile.write, chunked)


    def _counters(self) -> None:
        """The app server's own counters (contracts/servers.py's COUNTERS_PATH)."""
        app = self.server.app_server
        assert app is not None
        body = app.counters()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class _FailedHandler(_Handler):
    """Every request answered 503 with why the app's server did not start."""

    server: "_ProxyServer"

    def _failed(self) -> None:
        self.close_connection = True
        self._plain(503, self.server.failure, {FAILED_HEADER: "1"})

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _failed


class _ProxyServer(_Server):
    def __init__(self, root: pathlib.Path, host: str, port: int, app_server: launching.AppServer | None,
                 failure: str = "") -> None:
        self.app_server, self.failure = app_server, failure
        self.root = root
        handler = _ProxyHandler if app_server is not None else _FailedHandler
        http.server.ThreadingHTTPServer.__init__(self, (host, port), handler)
        self.served = Served(root, host, self.server_address[1])


def _folder(root: pathlib.Path) -> pathlib.Path:
    folder = pathlib.Path(root).resolve(strict=True)
    if not folder.is_dir():
        raise NotADirectoryError(f"not a folder: {root}")
    return folder


def _open(root: pathlib.Path, host: str, port: int) -> _Server:
    return _Server(_folder(root), host, port)


def start_url(base: str, entry: str | None) -> str:
    """Where a user opens the app: the folder of an entry page named index.html (as a
    dev server serves it: a path router sees "/", not "/index.html"), else the page."""
    path = (entry or "index.html").lstrip("/")
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return base.rstrip("/") + "/" + path


@contextlib.contextmanager
def _running(server: _Server) -> Iterator[Served]:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              name=f"serve:{server.served.port}", daemon=True)
    thread.start()
    try:
        yield server.served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def serve(root: pathlib.Path, host: str = "127.0.0.1") -> Iterator[Served]:
    """Serve ``root`` on ``host`` at a free port until the block ends; a server build
    runs its own server for the block (``ServerFailed`` when it does not start)."""
    folder = _folder(root)
    build = launching.marker(folder)
    if build is None:
        with _running(_Server(folder, host, 0)) as served:
            yield served
        return
    app = launching.AppServer(folder, build)
    try:
        app.wait_ready()
        with _running(_ProxyServer(folder, host, 0, app)) as served:
            yield served
    finally:
        app.close()


def _start_app(folder: pathlib.Path) -> tuple[launching.AppServer | None, str]:
    """The server build's server, ready (None, "": static files; None, reason: it did not start)."""
    try:
        build = launching.marker(folder)
        if build is None:
            return None, ""
        app = launching.AppServer(folder, build)
        app.wait_ready()
        return app, ""
    except ServerFailed as exc:
        return None, str(exc)


def serve_forever(root: pathlib.Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``root`` until SIGTERM or SIGINT (the sidecar's whole life); a server build's
    server runs as long (when it does not start, every answer is a 503 saying why)."""
    folder = _folder(root)
    app, failure = _start_app(folder)
    if app is not None or failure:
        server: _Server = _ProxyServer(folder, host, port, app, failure)
    else:
        server = _Server(folder, host, port)

    def on_signal(signum: int, _frame: object) -> None:
        # shutdown() waits for serve_forever, which runs on this thread: call it elsewhere.
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    what = f"the {app.build.framework} server of {folder}" if app else folder
    print(f"serving {what} at {server.served.url}" + (f" (failed: {failure})" if failure else ""), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if app is not None:
            app.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def failure_at(url: str, timeout_s: float = 10.0) -> str | None:
    """Why the app server at ``url`` (serve_forever's) could not start the app's own
    server, or None when it serves the app."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=timeout_s)
    try:
        connection.request("GET", parts.path or "/")
        response = connection.getresponse()
        if response.getheader(FAILED_HEADER):
            return response.read(8000).decode("utf-8", "replace").strip()
        return None
    except (OSError, http.client.HTTPException):
        return None  # not ours to judge here: the explorer's load says what is wrong
    finally:
        connection.close()
