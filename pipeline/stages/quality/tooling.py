"""The quality stage's Node tools: one long-lived Node process per worker (server.mjs,
through kits/processes.Service) that runs the static tools, Lighthouse, Firefox and the
page renders (rendering.py builds those jobs).

Starting Lighthouse's Chromium, Firefox, ESLint, Stylelint and two Hunspell dictionaries
costs seconds that the work itself does not, so they start once per worker and are
reused app after app (each app gets fresh browser contexts): a ``Tools`` object holds
them, created and closed by whoever runs the quality stage (runs/local.py's worker,
``iwc app explore``); its server starts at the first job that needs it. The browsers
live under the same fence as the explorer's (docs/security.md): every connection goes
through a network guard (kits/egress.py) that lets through the current app's server
only (``Tools.admit``, which also begins the app's record of refused connections),
Chromium runs from the browser kit's launcher (kits/launching.py: no name resolution,
no UDP outside the proxy, preloading off, a network namespace where the machine allows
one) and Firefox sends everything, loopback included, to the guard with WebRTC and
speculative connections off. The server's temporary files (browser
profiles) live in one folder, removed when it stops.

A tool that is missing, overruns its deadline, crashes or answers garbage gives a
``ToolFailure`` whose text becomes the reason its metrics are unscored: our tooling's
trouble is never the app's fault and never stops the app's evaluation (an overrun
stops the server; the next app starts a fresh one). This module decides nothing about
scores.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import pathlib
import shutil
import threading
from typing import Any, Mapping, Sequence

from iwcbench.pipeline.kits import browser_events, egress, injecting, launching, processes

log = logging.getLogger(__name__)
HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "server.mjs"
PROBE = HERE / "probe.mjs"
PROBE_MAX = 400  # items the probe lists per kind (components, texts, boxes, ...)
# Every page a job opens evaluates it on each new document: a page's console is bounded
# here as in the explorer (its reports are not read: the jobs keep 50 errors at most)
QUIET = browser_events.quiet_script("tools")
FIREFOX_NAMES = ("firefox-esr", "firefox")
START_S = 30.0  # allowance for the server's first job: Node and the tools loading


@dataclasses.dataclass(frozen=True)
class ToolFailure:
    """Why a tool gave no answer (the reason its metrics are unscored)."""

    reason: str
    seconds: float = 0.0


class _Server:
    """The running part: the Node server, the guard its browsers connect through, their folder."""

    def __init__(self) -> None:
        self.folder = launching.session_folder()
        socket_path = str(self.folder / "g.sock")
        self.guard = egress.Guard((), unix_path=socket_path)
        self.chrome = str(launching.write_launcher(self.folder, socket_path, self.guard.port))
        self.chrome_args = launching.args(None, self.guard.url)
        # its browsers' HOME is the folder's too (Firefox's caches and crash reports)
        env = {**os.environ, "TMPDIR": str(self.folder), **launching.home_environment(self.folder),
               "MOZ_CRASHREPORTER_DISABLE": "1"}
        self.service = processes.Service([processes.node_binary(), str(SERVER)], cwd=str(HERE), env=env)

    def reap(self) -> None:
        """Browsers a stopped server left running (they start in groups of their own;
        their profiles are in this folder, so their command lines name it)."""
        processes.kill_mentioning(str(self.folder))

    def close(self) -> None:
        self.service.close()
        self.reap()
        self.guard.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Tools:
    """One worker's quality tools, app after app. A context manager: on exit (or
    ``close``) the server stops, its browsers go with it and its folder is removed.
    Thread-safe (``warm`` asks from a thread of its own)."""

    def __init__(self) -> None:
        self._server: _Server | None = None
        self._admitted: tuple[str, ...] = ()  # the current app's origin
        self._lock = threading.Lock()

    def __enter__(self) -> Tools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server (its browsers go with it) and remove its folder; the next
        job would start a fresh one."""
        with self._lock:
            if self._server is not None:
                self._server.close()
                self._server = None

    def _running(self) -> _Server:
        with self._lock:
            if self._server is None:
                self._server = _Server()
                self._server.guard.only(self._admitted)
            return self._server

    def admit(self, origin: str) -> None:
        """The app whose jobs come next: its server is the only one the browsers reach,
        and ``refused`` from now on speaks of it alone (what was refused before is
        dropped: it was not this app's)."""
        with self._lock:
            self._admitted = (origin,)
            if self._server is not None:
                self._server.guard.only(self._admitted)
                self._server.guard.drain()

    def refused(self) -> tuple[str, ...]:
        """What the guard refused the browsers since the app was admitted or since the
        last call ("URL (reason)")."""
        with self._lock:
            return self._server.guard.drain() if self._server is not None else ()

    def warm(self, chromium: bool, firefox: bool) -> None:
        """Start the server and the tools a coming app will use, in the background (the
        app is still being explored): the first app of a worker then does not wait for
        Node, the linters, Chromium and Firefox to start. A failure here is only logged:
        the jobs that need the tool will say why it is missing."""
        def run() -> None:
            answer = self.ask("warm", {"chromium": chromium, "firefox": firefox_path() if firefox else None}, 90.0,
                              "warming the tools")
            if isinstance(answer, ToolFailure) or answer.get("failed"):
                log.info("quality tools did not all start: %s", answer)

        with self._lock:
            if self._server is not None and self._server.service.running:
                return  # already started by an earlier app
        threading.Thread(target=run, daemon=True, name="iwc-quality-warm").start()

    def ask(self, kind: str, job: Mapping[str, Any], timeout_s: float, what: str,
            app_errors: bool = False) -> dict | ToolFailure:
        """The server's answer to one job. ``app_errors``: an ``error`` a job reports past
        its ``launch`` stage is the page's (kept in the answer), not the tool's."""
        try:
            server = self._running()
            started = not server.service.running
            line = json.dumps({"kind": kind, "tools": str(processes.node_tools_dir()), "chrome": server.chrome,
                               "chrome_args": server.chrome_args, "guard_port": server.guard.port, "quiet": QUIET,
                               **job}).encode()
            raw = server.service.request(line, timeout_s + (START_S if started else 0.0))
        except processes.ServiceFailed as failed:  # (a RuntimeError too: first)
            server.reap()
            return ToolFailure(f"{what} failed: {failed}")
        except (processes.ToolMissing, RuntimeError, OSError) as missing:
            return ToolFailure(f"{what} could not start: {missing}")
        try:
            answer = json.loads(raw.decode("utf-8", "replace"))
        except json.JSONDecodeError:
            answer = None
        if not isinstance(answer, dict):
            return ToolFailure(f"{what} gave an answer that is not JSON")
        if answer.get("error") and not (app_errors and answer.get("stage") not in (None, "launch")):
            return ToolFailure(f"{what} failed: {answer['error']}")
        return answer

    def static_tools(self, units: Sequence[dict], words: Sequence[str], timeout_s: float) -> dict | ToolFailure:
        """Lint findings, clones, comment lines, error-handling facts, unknown words."""
        return self.ask("static", {"units": list(units), "words": list(words)}, timeout_s, "the static tools (Node)")

    def lighthouse(self, url: str, cdn: Mapping[str, dict], timeout_s: float) -> dict | ToolFailure:
        """Lighthouse's three categories on ``url`` in Debian's Chromium."""
        return self.ask("lighthouse", {"url": url, "cdn": dict(cdn)}, timeout_s, "Lighthouse")

    def firefox(self, url: str, origin: str, cdn: Mapping[str, dict], width: int, height: int,
                timeout_s: float) -> dict | ToolFailure:
        """The start page in Firefox ESR: its errors and the probe's facts."""
        binary = firefox_path()
        if binary is None:
            return ToolFailure("Firefox is not installed (hack/setup installs Debian's firefox-esr)")
        return self.ask("firefox", {"firefox": binary, "url": url, "origin": origin, "cdn": dict(cdn),
                                    "probe": probe_expression(), "width": width, "height": height,
                                    "settle_ms": 500, "timeout_ms": int(timeout_s * 1000)},
                        timeout_s + 10, "Firefox", app_errors=True)


def probe_expression() -> str:
    """The probe, ready to evaluate in a page (server.mjs's jobs evaluate it as it is)."""
    return injecting.call(PROBE, {"max": PROBE_MAX})


def firefox_path() -> str | None:
    for name in FIREFOX_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None
