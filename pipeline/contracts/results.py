"""Scores, per-app results and run results (``results.json``)."""

from __future__ import annotations

from typing import Literal

from iwcbench.pipeline.contracts import base, evidence

Outcome = Literal["evaluated", "black_box", "start_failed", "error"]


class Score(base.Model):
    """One measured dimension. ``value`` None means unscored, with ``reason`` saying
    why; an unscored value is left out of every aggregate (it is never 0)."""

    value: float | None
    reason: str
    rationale: str | None = None
    higher_is_better: bool = True
    unit: str = ""
    evidence: tuple[str, ...] = ()  # citations: "step 4", "S3", "shots/0004.png"
    raw: dict | None = None  # judge prompt digest, raw replies, tokens


class InstrumentationSummary(base.Model):
    framework: evidence.Framework | None = None
    mode: evidence.Mode | None = None
    reason: str = ""
    files_instrumented: int = 0
    build: evidence.BuildResult | None = None  # None: the app needed no build
    build_s: float | None = None  # seconds of install + build


class ExplorationSummary(base.Model):
    steps: int = 0
    states: int = 0
    transitions: int = 0
    duration_s: float = 0.0
    coverage: evidence.CoverageSummary = evidence.CoverageSummary()
    page_errors: int = 0
    console_errors: int = 0
    blocked_requests: int = 0


class AppResult(base.Stored):
    model: str
    task_id: str
    outcome: Outcome
    reason: str
    overall: float | None = None
    instrumentation: InstrumentationSummary = InstrumentationSummary()
    exploration: ExplorationSummary = ExplorationSummary()
    scores: dict[str, Score] = {}
    evidence: str = ""  # store prefix of the evidence, e.g. apps/model/task
    timings: dict[str, float] = {}  # stage → seconds
    llm_usage: dict = {}  # calls, tokens, cost_usd of this app's LLM calls (tester + judges)


class LeaderboardRow(base.Model):
    rank: int
    model: str
    overall: float | None
    metrics: dict[str, float | None]  # model-level mean raw score per metric
    z: dict[str, float | None] = {}  # model-level z-score per metric
    apps: int = 0
    outcomes: dict[str, int] = {}
    rank_interval: tuple[int, int] | None = None  # bootstrap interval of the rank (best, worst)


class RunInfo(base.Model):
    configuration: dict
    config_hash: str
    started_at: str
    finished_at: str | None = None
    versions: dict[str, str | None] = {}
    git_commit: str | None = None


class SkippedInput(base.Model):
    """An entry of the input that is not an app of a known task (a stray file, an
    unknown task id): reported, never silently dropped."""

    path: str
    reason: str


class RunResults(base.Stored):
    run: RunInfo
    apps: tuple[AppResult, ...] = ()
    leaderboard: tuple[LeaderboardRow, ...] = ()
    weights: dict[str, float] = {}
    skipped: tuple[SkippedInput, ...] = ()
    llm_usage: dict = {}  # the apps' llm_usage summed
