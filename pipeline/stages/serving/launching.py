"""Starting an app's own framework server (a server build's marker, contracts/servers.py)
as a confined, long-running child listening on a Unix domain socket.

``marker(root)`` reads the marker of a site folder (None: a static site);
``AppServer(root, build)`` starts js/server.mjs (Next.js's request handler, or the
@astrojs/node adapter's) under the build's limits (memory, CPU, an environment without
our secrets) and, where the machine allows it, in a network namespace holding only
loopback, so the app's server reaches no network; the socket sits in a fresh folder of
ours, reachable from both sides. ``wait_ready`` waits until it accepts connections or
raises ``ServerFailed`` with the server log's tail. It must not serve or proxy HTTP.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import tempfile
import time

import pydantic

from iwcbench.pipeline.contracts import servers
from iwcbench.pipeline.kits import confined, processes

LAUNCHER = pathlib.Path(__file__).resolve().parent / "js" / "server.mjs"
START_TIMEOUT_S = 60.0  # the app's server accepts connections within this, or it did not start
POLL_S = 0.1
REASON_TAIL = 1500  # characters of the server's log in a failure's reason
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS")


class ServerFailed(RuntimeError):
    """The app's own server did not start or went away: the app's defect; str() is the reason."""


def marker(root: pathlib.Path) -> servers.ServerBuild | None:
    """The server build a site folder holds, or None (static files; an unreadable marker
    raises ServerFailed: the folder is neither)."""
    path = pathlib.Path(root) / servers.MARKER
    if not path.is_file():
        return None
    try:
        return servers.ServerBuild.model_validate_json(path.read_bytes())
    except (OSError, pydantic.ValidationError) as exc:
        raise ServerFailed(f"{servers.MARKER} cannot be read: {exc}") from None


class AppServer:
    """One running app server; ``close()`` stops its whole process group and removes
    its socket folder."""

    def __init__(self, root: pathlib.Path, build: servers.ServerBuild) -> None:
        self.build = build
        self.app = (pathlib.Path(root) / build.app).resolve()
        if not self.app.is_dir():
            raise ServerFailed(f"the app's {build.framework} server did not start: its built copy "
                               f"{build.app} is not there")
        # a short path of our own: a socket's path has room for 107 bytes only, and the
        # site folder may be read-only (the cluster's app server)
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="iwc-srv-"))
        self.socket_path = str(self.folder / "app.sock")
        self.log = self.folder / "server.log"
        home = self.folder / "home"
        home.mkdir()
        env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
        env.update({"HOME": str(home), "NODE_ENV": "production", "NEXT_TELEMETRY_DISABLED": "1",
                    "ASTRO_TELEMETRY_DISABLED": "1",
                    "NODE_OPTIONS": f"--max-old-space-size={max(128, build.memory_mib * 3 // 4)}"})
        argv = [processes.node_binary(), str(LAUNCHER), build.framework, str(self.app), self.socket_path]
        if build.entry:
            argv.append(build.entry)
        limits = confined.Limits(wall_s=0, memory_bytes=build.memory_mib * 2**20, cpu_s=build.cpu_s,
                                 isolate_network=True)
        try:
            self.child = confined.start(argv, limits, log=self.log, cwd=self.app, env=env)
        except confined.CannotStart as exc:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise processes.ToolMissing(str(exc)) from exc

    @property
    def network_isolated(self) -> bool:
        return self.child.network_isolated

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Return once the socket accepts a connection within ``timeout_s`` (default
        START_TIMEOUT_S); else stop the server and raise ServerFailed."""
        timeout_s = START_TIMEOUT_S if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        while True:
            if not self.child.alive:
                raise self._failed(f"its server exited ({self.describe_exit()}) before it listened")
            if self.accepts():
                return
            if time.monotonic() >= deadline:
                raise self._failed(f"its server did not listen within {timeout_s:g} s")
            time.sleep(POLL_S)

    def accepts(self) -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            try:
                probe.connect(self.socket_path)
                return True
            except OSError:
                return False

    def counters(self, timeout_s: float = 5.0) -> bytes:
        """The server process's Istanbul counters as JSON (js/server.mjs's second
        socket), ``b"{}"`` when it cannot say."""
        chunks: list[bytes] = []
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as reader:
            reader.settimeout(timeout_s)
            try:
                reader.connect(self.socket_path + ".coverage")
                while chunk := reader.recv(1 << 16):
                    chunks.append(chunk)
            except OSError:
                return b"{}"
        return b"".join(chunks) or b"{}"

    def describe_exit(self) -> str:
        if self.child.killed_for:
            return f"killed for passing its {self.child.killed_for} limit"
        return f"exit status {self.child.returncode}"

    def tail(self) -> str:
        text = self.child.tail()
        return text if len(text) <= REASON_TAIL else "…" + text[-REASON_TAIL:]

    def _failed(self, what: str) -> ServerFailed:
        tail = self.tail()
        self.close()
        return ServerFailed(f"the app's {self.build.framework} server did not start: {what}"
                            + (f"; its log ends: {tail}" if tail else ""))

    def close(self) -> None:
        self.child.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
