"""The network guard as a proxy client sees it: the app's server is reachable (plain
requests and tunnels), everything else gets 403 and is recorded, the browser's own
service traffic is counted apart."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from iwcbench.pipeline.kits import egress


class _Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - stdlib's name
        body = f"hello {self.path} {self.headers.get('Connection')}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture()
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _ask(guard: egress.Guard, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", guard.port), timeout=5) as conn:
        conn.sendall(raw)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data


def test_the_allowed_server_answers_through_the_guard(server):
    with egress.Guard([server]) as guard:
        reply = _ask(guard, f"GET {server}/page?x=1 HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.0 200") or reply.startswith(b"HTTP/1.1 200")
    assert reply.endswith(b"hello /page?x=1 close")  # origin-form, and the connection closes
    assert b"Connection: close" in reply
    assert guard.drain() == ()


def test_other_servers_are_refused_and_recorded(server):
    other = "http://127.0.0.1:9/secret"
    with egress.Guard([server]) as guard:
        reply = _ask(guard, f"POST {other} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".encode())
        tunnel = _ask(guard, b"CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
        outside = _ask(guard, b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
        first = guard.drain()
        assert guard.drain() == ()
    assert reply.startswith(b"HTTP/1.1 403") and tunnel.startswith(b"HTTP/1.1 403") and outside.startswith(b"HTTP/1.1 403")
    assert first == (f"{other} ({egress.REASON})", f"tunnel to 127.0.0.1:9 ({egress.REASON})",
                     f"http://example.com/ ({egress.REASON})")


def test_a_tunnel_to_the_allowed_server_carries_bytes_both_ways(server):
    with egress.Guard([server]) as guard:
        host = server.split("//")[1]
        with socket.create_connection(("127.0.0.1", guard.port), timeout=5) as conn:
            conn.sendall(f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            assert conn.recv(1024).startswith(b"HTTP/1.1 200")
            conn.sendall(b"GET /tunneled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
    assert data.endswith(b"hello /tunneled close")


def test_the_browsers_own_service_requests_are_counted_not_listed():
    with egress.Guard([]) as guard:
        _ask(guard, b"CONNECT update.googleapis.com:443 HTTP/1.1\r\n\r\n")
    assert guard.drain() == () and guard.background == 1


def test_junk_is_answered_not_fatal(server):
    with egress.Guard([server]) as guard:
        assert _ask(guard, b"\x00\x01\x02 nonsense\r\n\r\n").startswith(b"HTTP/1.1 40")
        assert _ask(guard, f"GET {server}/ok HTTP/1.1\r\n\r\n".encode()).endswith(b"hello /ok close")
