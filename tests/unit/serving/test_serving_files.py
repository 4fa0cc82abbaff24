"""The app server: what a browser gets for files, folders, odd and hostile requests."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.request

import pytest

from iwcbench.pipeline.stages import serving


@pytest.fixture()
def site(tmp_path):
    root = tmp_path / "site"
    (root / "js").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "empty").mkdir()
    (root / "index.html").write_text("<h1>home</h1>")
    (root / "docs/index.html").write_text("<h1>docs</h1>")
    (root / "js/app.mjs").write_text("export const a = 1;")
    (root / "media.bin").write_bytes(bytes(range(256)) * 4)
    for name in ("a.js", "a.css", "a.json", "a.svg", "a.png", "a.jpg", "a.gif", "a.webp", "a.wasm",
                 "a.woff2", "a.ico", "a.js.map", "a.unknownext"):
        (root / name).write_bytes(b"x")
    (tmp_path / "secret.txt").write_text("top secret")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (root / "leakdir").symlink_to(tmp_path)
    (root / "alias.js").symlink_to(root / "a.js")
    return root


@pytest.fixture()
def served(site):
    with serving.serve(site) as served:
        yield served


def _get(served, path, method="GET", headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _raw(served, data: bytes) -> bytes:
    # Requests the server cannot finish reading get no answer: stop listening after 1 s.
    with socket.create_connection(("127.0.0.1", served.port), timeout=1) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def test_the_url_is_loopback_with_its_own_port(served, site):
    assert served.url == f"http://127.0.0.1:{served.port}/"
    with serving.serve(site) as other:
        assert other.port != served.port
    with urllib.request.urlopen(served.url, timeout=5) as response:
        assert response.read() == b"<h1>home</h1>"


@pytest.mark.parametrize(("path", "expected"), [
    ("/index.html", "text/html; charset=utf-8"),
    ("/a.js", "text/javascript; charset=utf-8"),
    ("/js/app.mjs", "text/javascript; charset=utf-8"),
    ("/a.css", "text/css; charset=utf-8"),
    ("/a.json", "application/json; charset=utf-8"),
    ("/a.js.map", "application/json; charset=utf-8"),
    ("/a.svg", "image/svg+xml"),
    ("/a.png", "image/png"),
    ("/a.jpg", "image/jpeg"),
    ("/a.gif", "image/gif"),
    ("/a.webp", "image/webp"),
    ("/a.wasm", "application/wasm"),
    ("/a.woff2", "font/woff2"),
    ("/a.ico", "image/x-icon"),
    ("/a.unknownext", "application/octet-stream"),
])
def test_files_come_with_their_content_type_and_no_caching(served, path, expected):
    status, headers, _ = _get(served, path)
    assert status == 200
    assert headers["Content-Type"] == expected
    assert headers["Cache-Control"] == "no-store"


def test_folders_serve_their_index_and_slashless_folders_redirect(served):
    assert _get(served, "/")[2] == b"<h1>home</h1>"
    assert _get(served, "/docs/")[2] == b"<h1>docs</h1>"
    status, headers, _ = _get(served, "/docs?x=1")
    assert (status, headers["Location"]) == (301, "/docs/?x=1")
    assert _get(served, "/empty/")[0] == 404  # no listing
    assert _get(served, "/index.html?cache=bust#frag")[2] == b"<h1>home</h1>"


def test_missing_files_are_404(served):
    assert _get(served, "/nope.js")[0] == 404
    assert _get(served, "/js/nope/deeper.js")[0] == 404


@pytest.mark.parametrize("path", [
    "/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt", "/js/%2E%2E/%2e%2e/secret.txt",
    "/..%2fsecret.txt", "/leak.txt", "/leakdir/secret.txt",
])
def test_nothing_outside_the_root_is_served(served, path):
    status, _, body = _get(served, path)
    assert status in (403, 404)
    assert b"top secret" not in body


def test_symlinks_inside_the_root_are_fine(served):
    assert _get(served, "/alias.js")[:1] == (200,)


def test_head_and_byte_ranges(served):
    status, headers, body = _get(served, "/media.bin", method="HEAD")
    assert (status, headers["Content-Length"], body) == (200, "1024", b"")
    status, headers, body = _get(served, "/media.bin", headers={"Range": "bytes=10-19"})
    assert (status, headers["Content-Range"], body) == (206, "bytes 10-19/1024", bytes(range(10, 20)))
    status, _, body = _get(served, "/media.bin", headers={"Range": "bytes=-4"})
    assert (status, body) == (206, bytes(range(252, 256)))
    assert _get(served, "/media.bin", headers={"Range": "bytes=5000-"})[0] == 416


def test_other_methods_are_refused(served):
    status, headers, _ = _get(served, "/index.html", method="POST")
    assert (status, headers["Allow"]) == (405, "GET, HEAD")


@pytest.mark.parametrize("garbage", [
    b"GARBAGE\r\n\r\n",
    b"GET /%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /a\x00b HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET " + b"/a" * 40000 + b" HTTP/1.1\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello
    b"GET / HTTP/1.1\r\nHost: x\r\n",  # never finished (the connection is closed on us)
])
def test_odd_requests_never_take_the_server_down(served, garbage):
    reply = _raw(served, garbage)
    assert not reply.startswith(b"HTTP/1.1 200") or garbage.startswith(b"GET / ")
    assert _get(served, "/index.html")[0] == 200


def test_every_request_is_logged_with_its_status(served):
    _get(served, "/index.html")
    _get(served, "/nope")
    assert [(r.path, r.status) for r in served.drain()] == [("/index.html", 200), ("/nope", 404)]
    assert served.drain() == ()
    _get(served, "/a.js")
    assert [(r.method, r.path, r.status) for r in served.requests()][-1] == ("GET", "/a.js", 200)


def test_parallel_requests_are_served(served):
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(_get(served, "/media.bin")[0]))
               for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 16


def test_leaving_the_block_frees_the_port_even_with_a_kept_alive_connection(site):
    with serving.serve(site) as served:
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        conn.request("GET", "/")
        conn.getresponse().read()  # the connection stays open (HTTP/1.1 keep-alive)
        port = served.port
    conn.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_a_missing_root_fails_at_once(tmp_path):
    with pytest.raises(OSError):
        with serving.serve(tmp_path / "nope"):
            pass


def test_serve_forever_runs_until_sigterm(site):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = ("import pathlib, sys; from iwcbench.pipeline.stages import serving; "
            f"serving.serve_forever(pathlib.Path(sys.argv[1]), '127.0.0.1', {port})")
    child = subprocess.Popen([sys.executable, "-c", code, str(site)], stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/docs/", timeout=5) as response:
            assert response.read() == b"<h1>docs</h1>"
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=10) == 0
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
