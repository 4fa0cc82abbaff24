"""The quality stage's Node tools: one long-lived Node process per worker (server.mjs,
through kits/processes.Service) that runs the static tools, Lighthouse, Firefox and the
page renders (rendering.py builds those jobs).

Starting Lighthouse's Chromium, Firefox, ESLint, Stylelint and two Hunspell dictionaries
costs seconds that the work itself does not, so they start once per worker and are
reused app after app (each app gets fresh browser contexts). A tool that is missing,
overruns its deadline, crashes or answers garbage gives a ``ToolFailure`` whose text
becomes the reason its metrics are unscored: our tooling's trouble is never the app's
fault and never stops the app's evaluation (an overrun stops the server; the next app
starts a fresh one). This module decides nothing about scores.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import pathlib
import shutil
import threading
from typing import Any, Mapping, Sequence

from iwcbench.pipeline.kits import browser, processes

HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "server.mjs"
PROBE = HERE / "probe.js"
FIREFOX_NAMES = ("firefox-esr", "firefox")
START_S = 30.0  # allowance for the server's first job: Node and the tools loading

_service: processes.Service | None = None
_service_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class ToolFailure:
    """Why a tool gave no answer (the reason its metrics are unscored)."""

    reason: str
    seconds: float = 0.0


def probe_source() -> str:
    return PROBE.read_text(encoding="utf-8")


def firefox_path() -> str | None:
    for name in FIREFOX_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _server() -> processes.Service:
    global _service
    with _service_lock:
        if _service is None:
            _service = processes.Service([processes.node_binary(), str(SERVER)], cwd=str(HERE))
            atexit.register(_service.close)
        return _service


def stop() -> None:
    """Stop this process's server (its browsers go with it)."""
    with _service_lock:
        if _service is not None:
            _service.close()


def ask(kind: str, job: Mapping[str, Any], timeout_s: float, what: str, app_errors: bool = False) -> dict | ToolFailure:
    """The server's answer to one job. ``app_errors``: an ``error`` a job reports past
    its ``launch`` stage is the page's (kept in the answer), not the tool's."""
    try:
        service = _server()
        started = not service.running
        line = json.dumps({"kind": kind, "tools": str(processes.node_tools_dir()), **job}).encode()
        raw = service.request(line, timeout_s + (START_S if started else 0.0))
    except processes.ToolMissing as missing:
        return ToolFailure(f"{what} could not start: {missing}")
    except processes.ServiceFailed as failed:
        return ToolFailure(f"{what} failed: {failed}")
    try:
        answer = json.loads(raw.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict):
        return ToolFailure(f"{what} gave an answer that is not JSON")
    if answer.get("error") and not (app_errors and answer.get("stage") not in (None, "launch")):
        return ToolFailure(f"{what} failed: {answer['error']}")
    return answer


def static_tools(units: Sequence[dict], words: Sequence[str], timeout_s: float) -> dict | ToolFailure:
    """Lint findings, clones, comment lines, error-handling facts, unknown words."""
    return ask("static", {"units": list(units), "words": list(words)}, timeout_s, "the static tools (Node)")


def lighthouse(url: str, cdn: Mapping[str, dict], timeout_s: float) -> dict | ToolFailure:
    """Lighthouse's three categories on ``url`` in Debian's Chromium."""
    try:
        chrome = browser.chromium_path()
    except RuntimeError as missing:
        return ToolFailure(str(missing))
    return ask("lighthouse", {"chrome": chrome, "url": url, "cdn": dict(cdn)}, timeout_s, "Lighthouse")


def firefox(url: str, origin: str, cdn: Mapping[str, dict], width: int, height: int,
            timeout_s: float) -> dict | ToolFailure:
    """The start page in Firefox ESR: its errors and the probe's facts."""
    binary = firefox_path()
    if binary is None:
        return ToolFailure("Firefox is not installed (hack/setup installs Debian's firefox-esr)")
    return ask("firefox", {"firefox": binary, "url": url, "origin": origin, "cdn": dict(cdn),
                            "probe": probe_source(), "width": width, "height": height, "settle_ms": 500,
                            "timeout_ms": int(timeout_s * 1000)}, timeout_s + 10, "Firefox", app_errors=True)
