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

The server is held to a memory cap, so that hundreds of apps do not grow it without
bound: Node's heap to HEAP_CAP_MIB (a job that needs more fails as a crash does), and,
between apps (``Tools.app_done``, never while an app's jobs run), the resident memory of
its whole process tree — Node, Lighthouse's Chromium, Firefox — past TREE_CAP_MIB stops
it, logged; the next app's jobs start a fresh one, as after an overrun.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import pathlib
import shutil
import threading
from typing import Any, Callable, Mapping, Sequence

from iwcbench.pipeline.kits import browser_events, egress, injecting, inspecting, launching, processes

log = logging.getLogger(__name__)
HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "server.mjs"
# Every page a job opens evaluates it on each new document: a page's console is bounded
# here as in the explorer (its reports are not read: the jobs keep 50 errors at most)
QUIET = browser_events.quiet_script("tools")
FIREFOX_NAMES = ("firefox-esr", "firefox")
START_S = 30.0  # allowance for the server's first job: Node and the tools loading
# The memory cap (see above), MiB of RSS, which counts the pages a tree's processes share
# once per process, as top does. A fresh server holds about 1.4 GiB (Node with the linters
# and a dictionary 0.2, Chromium 0.75, Firefox 0.5), 1.5-1.6 GiB after each of the
# example's apps; past 2 GiB it has grown, and its restart, in the background while the
# next app is explored (``warm``), costs that app nothing but a core for a few seconds.
TREE_CAP_MIB = 2048
# node --max-old-space-size, MiB: a server's whole RSS stayed under 600 MiB in
# hack/bench-hostile, so a heap of 1 GiB is never reached but by a runaway job
HEAP_CAP_MIB = 1024
# Lighthouse's Chromium runs headless: the omnibox popup its browser UI preloads (a
# WebUI renderer of its own, 0.15 GiB of RSS) is never shown. (Puppeteer merges these
# features with its own; a page cannot tell.)
CHROME_ARGS = ("--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",)


@dataclasses.dataclass(frozen=True)
class ToolFailure:
    """Why a tool gave no answer (the reason its metrics are unscored)."""

    reason: str
    seconds: float = 0.0


@dataclasses.dataclass(frozen=True)
class Job:
    """One job for the server: its kind, its fields, how long it may take, what it is
    called in a failure's reason, whether an ``error`` past its launch is the page's."""

    kind: str
    fields: Mapping[str, Any]
    timeout_s: float
    what: str
    app_errors: bool = False


class _Server:
    """The running part: the Node server, the guard its browsers connect through, their folder."""

    def __init__(self) -> None:
        self.folder = launching.session_folder()
        socket_path = str(self.folder / "g.sock")
        self.guard = egress.Guard((), unix_path=socket_path)
        self.chrome = str(launching.write_launcher(self.folder, socket_path, self.guard.port))
        self.chrome_args = launching.args(None, self.guard.url) + list(CHROME_ARGS)
        # its browsers' HOME is the folder's too (Firefox's caches and crash reports)
        env = {**os.environ, "TMPDIR": str(self.folder), **launching.home_environment(self.folder),
               "MOZ_CRASHREPORTER_DISABLE": "1"}
        self.service = processes.Service([processes.node_binary(), f"--max-old-space-size={HEAP_CAP_MIB}", str(SERVER)],
                                         cwd=str(HERE), env=env)

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

    def __init__(self, cap_mib: int = TREE_CAP_MIB) -> None:
        self._server: _Server | None = None
        self._admitted: tuple[str, ...] = ()  # the current app's origin
        self._lock = threading.Lock()
        self.cap_mib = cap_mib  # TREE_CAP_MIB, unless a test asks for another
        self.restarts = 0  # servers stopped by app_done for holding more than the cap

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

    def app_done(self) -> None:
        """An app's jobs are over: when the server's process tree (Node and its
        browsers) holds more than ``cap_mib`` of resident memory, it is stopped, and the
        next app's jobs (or ``warm``) start a fresh one."""
        with self._lock:
            pid = self._server.service.pid if self._server is not None else None
        if pid is None:
            return
        held = processes.resident_bytes(processes.tree(pid)) // 2**20
        if held > self.cap_mib:
            log.info("quality tools restarted before the next app: their processes held %d MiB of RSS, "
                     "past the cap of %d MiB", held, self.cap_mib)
            self.restarts += 1
            self.close()

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
        return self.run(Job(kind, job, timeout_s, what, app_errors))

    def run(self, job: Job) -> dict | ToolFailure:
        """The server's answer to one job (see ``ask``)."""
        raw = self._request(lambda server: self._fields(server, job), job.timeout_s, job.what)
        return raw if isinstance(raw, ToolFailure) else _checked(_parsed(raw), job)

    def together(self, jobs: Sequence[Job]) -> list[dict | ToolFailure]:
        """The answers to ``jobs``, run side by side by the server (each within its
        own timeout), one of each kind (a tool's module holds one job's state at a
        time). When one overran, the server is stopped afterwards (what overran may
        still be running; the next job starts a fresh one)."""
        if len({job.kind for job in jobs}) != len(jobs):
            raise ValueError("Tools.together runs one job of each kind")
        if not jobs:
            return []
        raw = self._request(lambda server: {"kind": "together", "jobs": [
            {**self._fields(server, job), "limit_ms": int(job.timeout_s * 1000)} for job in jobs]},
            max(job.timeout_s for job in jobs) + 5.0, " and ".join(job.what for job in jobs))
        if isinstance(raw, ToolFailure):
            return [raw] * len(jobs)
        answer = _parsed(raw)
        answers = answer.get("answers") if isinstance(answer, dict) else None
        if not isinstance(answers, list) or len(answers) != len(jobs):
            return [ToolFailure(f"{job.what} gave an answer that is not JSON") for job in jobs]
        if answer.get("overran"):
            self.close()
        seconds = answer.get("seconds") or [0.0] * len(jobs)
        out = []
        for job, one, took in zip(jobs, answers, seconds):
            checked = _checked(one, job)
            out.append(checked if isinstance(checked, ToolFailure) else {**checked, "_seconds": took})
        return out

    @staticmethod
    def _fields(server: _Server, job: Job) -> dict:
        return {"kind": job.kind, "tools": str(processes.node_tools_dir()), "chrome": server.chrome,
                "chrome_args": server.chrome_args, "guard_port": server.guard.port, "quiet": QUIET, **job.fields}

    def _request(self, line: Callable[[_Server], dict], timeout_s: float, what: str) -> bytes | ToolFailure:
        """One line to the server, its raw answer (the server's start is allowed for)."""
        try:
            server = self._running()
            started = not server.service.running
            return server.service.request(json.dumps(line(server)).encode(), timeout_s + (START_S if started else 0.0))
        except processes.ServiceFailed as failed:  # (a RuntimeError too: first)
            server.reap()
            return ToolFailure(f"{what} failed: {failed}")
        except (processes.ToolMissing, RuntimeError, OSError) as missing:
            return ToolFailure(f"{what} could not start: {missing}")

    def static_tools(self, units: Sequence[dict], words: Sequence[str], timeout_s: float) -> dict | ToolFailure:
        """Lint findings, clones, comment lines, error-handling facts, unknown words."""
        return self.run(static_job(units, words, timeout_s))

    def lighthouse(self, url: str, cdn: Mapping[str, dict], timeout_s: float) -> dict | ToolFailure:
        """Lighthouse's three categories on ``url`` in Debian's Chromium; or, when it has
        not finished HUNG_CHECK_S before ``timeout_s`` and the page's main thread no longer
        answers, ``{"hung": reason}`` (the server is then started afresh for the next app:
        the abandoned run may still hold the browser)."""
        limit_ms = int((timeout_s - HUNG_CHECK_S) * 1000) if timeout_s > 2 * HUNG_CHECK_S else None
        answer = self.ask("lighthouse", {"url": url, "cdn": dict(cdn), "limit_ms": limit_ms}, timeout_s, "Lighthouse")
        if isinstance(answer, dict) and answer.get("hung"):
            self.close()
        return answer

    def firefox(self, url: str, origin: str, cdn: Mapping[str, dict], width: int, height: int,
                timeout_s: float) -> dict | ToolFailure:
        """The start page in Firefox ESR: its errors and the probe's facts."""
        job = firefox_job(url, origin, cdn, width, height, timeout_s)
        return job if isinstance(job, ToolFailure) else self.run(job)


def static_job(units: Sequence[dict], words: Sequence[str], timeout_s: float) -> Job:
    """Lint findings, clones, comment lines, error-handling facts, unknown words."""
    return Job("static", {"units": list(units), "words": list(words)}, timeout_s, "the static tools (Node)")


# Seconds kept, before a Lighthouse run's limit, for asking whether the page hung
# (chromium.mjs's hung: two 2 s questions)
HUNG_CHECK_S = 6.0

# How long a live load waits after the load event before it is probed: Firefox's, and
# the Chromium load it is compared with (rendering.desktop_job).
SETTLE_MS = 500


def firefox_job(url: str, origin: str, cdn: Mapping[str, dict], width: int, height: int,
                timeout_s: float) -> Job | ToolFailure:
    """The start page in Firefox ESR: its errors and the probe's facts."""
    binary = firefox_path()
    if binary is None:
        return ToolFailure("Firefox is not installed (hack/setup installs Debian's firefox-esr)")
    return Job("firefox", {"firefox": binary, "url": url, "origin": origin, "cdn": dict(cdn),
                           "probe": probe_expression(), "width": width, "height": height,
                           "settle_ms": SETTLE_MS, "timeout_ms": int(timeout_s * 1000)},
               timeout_s + 10, "Firefox", app_errors=True)


def _parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        return None


def _checked(answer: Any, job: Job) -> dict | ToolFailure:
    """A job's answer, or why it is none: not JSON, or an error of the tool's own (not
    the page's: a page that hung the load, or, with ``app_errors``, past the launch)."""
    if not isinstance(answer, dict):
        return ToolFailure(f"{job.what} gave an answer that is not JSON")
    # a load that hung the page (chromium.mjs's hung) is the page's doing: the answer says so
    if answer.get("error") and not answer.get("hung") and not (
            job.app_errors and answer.get("stage") not in (None, "launch")):
        return ToolFailure(f"{job.what} failed: {answer['error']}")
    return answer


def probe_expression() -> str:
    """The probe, ready to evaluate in a page (server.mjs's jobs evaluate it as it is)."""
    return injecting.call(inspecting.PROBE_SCRIPT, {"max": inspecting.PROBE_MAX})


def firefox_path() -> str | None:
    for name in FIREFOX_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None
