"""A server build served: the app's own server runs confined on a Unix socket and the
browser's requests reach it through our loopback port, whatever their method, headers
and body; a server that does not start, or dies, is a reason, never a hang.

The app's server here is tests/fakes/app_server.py (Python, in place of Node and
js/server.mjs): the launching, the confinement and the proxy are the real ones."""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from iwcbench.pipeline.contracts import servers
from iwcbench.pipeline.kits import confined
from iwcbench.pipeline.stages import serving
from iwcbench.pipeline.stages.serving import launching

FAKE = pathlib.Path(__file__).resolve().parents[2] / "fakes" / "app_server.py"


@pytest.fixture()
def fake_node(monkeypatch):
    monkeypatch.setenv("IWC_NODE", sys.executable)
    monkeypatch.setattr(launching, "LAUNCHER", FAKE)


def server_site(tmp_path: pathlib.Path, mode: str, memory_mib: int = 512) -> pathlib.Path:
    """A site folder holding a server build's marker, its app copy beside it."""
    app = tmp_path / "site.build" / "app"
    app.mkdir(parents=True)
    (app / "mode").write_text(mode)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("not what the server answers")
    marker = servers.ServerBuild(framework="next", app="../site.build/app", reason="it needs its server",
                                 memory_mib=memory_mib, cpu_s=60)
    (site / servers.MARKER).write_text(marker.model_dump_json())
    return site


def ask(served, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    connection = http.client.HTTPConnection(served.host, served.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection.close()


def test_every_method_reaches_the_apps_server_with_its_headers_and_body(tmp_path, fake_node):
    with serving.serve(server_site(tmp_path, "serve")) as served:
        status, _, raw = ask(served, "GET", "/?name=Ada", headers={"X-Greeter": "counter"})
        echo = json.loads(raw)
        assert status == 200 and echo["method"] == "GET" and echo["path"] == "/?name=Ada"
        assert echo["headers"]["X-Greeter"] == "counter"
        assert echo["headers"]["Host"] == f"127.0.0.1:{served.port}"  # the browser's, as a server sees it
        payload = bytes(range(256)) * 1000
        for method in ("POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
            status, _, raw = ask(served, method, "/api/echo", body=payload)
            echo = json.loads(raw)
            assert (status, echo["method"], echo["body"].encode("latin-1")) == (200, method, payload)
        assert [(r.method, r.path, r.status) for r in served.requests()][:2] == [
            ("GET", "/?name=Ada", 200), ("POST", "/api/echo", 200)]


def test_a_chunked_request_body_arrives_whole(tmp_path, fake_node):
    with serving.serve(server_site(tmp_path, "serve")) as served:
        connection = http.client.HTTPConnection(served.host, served.port, timeout=10)
        connection.request("POST", "/api/echo", body=iter([b"hello ", b"chunked ", b"world"]),
                           encode_chunked=True, headers={"Transfer-Encoding": "chunked"})
        echo = json.loads(connection.getresponse().read())
        connection.close()
    assert echo["body"] == "hello chunked world"
    assert "Transfer-Encoding" not in echo["headers"]  # hop by hop: the server gets a length


def test_the_servers_status_headers_and_streamed_body_come_back(tmp_path, fake_node):
    with serving.serve(server_site(tmp_path, "serve")) as served:
        status, headers, body = ask(served, "GET", "/teapot")
        assert (status, body) == (418, b"short and stout")
        assert ("X-Pot", "tea") in headers
        assert [v for k, v in headers if k == "Set-Cookie"] == ["a=1", "b=2"]
        assert [v for k, v in headers if k == "Cache-Control"] == ["no-store"]  # every load reaches the server
        status, headers, body = ask(served, "HEAD", "/teapot")
        assert (status, body, dict(headers)["Content-Length"]) == (418, b"", "15")
        with urllib.request.urlopen(served.url + "stream", timeout=10) as response:
            assert response.headers["Transfer-Encoding"] == "chunked"
            assert response.read() == b"<p>one</p><p>two</p><p>three</p>"


def test_the_apps_server_gets_no_secrets_and_stops_with_the_block(tmp_path, fake_node, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    site = server_site(tmp_path, "serve")
    with serving.serve(site) as served:
        echo = json.loads(ask(served, "GET", "/")[2])
        pids = _app_servers_under(os.getpid())
    assert "ANTHROPIC_API_KEY" not in echo["env"] and "AWS_SECRET_ACCESS_KEY" not in echo["env"]
    assert echo["env"]["NODE_ENV"] == "production"
    assert pathlib.Path(echo["cwd"]).resolve() == (tmp_path / "site.build" / "app").resolve()
    assert pids
    assert _all_gone(pids)


@pytest.mark.skipif(not confined.network_isolation(), reason="this machine allows no network namespace")
def test_the_apps_server_cannot_reach_our_loopback(tmp_path, fake_node):
    with socket.socket() as ours:
        ours.bind(("127.0.0.1", 0))
        ours.listen()
        with serving.serve(server_site(tmp_path, "serve")) as served:
            echo = json.loads(ask(served, "GET", f"/reach/{ours.getsockname()[1]}")[2])
    assert echo["body"].startswith("refused"), echo["body"]


def test_a_server_that_exits_before_listening_is_a_reason_with_its_log(tmp_path, fake_node):
    with pytest.raises(serving.ServerFailed) as failed:
        with serving.serve(server_site(tmp_path, "exit")):
            pytest.fail("served a server that never listened")
    text = str(failed.value)
    assert "the app's next server did not start: its server exited (exit status 3)" in text
    assert "boom: the app's server cannot start" in text


def test_a_server_that_never_listens_is_stopped_after_the_timeout(tmp_path, fake_node, monkeypatch):
    monkeypatch.setattr(launching, "START_TIMEOUT_S", 1.0)
    started = time.monotonic()
    with pytest.raises(serving.ServerFailed, match="did not listen within 1 s"):
        with serving.serve(server_site(tmp_path, "hang")):
            pass
    assert time.monotonic() - started < 10
    assert not [p for p in os.listdir("/proc") if p.isdigit() and _mentions(p, str(tmp_path))]


def test_a_server_past_its_memory_limit_is_killed(tmp_path, fake_node):
    with pytest.raises(serving.ServerFailed, match="killed for passing its memory limit"):
        with serving.serve(server_site(tmp_path, "hog", memory_mib=64)):
            pass


def test_a_server_that_dies_gets_the_browser_a_502_naming_why(tmp_path, fake_node):
    with serving.serve(server_site(tmp_path, "serve")) as served:
        ask(served, "GET", "/die")
        time.sleep(0.3)
        status, _, body = ask(served, "GET", "/")
    assert status == 502
    assert b"the app's server did not answer" in body and b"exit status 7" in body


def test_an_unreadable_marker_is_a_reason(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / servers.MARKER).write_text("{not json")
    with pytest.raises(serving.ServerFailed, match="iwc-server.json cannot be read"):
        with serving.serve(site):
            pass


def test_a_marker_whose_app_copy_is_gone_is_a_reason(tmp_path, fake_node):
    site = server_site(tmp_path, "serve")
    (tmp_path / "site.build" / "app" / "mode").unlink()
    (tmp_path / "site.build" / "app").rmdir()
    with pytest.raises(serving.ServerFailed, match="its built copy ../site.build/app is not there"):
        with serving.serve(site):
            pass


def test_a_folder_without_the_marker_is_still_served_as_files(tmp_path):
    (tmp_path / "index.html").write_text("<h1>static</h1>")
    assert launching.marker(tmp_path) is None
    with serving.serve(tmp_path) as served:
        assert ask(served, "GET", "/")[2] == b"<h1>static</h1>"


def _serve_forever(site: pathlib.Path) -> tuple[subprocess.Popen, int]:
    """``serving.serve_forever`` on ``site`` in a child process (the sidecar's life), with
    the stand-in app server for launcher, at a free port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = ("import pathlib, sys; from iwcbench.pipeline.stages import serving; "
            "from iwcbench.pipeline.stages.serving import launching; "
            f"launching.LAUNCHER = pathlib.Path({str(FAKE)!r}); "
            f"serving.serve_forever(pathlib.Path(sys.argv[1]), '127.0.0.1', {port})")
    child = subprocess.Popen([sys.executable, "-c", code, str(site)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "IWC_NODE": sys.executable})
    return child, port


def test_serve_forever_answers_503_with_the_reason_when_the_server_does_not_start(tmp_path):
    site = server_site(tmp_path, "exit")
    child, port = _serve_forever(site)
    try:
        line = child.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line and "failed" in line
        reason = serving.failure_at(f"http://127.0.0.1:{port}/")
        assert reason and "exited (exit status 3)" in reason and "boom" in reason
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=10) == 0
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()


def test_serve_forever_proxies_to_the_apps_server_until_sigterm(tmp_path):
    site = server_site(tmp_path, "serve")
    child, port = _serve_forever(site)
    try:
        assert "the next server of" in child.stdout.readline()
        assert serving.failure_at(f"http://127.0.0.1:{port}/") is None
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/echo", data=b"{}", method="POST")
        with urllib.request.urlopen(request, timeout=5) as response:
            assert json.loads(response.read())["method"] == "POST"
        servers = _app_servers_under(child.pid)
        assert servers
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=10) == 0
        assert _all_gone(servers)
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()


def _app_servers_under(root: int) -> list[int]:
    """The stand-in app servers descending from ``root``: only this test's own, never those
    another xdist worker has running at the same moment."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                parents[int(name)] = int(pathlib.Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue

    def under(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == root:
                return True
        return False
    return [p for p in parents if under(p) and _mentions(str(p), str(FAKE))]


def _all_gone(pids: list[int], within: float = 5.0) -> bool:
    """Whether every one of ``pids`` has exited (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while [p for p in pids if _alive(p)]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _mentions(pid: str, text: str) -> bool:
    try:
        return text in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status
