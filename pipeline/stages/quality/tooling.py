"""The quality stage's Node tools, run through kits/processes: the static tools
(static.mjs), Lighthouse (lighthouse.mjs) and Firefox (firefox.mjs).

Each call sends one JSON job on stdin and reads one JSON document from stdout. A tool
that is missing, times out, crashes or answers garbage gives a ``ToolFailure`` whose
text becomes the reason its metrics are unscored: our tooling's trouble is never the
app's fault and never stops the app's evaluation. This module decides nothing about
scores.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shutil
from typing import Any, Mapping, Sequence

from iwcbench.pipeline.kits import browser, processes

HERE = pathlib.Path(__file__).resolve().parent
STATIC = HERE / "static.mjs"
LIGHTHOUSE = HERE / "lighthouse.mjs"
FIREFOX = HERE / "firefox.mjs"
PROBE = HERE / "probe.js"
FIREFOX_NAMES = ("firefox-esr", "firefox")


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


def _node(script: pathlib.Path, job: Mapping[str, Any], timeout_s: float, what: str,
          app_errors: bool = False) -> dict | ToolFailure:
    """The script's JSON answer. ``app_errors``: an ``error`` the script reports past its
    ``launch`` stage is the page's (kept in the answer), not the tool's."""
    try:
        tools = str(processes.node_tools_dir())
        done = processes.run([processes.node_binary(), str(script)],
                             stdin=json.dumps({"tools": tools, **job}).encode(), timeout_s=timeout_s)
    except processes.ToolMissing as missing:
        return ToolFailure(f"{what} could not start: {missing}")
    if done.timed_out:
        return ToolFailure(f"{what} ran past {timeout_s:g} s and was stopped", done.duration_s)
    try:
        answer = json.loads(done.stdout.decode("utf-8", "replace") or "null")
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict):
        return ToolFailure(f"{what} failed (exit {done.returncode}): {done.stderr_tail(300) or 'no output'}",
                           done.duration_s)
    if answer.get("error") and not (app_errors and answer.get("stage") not in (None, "launch")):
        return ToolFailure(f"{what} failed: {answer['error']}", done.duration_s)
    answer.setdefault("seconds", done.duration_s)
    return answer


def static_tools(units: Sequence[dict], words: Sequence[str], timeout_s: float) -> dict | ToolFailure:
    """Lint findings, clones, comment lines, error-handling facts, unknown words."""
    return _node(STATIC, {"units": list(units), "words": list(words)}, timeout_s, "the static tools (Node)")


def lighthouse(url: str, cdn: Mapping[str, dict], timeout_s: float) -> dict | ToolFailure:
    """Lighthouse's three categories on ``url`` in Debian's Chromium."""
    try:
        chrome = browser.chromium_path()
    except RuntimeError as missing:
        return ToolFailure(str(missing))
    return _node(LIGHTHOUSE, {"chrome": chrome, "url": url, "cdn": dict(cdn),
                              "timeout_ms": int(timeout_s * 1000)}, timeout_s + 15, "Lighthouse")


def firefox(url: str, origin: str, cdn: Mapping[str, dict], width: int, height: int,
            timeout_s: float) -> dict | ToolFailure:
    """The start page in Firefox ESR: its errors and the probe's facts."""
    binary = firefox_path()
    if binary is None:
        return ToolFailure("Firefox is not installed (hack/setup installs Debian's firefox-esr)")
    return _node(FIREFOX, {"firefox": binary, "url": url, "origin": origin, "cdn": dict(cdn),
                           "probe": probe_source(), "width": width, "height": height, "settle_ms": 500,
                           "timeout_ms": int(timeout_s * 1000)}, timeout_s + 15, "Firefox", app_errors=True)
