"""Forwarding HTTP requests to an app's own server on a Unix domain socket (a server
build, launching.py), for the serving stage's loopback port.

Every method, the request's headers and body, and the server's status, headers and body,
streamed as it comes (a server-rendered page arrives in pieces). Hop-by-hop headers stay
on their own side; ``Cache-Control: no-store`` replaces the app's, as for static files,
so every load reaches the server and its log. A server that does not answer gets the
browser a 502 naming why, never a crashed proxy. It must not start servers or read files.
"""

from __future__ import annotations

import email.message
import http.client
import io
import socket
from typing import Callable

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "transfer-encoding", "upgrade", "proxy-connection"}
UPSTREAM_TIMEOUT_S = 120.0  # one request's wait for the app's server (a slow server-side render)
MAX_BODY = 64 * 2**20  # bytes of a request body forwarded (413 past it)
CHUNK = 1 << 16


class BadRequest(ValueError):
    """The browser's request cannot be forwarded (its body); args: (status, text)."""


class UnixConnection(http.client.HTTPConnection):
    """An HTTP/1.1 connection over a Unix domain socket."""

    def __init__(self, socket_path: str, timeout: float = UPSTREAM_TIMEOUT_S) -> None:
        super().__init__("app", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def read_body(headers: email.message.Message, rfile: io.BufferedIOBase) -> bytes | None:
    """The request's body (None: it has none), chunked encoding undone."""
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        parts: list[bytes] = []
        size = 0
        while True:
            line = rfile.readline(1024)
            try:
                length = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BadRequest(400, "bad chunked body") from None
            if length == 0:
                while rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            size += length
            if size > MAX_BODY:
                raise BadRequest(413, "request body too large")
            parts.append(rfile.read(length))
            rfile.readline(8)
    raw = headers.get("Content-Length")
    if raw is None:
        return None
    try:
        length = int(raw)
    except ValueError:
        raise BadRequest(400, "bad Content-Length") from None
    if length < 0:
        raise BadRequest(400, "bad Content-Length")
    if length > MAX_BODY:
        raise BadRequest(413, "request body too large")
    return rfile.read(length)


def forward(socket_path: str, method: str, target: str, headers: email.message.Message, body: bytes | None
            ) -> tuple[UnixConnection, http.client.HTTPResponse]:
    """Send the request to the app's server; the open connection and its response
    (raises OSError or http.client.HTTPException when the server does not answer)."""
    connection = UnixConnection(socket_path)
    try:
        connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            if name.lower() not in HOP_BY_HOP and name.lower() not in ("content-length", "expect"):
                connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        return connection, connection.getresponse()
    except BaseException:
        connection.close()
        raise


def response_headers(response: http.client.HTTPResponse) -> list[tuple[str, str]]:
    """The server's headers to pass on: not hop-by-hop, not its length or caching."""
    return [(name, value) for name, value in response.getheaders()
            if name.lower() not in HOP_BY_HOP and name.lower() not in ("content-length", "cache-control")]


def has_body(method: str, status: int) -> bool:
    return method != "HEAD" and status >= 200 and status not in (204, 304)


def stream(response: http.client.HTTPResponse, write: Callable[[bytes], object], chunked: bool) -> None:
    """Copy the response body to ``write`` as it arrives (in chunked coding when asked)."""
    while chunk := response.read1(CHUNK):
        write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
    if chunked:
        write(b"0\r\n\r\n")
