"""The quality stage's page work, done in the Node server's Chromium (render.mjs):
stored states rendered again, and the start page on a phone.

* States: the probe (kits/page/probe.mjs) reads components, icons, text, media and
  boxes of each chosen state at 1280×800. The explorer probed its live page beside
  each new DOM snapshot (artifacts.PROBES), as on the page seen from its top: those
  facts are used as they are, nothing is loaded again. A state without them (scrolled
  with a fixed or sticky box, the explorer's viewport was another, evidence of an
  older run) has its
  DOM snapshot shown again at its own address in a 1280×800 page with JavaScript off
  (stylesheets, fonts and images load under the sandbox's rules), then probed.
  Nothing the app does at runtime runs again, so such a state costs a render, not a
  replay.
* Phone: the start page loaded live at 375×667 with touch (the viewport meta tag
  applies), probed, with every request it made and what answered it.
* Desktop: the start page loaded live at 1280×800 as Firefox loads it (the same wait
  after the load event, the same probe): the Chromium side of cross-browser, like
  against like.

It must not score anything; trouble is recorded in ``Rendered.problems``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Callable, Mapping

from iwcbench.pipeline.contracts import artifacts, evidence
from iwcbench.pipeline.stages.quality import tooling

DESKTOP = (1280, 800)
PHONE = (375, 667)
CRASH = "S_crash"
RENDER_TIMEOUT_S = 8.0  # per state
MAX_SNAPSHOT_BYTES = 2_000_000
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>.*?</noscript\s*>", re.IGNORECASE | re.DOTALL)


@dataclasses.dataclass
class Rendered:
    states: dict[str, dict] = dataclasses.field(default_factory=dict)  # state id → probe facts
    reused: list[str] = dataclasses.field(default_factory=list)  # the states whose facts the explorer stored
    phone: dict | None = None
    phone_requests: list[tuple[str, int | None, str | None]] = dataclasses.field(default_factory=list)
    phone_errors: list[str] = dataclasses.field(default_factory=list)
    phone_hung: str | None = None  # why the page's main thread stopped answering on the phone
    desktop: dict | None = None  # the live desktop load's probe facts
    desktop_errors: list[str] = dataclasses.field(default_factory=list)
    problems: dict[str, str] = dataclasses.field(default_factory=dict)  # "states" | "phone" | "desktop" → why


def chosen_states(graph: evidence.StateGraph | None, limit: int, initial: bool = False) -> list[evidence.StateNode]:
    """The first ``limit`` states in visiting order that have a DOM snapshot; with
    ``initial``, the start state alone (the page as loaded: step 0's), or none."""
    if graph is None:
        return []
    if initial:
        return [n for n in graph.nodes[:1] if n.id != CRASH and n.dom and n.steps and n.steps[0] == 0]
    return [n for n in graph.nodes if n.id != CRASH and n.dom][:limit]


def _job(origin: str, cdn: Mapping[str, dict]) -> dict:
    return {"origin": origin, "cdn": dict(cdn), "probe": tooling.probe_expression()}


def probes_wanted(max_states: int, viewport: tuple[int, int], initial: bool = False) -> int:
    """How many of an exploration's new DOM snapshots to probe in the live page: none
    when its viewport is not the one states are measured at; with ``initial``, the
    first (the page as loaded); else enough that the first ``max_states`` states most
    likely have theirs (a state is often seen in a few snapshots that differ only in
    what the normal form folds)."""
    if tuple(viewport) != DESKTOP:
        return 0
    return 1 if initial else 4 * max_states


def stored_facts(read: Callable[[str], bytes | None], node: evidence.StateNode) -> dict | None:
    """The probe's facts the explorer stored beside the state's DOM snapshot, when
    they were taken at 1280×800; else None."""
    data = read(artifacts.probe_of(node.dom)) if node.dom else None
    try:
        facts = json.loads(data) if data else None
    except ValueError:
        return None
    if not isinstance(facts, dict) or tuple(facts.get("viewport") or ()) != DESKTOP:
        return None
    return facts


def render_states(tools: tooling.Tools, nodes: list[evidence.StateNode], read: Callable[[str], bytes | None],
                  origin: str, cdn: Mapping[str, dict], out: Rendered, timeout_s: float) -> None:
    """The chosen states' probe facts into ``out.states``: the explorer's where it
    stored them, a render of the DOM snapshot for the others."""
    states = []
    for node in nodes:
        facts = stored_facts(read, node)
        if facts is not None:
            out.states[node.id] = facts
            out.reused.append(node.id)
            continue
        data = read(node.dom or "")
        if data:
            # shown with JavaScript off, a <noscript> would appear: the explorer never saw it
            html = _NOSCRIPT.sub("", data[:MAX_SNAPSHOT_BYTES].decode("utf-8", "replace"))
            states.append({"id": node.id, "url": node.url, "html": html})
    if not states:
        return
    job = {**_job(origin, cdn), "states": states, "width": DESKTOP[0], "height": DESKTOP[1],
           "timeout_ms": int(RENDER_TIMEOUT_S * 1000)}
    answer = tools.ask("states", job, min(timeout_s, RENDER_TIMEOUT_S * len(states) + 10), "the state renders")
    if isinstance(answer, tooling.ToolFailure):
        out.problems["states"] = answer.reason
        return
    rendered = answer.get("states") or {}
    # in the chosen states' order, as the metrics see them
    # (a stored state's facts are never empty: they hold at least their viewport)
    out.states = {n.id: out.states[n.id] if n.id in out.states else rendered[n.id] for n in nodes
                  if n.id in out.states or n.id in rendered}
    if answer.get("problems"):
        first = next(iter(answer["problems"].items()))
        out.problems["states"] = f"{len(answer['problems'])} state(s) did not render, e.g. {first[0]}: {first[1]}"


def load_phone(tools: tooling.Tools, url: str, origin: str, cdn: Mapping[str, dict], out: Rendered,
               load_timeout_s: float, seconds: float | None = None) -> None:
    """The start page on the phone viewport. ``seconds``: the whole job's limit (the
    load's, plus up to 10 s for the probe and the screenshot), when less is left."""
    take_phone(tools.run(phone_job(url, origin, cdn, load_timeout_s, seconds)), out)


def phone_job(url: str, origin: str, cdn: Mapping[str, dict], load_timeout_s: float,
              seconds: float | None = None) -> tooling.Job:
    """The phone load as a job (see ``load_phone``; ``take_phone`` reads its answer)."""
    total = load_timeout_s + 10 if seconds is None else min(seconds, load_timeout_s + 10)
    job = {**_job(origin, cdn), "url": url, "width": PHONE[0], "height": PHONE[1], "settle_ms": 400,
           "timeout_ms": int(max(1.0, total - min(10.0, total / 3)) * 1000)}
    return tooling.Job("phone", job, total, "the phone load")


def take_phone(answer: dict | tooling.ToolFailure, out: Rendered) -> None:
    """What the phone load found, into ``out`` (trouble in ``out.problems["phone"]``)."""
    answer = _answer(answer, out, "phone", "on the phone viewport")
    if not answer:
        return
    if not answer.get("error") and (answer.get("status") or 200) >= 400:
        out.problems["phone"] = f"HTTP {answer['status']} for the start page on the phone viewport"
    out.phone = answer.get("probe")
    out.phone_hung = answer.get("hung")
    out.phone_requests = [tuple(r) for r in answer.get("requests") or []]
    out.phone_errors = list(answer.get("errors") or [])


def desktop_job(url: str, origin: str, cdn: Mapping[str, dict], timeout_s: float) -> tooling.Job:
    """The start page loaded live at 1280×800 as Firefox loads it (``take_desktop`` reads
    the answer); ``timeout_s``: the load's, as Firefox's job is given."""
    job = {**_job(origin, cdn), "url": url, "width": DESKTOP[0], "height": DESKTOP[1],
           "settle_ms": tooling.SETTLE_MS, "timeout_ms": int(timeout_s * 1000)}
    return tooling.Job("desktop", job, timeout_s + 10, "the live desktop load")


def take_desktop(answer: dict | tooling.ToolFailure, out: Rendered) -> None:
    """What the live desktop load found, into ``out`` (trouble in ``out.problems["desktop"]``)."""
    answer = _answer(answer, out, "desktop", "live in Chromium")
    out.desktop = answer.get("probe")
    out.desktop_errors = list(answer.get("errors") or [])


def _answer(answer: dict | tooling.ToolFailure, out: Rendered, key: str, where: str) -> dict:
    """A live load's answer ({} when the tool failed); its trouble in ``out.problems[key]``."""
    if isinstance(answer, tooling.ToolFailure):
        out.problems[key] = answer.reason
        return {}
    if answer.get("error"):
        out.problems[key] = f"the start page did not load {where}: {answer['error']}"
    return answer
