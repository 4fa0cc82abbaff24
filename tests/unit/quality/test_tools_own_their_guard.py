"""The quality tools are an object the worker owns: what their network guard refused
is told per app, whichever of ``admit`` and ``refused`` is called first, and closing
them leaves nothing behind."""

from __future__ import annotations

import socket

from iwcbench.pipeline.kits import egress
from iwcbench.pipeline.stages.quality import tooling

APP = "http://127.0.0.1:1"


def _refused_fetch(port: int, url: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data


def test_what_was_refused_before_an_app_is_not_that_apps():
    with tooling.Tools() as tools:
        assert tools.refused() == ()  # nothing started yet: nothing refused, and no error
        server = tools._running()  # the guard starts with the server (no Node until a job)
        assert _refused_fetch(server.guard.port, "http://example.com/before").startswith(b"HTTP/1.1 403")
        tools.admit(APP)
        assert tools.refused() == ()
        _refused_fetch(server.guard.port, "http://example.com/during")
        assert tools.refused() == (f"http://example.com/during ({egress.REASON})",)
        assert tools.refused() == ()
        folder = server.folder
    assert not folder.exists()


def test_each_tools_object_is_its_own():
    with tooling.Tools() as one, tooling.Tools() as other:
        first, second = one._running(), other._running()
        assert first.guard.port != second.guard.port and first.folder != second.folder
        _refused_fetch(first.guard.port, "http://example.com/one")
        assert other.refused() == ()
        assert one.refused() == (f"http://example.com/one ({egress.REASON})",)
