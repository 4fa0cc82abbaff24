"""WebGen-Bench's evaluator, as data: verdicts of UI test cases, their evidence, replays.

Stored per app under ``apps/<model>/<task_id>/``:

    uitests.json            UITestReport: every test case with its verdict (or the
                            reason it is unscored), justification, cited steps and
                            screenshots
    uitests/NN/trace.json   the GUI agent's trace of test case NN (NN = index + 1)
    uitests/NN/shots/…      its screenshots, dom/… its DOM snapshots

and per run under ``replays/<task_id>/<key>.json``: the Replay of a passing test case,
``key`` = ``replay_key(app hash, test text, agent model)``.

Pure data: no I/O. ``read_text_verdict`` reads a verdict written as text (an agent
that answered without its verdict tool) — the one parsing rule, kept beside the record
it fills.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal, Sequence, get_args

import pydantic

from iwcbench.pipeline.contracts import base

Verdict = Literal["YES", "PARTIAL", "NO"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
# WebGen-Bench's credit per verdict: a partly working feature counts half.
CREDIT: dict[str, float] = {"YES": 1.0, "PARTIAL": 0.5, "NO": 0.0}


def instruction_verdict(verdicts: Sequence[str | None]) -> str | None:
    """One instruction from its cases' verdicts (None: one of them is unscored)."""
    if not verdicts or any(v is None for v in verdicts):
        return None
    if all(v == "YES" for v in verdicts):
        return "YES"
    if any(v in ("YES", "PARTIAL") for v in verdicts):
        return "PARTIAL"
    return "NO"


# Where a case's verdict came from; ``page_failed``: NO, the page did not load for the case
# (the agent was not asked; counted apart in the Accuracy table).
Source = Literal["agent", "replay", "page_failed", "none"]
NEEDS_LLM = "unscored: needs an LLM"


class AgentVerdict(base.Model):
    """What the GUI agent concluded about one test case."""

    verdict: Verdict
    justification: str = pydantic.Field(min_length=1, max_length=4000)
    evidence_steps: tuple[int, ...] = ()  # steps whose result shows it (0: the page as loaded)


class CaseResult(base.Model):
    """One UI test case of one app: the verdict with its evidence, or None with the
    reason. Keys (``trace``, ``screenshots``) are relative to the app's prefix."""

    index: int  # position in the task's ui_tests
    task: str
    expected_result: str
    category: str | None = None
    verdict: Verdict | None
    reason: str  # how the verdict was reached, or why there is none
    source: Source = "none"
    justification: str = ""
    evidence_steps: tuple[int, ...] = ()
    screenshots: tuple[str, ...] = ()  # the screenshots of the cited steps
    steps: int = 0  # actions taken (the load not counted), failed ones included
    stop_reason: str = ""
    trace: str | None = None
    replay: str | None = None  # store key of the replay recorded, or the one that decided
    duration_s: float = 0.0
    llm_calls: int = 0
    reasks: int = 0  # replies that could not be used and were asked again
    problems: tuple[str, ...] = ()  # what was wrong with those replies


class UITestReport(base.Stored):
    """``uitests.json``: WebGen-Bench's UI test cases run on one app."""

    model: str
    task_id: str
    agent_model: str | None = None  # None: no LLM was available
    app_hash: str | None = None  # sha256 of the served files (replay_key's app part)
    max_steps: int = 15
    cases: tuple[CaseResult, ...] = ()
    duration_s: float = 0.0


class ReplayStep(base.Model):
    """One action of a replay, with what identifies its element on a page: role and
    accessible name first, then the text of the item it sits in, then the CSS selector
    it had when it was recorded. Kinds without an element (scroll, back, wait, key
    without focus) have no target."""

    kind: str
    value: str | None = None
    role: str | None = None
    name: str | None = None
    context: str | None = None
    selector: str | None = None
    target: str | None = None  # how a person would name it: button "Add"


class ReplayEnd(base.Model):
    """The state a replay must reach: the DOM normal form's digest (abstracting) and
    the text lines the test made appear (accessibility-tree lines at the end that were
    not there after the load)."""

    digest: str
    texts: tuple[str, ...] = ()


class Replay(base.Stored):
    """The action sequence of a passing test case, playable without an LLM."""

    key: str
    task_id: str
    case_index: int
    test: str
    expected_result: str
    app: str  # model/task_id of the app it was recorded on
    app_hash: str
    agent_model: str
    steps: tuple[ReplayStep, ...]
    end: ReplayEnd
    recorded_at: str


class ReplayCheck(base.Model):
    """One replay run against an app: did it reach the same end state?"""

    key: str
    case_index: int
    test: str
    recorded_on: str  # model/task_id (app hash) it was recorded on
    passed: bool
    reason: str
    exact: bool = False  # the DOM normal form matched too
    missing: tuple[str, ...] = ()  # expected text lines not found at the end
    steps: int = 0
    duration_s: float = 0.0


def replay_key(app_hash: str, test: str, expected_result: str, agent_model: str) -> str:
    """The cache key of a replay: (app hash, test text, agent model)."""
    blob = json.dumps([app_hash, test, expected_result, agent_model], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def case_folder(index: int) -> str:
    """``uitests/03``: where test case ``index`` (0-based) keeps its evidence."""
    return f"uitests/{index + 1:02d}"


_TEXT_VERDICT = re.compile(r"^\W*verdict\W*[:=-]\s*\**\s*(YES|PARTIAL|NO)\b", re.I | re.M)
_TEXT_STEPS = re.compile(r"^\W*(?:evidence|steps?)\W*[:=-]\s*(.+)$", re.I | re.M)


def read_text_verdict(text: str) -> AgentVerdict | None:
    """A verdict written as text: a line ``Verdict: YES|PARTIAL|NO``, optionally a line
    ``Evidence: steps 2, 4``; the rest is the justification. None when no such line
    (two different verdict lines are no verdict either)."""
    found = {m.upper() for m in _TEXT_VERDICT.findall(text)}
    if len(found) != 1:
        return None
    steps: tuple[int, ...] = ()
    cited = _TEXT_STEPS.search(text)
    if cited:
        steps = tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", cited.group(1))))
    rest = _TEXT_STEPS.sub("", _TEXT_VERDICT.sub("", text)).strip()
    return AgentVerdict(verdict=found.pop(), justification=rest or "(no justification given)",
                        evidence_steps=steps)
