"""Per-app results (``result.json``) and run results (``results.json``); the scores
they hold are ``metrics.Score`` records.

Schema 6 (this one) gives each leaderboard row a 95 % interval of its overall that holds
both the apps' bootstrap and each metric's run-to-run spread (``interval``), and a rank
band shared by models whose intervals overlap (``band``); ``RunResults.noise`` says which
spreads were measured. Schema 5 says what the leaderboard's overall ranks (``RunResults.ranking``:
offline or judged, never one name for both) and on which tasks (a task where some
model's app cannot run here is left out by default), and counts per row the apps not
runnable here and those left out. Schema 4 keeps every metric of a leaderboard row in its ``metrics`` and
``z``, WebGen-Bench's pooled Accuracy included, each by its aggregation (the metric
table's column). Schema 3 records the run's settings as a ``settings.Evaluation``, and
what a run on one machine adds (``settings.LocalRun``: inputs, output, workers, spending)
apart from it; schema 2 gave every score a ``status``. Older files still read: a score
without ``status`` gets it from its value and its reason (contracts/metrics.py
``LEGACY_HEADS``), a configuration that holds a run's local fields (schemas 1 and 2) is
read as its evaluation and its ``local`` part, and a row's ``uitest_instruction_accuracy``
and ``uitest_case_accuracy`` (schema 3) are its metrics ``uitest_instruction_accuracy``
and ``uitest_accuracy``.
"""

from __future__ import annotations

from typing import Iterable, Literal

import pydantic

from iwcbench.pipeline.contracts import analyses, base, evidence, metrics, settings, spread, uitests

Outcome = Literal["evaluated", "black_box", "start_failed", "not_runnable", "error"]
# Outcomes that are the model's fault: the app takes the floor of every metric it could
# not be measured on (contracts/metrics.py), under every weight set.
MODEL_FAULT: frozenset[str] = frozenset({"start_failed"})
# Our own failure: left out of every pool.
OUR_FAULT: frozenset[str] = frozenset({"error"})
# Neither the model's fault nor ours: the app cannot run in this environment (its build
# needs a network service, a dependency comes from a git repository). It is pooled on
# what it was scored on (its source's metrics), never floored; what it lacks is unscored
# and counted per model, as the app's row and the report show.
NOT_RUNNABLE_HERE: frozenset[str] = frozenset({"not_runnable"})
NOT_SUBMITTED = "no app submitted for this task"  # the reason of a (model, task) without an app
SCHEMA_VERSION = "6"  # of result.json and results.json (3: the run's Evaluation, its local part apart; 4: the
# leaderboard holds WebGen-Bench's pooled Accuracy in ``metrics``, as every other metric; 5: ``ranking``;
# 6: a row's ``interval`` and ``band``, the run's ``noise``)

# What an overall is called, by what it stands on (``Ranking.kind``): an offline overall
# (rule metrics and runtime figures alone) ranks runtime and code quality, not whether an
# app does what was asked; the two are never shown under one name.
OverallKind = Literal["offline", "judged"]
OVERALL_NAMES: dict[str, str] = {"offline": "offline overall", "judged": "judged overall"}
OVERALL_MEASURES: dict[str, str] = {
    "offline": "runtime and code quality (WebCoderBench's rule metrics, runtime errors, what the explorer saw the "
               "app do), not requirement satisfaction: no judged score stands in it (no judge was asked, or none "
               "gave a usable answer)",
    "judged": "the judged dimensions of the weights (LLM judges read the task and the evidence)",
}
# Where requirement satisfaction is measured: the judged protocols, and how to run them.
JUDGED_PROTOCOLS: tuple[str, ...] = (
    "IWC-Bench's judges: aesthetics, usability and requirement alignment (iwc run --judge MODEL; docs/llm.md)",
    "WebCoderBench's LLM metrics: functional, visual and content alignment, visual experience, functionality "
    "(judging.dimensions wcb, with --judge; docs/metrics-wcb.md)",
    "WebGen-Bench's UI tests: a GUI agent runs each task's test cases (--uitests, with --judge; docs/uitests.md)",
)


class InstrumentationSummary(base.Model):
    framework: evidence.Framework | None = None
    mode: evidence.Mode | None = None
    reason: str = ""
    files_instrumented: int = 0
    build: evidence.BuildResult | None = None  # None: the app needed no build
    build_s: float | None = None  # seconds of install + build
    # the build (and the app's own server) had loopback only: `iwc run`'s network namespace,
    # or a pod under the sandbox's seccomp profile; None: the app needed no build
    network_isolated: bool | None = None


class ExplorationSummary(base.Model):
    steps: int = 0
    states: int = 0
    transitions: int = 0
    duration_s: float = 0.0
    coverage: evidence.CoverageSummary = evidence.CoverageSummary()
    page_errors: int = 0
    console_errors: int = 0
    blocked_requests: int = 0


_COUNTS = ("calls", "requests", "cache_hits", "batched_calls", "input_tokens", "output_tokens",
           "cache_read_input_tokens", "cache_creation_input_tokens")


class PurposeUsage(base.Model):
    """The calls of one purpose ("explore.step", "aesthetics.judge", ...). Input tokens
    as the API bills them: ``input_tokens`` neither read from nor written to the prompt
    cache, the cache reads (a tenth of the price) and the cache writes (1.25× for
    5-minute entries, 2× for 1-hour ones) apart; their sum is what the prompts held."""

    calls: int = 0  # calls made, cache hits included
    requests: int = 0  # HTTP requests sent (retries included; cache hits send none)
    cache_hits: int = 0  # calls answered from the response cache
    batched_calls: int = 0  # calls answered through a batch API (half price)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cost_usd: float | None = 0.0  # None: a model without a known price took part

    @classmethod
    def summed(cls, usages: Iterable["PurposeUsage"]) -> "PurposeUsage":
        present = list(usages)
        costs = [u.cost_usd for u in present]
        return cls(**{f: sum(getattr(u, f) for u in present) for f in _COUNTS},
                   cost_usd=None if any(c is None for c in costs) else round(sum(costs), 6))  # type: ignore[arg-type]  # no None once any() said so


class LLMUsage(PurposeUsage):
    """What the LLM calls of one app (tester + judges) or a whole run cost."""

    by_purpose: dict[str, int] = {}  # calls per purpose ("aesthetics.judge", "explore.step", ...)
    purposes: dict[str, PurposeUsage] = {}  # tokens and dollars per purpose

    @classmethod
    def total(cls, usages: Iterable["LLMUsage | None"]) -> "LLMUsage | None":
        """The sum of several ledgers (None when none of them made a call)."""
        present = [u for u in usages if u is not None]
        if not present:
            return None
        calls: dict[str, int] = {}
        groups: dict[str, list[PurposeUsage]] = {}
        for u in present:
            for name, n in u.by_purpose.items():
                calls[name] = calls.get(name, 0) + n
            for name, p in u.purposes.items():
                groups.setdefault(name, []).append(p)
        whole = PurposeUsage.summed(present)
        return cls(**whole.model_dump(), by_purpose=dict(sorted(calls.items())),
                   purposes={name: PurposeUsage.summed(g) for name, g in sorted(groups.items())})


class UITestOutcome(base.Model):
    """One UI test case's verdict as results.json keeps it (its evidence is in the
    app's uitests.json); None: unscored, ``reason`` says why."""

    index: int
    verdict: uitests.Verdict | None
    reason: str = ""
    page_failed: bool = False  # NO because the case's page did not load (counted apart)


class AppResult(base.Stored):
    schema_version: str = SCHEMA_VERSION
    model: str
    task_id: str
    outcome: Outcome
    reason: str
    overall: float | None = None
    instrumentation: InstrumentationSummary = InstrumentationSummary()
    exploration: ExplorationSummary = ExplorationSummary()
    scores: dict[str, metrics.Score] = {}
    evidence: str = ""  # store prefix of the evidence, e.g. apps/model/task
    timings: dict[str, float] = {}  # stage → seconds
    llm_usage: LLMUsage | None = None  # this app's LLM calls (tester + judges); None: none made
    ui_tests: tuple[UITestOutcome, ...] = ()  # WebGen-Bench UI test cases, in the task's order
    reused: bool = False  # taken from an earlier evaluation made from the same inputs (ReuseKey)
    reused_from: str | None = None  # the run that made a reused result (ReuseKey.run)


class LeaderboardRow(base.Model):
    rank: int
    model: str
    overall: float | None
    metrics: dict[str, float | None]  # model-level mean raw score per metric
    z: dict[str, float | None] = {}  # model-level z-score per metric
    apps: int = 0
    outcomes: dict[str, int] = {}
    # 95 % intervals of the rank (best, worst) and of ``overall`` over bootstrap samples of the tasks in which
    # each metric's run-to-run spread moves the model's means too (stages/aggregating/intervals.py)
    rank_interval: tuple[int, int] | None = None
    interval: tuple[float, float] | None = None
    band: int | None = None  # rank band, 1 best: models whose intervals overlap share one (None: no interval)
    # metric → the model's apps (our errors left out) without a value for a metric other apps
    # of the run have one for: unscored, pending or over budget; only metrics with one or more
    unscored: dict[str, int] = {}
    # metric → the model's apps that have nothing the metric is about (status
    # ``not_applicable``: no media, fewer than two icons...); not failures, not in ``unscored``
    not_applicable: dict[str, int] = {}
    # weighted metrics other models were ranked on that this model has no z for: its overall
    # stands on fewer dimensions (the report flags it); empty: ranked like the rest
    missing_dimensions: tuple[str, ...] = ()
    not_runnable: int = 0  # apps of the model that cannot run here (outcome not_runnable)
    left_out: int = 0  # apps of the model in tasks the ranking left out (Ranking.left_out): in no mean

    @pydantic.model_validator(mode="before")
    @classmethod
    def _pooled_in_metrics(cls, data: object) -> object:
        """Schema 3 kept WebGen-Bench's pooled Accuracy in two fields of their own; they
        are the metrics ``uitest_instruction_accuracy`` and ``uitest_accuracy``."""
        if not isinstance(data, dict) or not {"uitest_instruction_accuracy", "uitest_case_accuracy"} & set(data):
            return data
        rest = {k: v for k, v in data.items() if k not in ("uitest_instruction_accuracy", "uitest_case_accuracy")}
        pooled = {"uitest_instruction_accuracy": data.get("uitest_instruction_accuracy"),
                  "uitest_accuracy": data.get("uitest_case_accuracy")}
        return {**rest, "metrics": {**dict(data.get("metrics") or {}), **pooled}}


class PerspectiveRow(base.Model):
    """One model in WebCoderBench's Table 4: weighted z per perspective, summed."""

    rank: int
    model: str
    overall: float | None  # Σ over perspectives; None: no weighted metric scored
    perspectives: dict[str, float | None]  # Σ weight · mean z over the perspective's metrics
    metric_z: dict[str, float | None] = {}  # the model's mean z per metric (over its samples)
    metric_mean: dict[str, float | None] = {}  # the model's mean raw score per metric
    samples: int = 0  # apps of the model in the pool (start failures included, our errors not)


class LabelRow(base.Model):
    """One cell of WebCoderBench's Table 5: the mean sample overall over the apps whose
    task carries ``label`` = ``value`` (one model's, or every model's when None)."""

    label: str  # complexity | clarity | style | category | modality
    value: str  # L1, C2, S3, "Utility Website", text_image, ...
    model: str | None
    samples: int
    overall: float | None


class WebCoderSummary(base.Model):
    """WebCoderBench's aggregation (§4.3): z of every metric per sample over all samples,
    averaged per model, weighted and summed; per perspective and per requirement label."""

    weights: dict[str, float]
    perspective_weights: dict[str, float]
    table: tuple[PerspectiveRow, ...] = ()
    labels: tuple[LabelRow, ...] = ()
    unlabelled: dict[str, int] = {}  # label → samples whose task does not carry it


class Reliability(base.Model):
    """How instrumentation fared over a run's apps (IWC-Bench §5.5)."""

    apps: int = 0  # every app of the run, missing submissions included
    instrumented: int = 0
    black_box: int = 0
    failed: int = 0  # never got an instrumented or black-box copy (e.g. unsafe archive, no start page)
    success_rate: float | None = None  # instrumented / apps, %
    causes: dict[str, int] = {}  # why an app was black box or failed, tallied


class Reference(base.Model):
    """Fixed μ and σ per metric taken from a reference pool, so that a model's z does
    not move when other models join the run."""

    uri: str
    digest: str
    models: tuple[str, ...] = ()
    model_stats: dict[str, tuple[float, float]] = {}  # metric → (μ, σ) of the reference models' means
    app_stats: dict[str, tuple[float, float]] = {}  # metric → (μ, σ) over the reference apps


class RunInfo(base.Model):
    # What the run used: its evaluation settings (``iwc score``: the EvaluationRun's, or
    # the defaults; ``iwc run``: the run's own) and, for a run on one machine, ``local``:
    # where it read and wrote and how it spent. ``recorded_settings`` puts them together
    # again. Schemas 1 and 2 kept both in ``configuration``; they are read apart.
    configuration: settings.Evaluation
    local: settings.LocalRun | None = None
    config_hash: str
    started_at: str
    finished_at: str | None = None
    versions: dict[str, str | None] = {}
    git_commit: str | None = None

    @pydantic.model_validator(mode="before")
    @classmethod
    def _local_apart(cls, data: object) -> object:
        """A run's settings given whole (a ``RunSettings``, or the dict a schema-1 or
        schema-2 results.json holds) are recorded as their evaluation and ``local``."""
        if not isinstance(data, dict) or data.get("local") is not None:
            return data
        given = data.get("configuration")
        if isinstance(given, settings.RunSettings):
            return {**data, "configuration": given.evaluation(), "local": given.local()}
        if isinstance(given, dict):
            names = {n for name, field in settings.LocalRun.model_fields.items() for n in (name, field.alias)}
            local = {k: v for k, v in given.items() if k in names}
            if local:
                rest = {k: v for k, v in given.items() if k not in names}
                return {**data, "configuration": rest, "local": local}
        return data

    def recorded_settings(self) -> settings.Evaluation:
        """The settings the run used: a ``RunSettings`` for a run on one machine, else
        its ``Evaluation``."""
        if self.local is None:
            return self.configuration
        return settings.RunSettings.of(self.configuration, self.local)


class SkippedInput(base.Model):
    """An entry of the input that is not an app of a known task (a stray file, an
    unknown task id): reported, never silently dropped."""

    path: str
    reason: str


class AccuracySlice(base.Model):
    """Verdict counts of a set of test cases (or instructions) and their WebGen-Bench
    Accuracy, (yes + 0.5 · partial) / counted × 100; None when nothing was counted."""

    counted: int = 0
    yes: int = 0
    partial: int = 0
    no: int = 0
    accuracy: float | None = None


class UITestRow(base.Model):
    """WebGen-Bench's numbers for one model (stages/aggregating/webgen.py). The headline
    figures count a start failure as NO for each of its test cases; the ``started_``
    figures leave apps that never started out, so environment and app can be told apart."""

    model: str
    accuracy: float | None  # case-level Accuracy, pooled over test cases, start failures as NO
    instruction_accuracy: float | None  # the card's primary Accuracy: an instruction is YES when all its cases are
    started_accuracy: float | None
    started_instruction_accuracy: float | None
    reason: str  # what was counted, or why the figures are unscored
    instructions: int = 0  # tasks with UI test cases this model was given
    start_failures: int = 0  # of them, apps that never started (or were never submitted)
    errors: int = 0  # apps left out: our side failed
    not_runnable: int = 0  # apps left out: they cannot run in this environment (outcome not_runnable)
    cases: AccuracySlice = AccuracySlice()
    instruction_counts: AccuracySlice = AccuracySlice()
    unscored_cases: int = 0  # cases without a verdict (left out, never NO)
    page_failures: int = 0  # cases NO because their page did not load for the agent (in the figures as NO)
    by_primary_category: dict[str, AccuracySlice] = {}  # task's primary_category → cases
    by_task_category: dict[str, AccuracySlice] = {}  # test case's task_category → cases
    appearance: float | None = None  # mean appearance 1–5 over scored apps
    appearance_apps: int = 0


class Ranking(base.Model):
    """What the leaderboard's overall ranks, under which name, and on which tasks."""

    kind: OverallKind
    name: str  # what the CLI and the report call the overall (OVERALL_NAMES)
    measures: str  # what it ranks (OVERALL_MEASURES)
    judged_protocols: tuple[str, ...] = ()  # offline: where requirement satisfaction is measured instead
    not_runnable: settings.NotRunnablePolicy = "common_tasks"  # settings.Scoring.not_runnable
    tasks_compared: int = 0  # tasks every model is ranked on
    left_out: dict[str, str] = {}  # task → why the ranking leaves it out

    @classmethod
    def of(cls, kind: OverallKind, not_runnable: str, tasks_compared: int, left_out: dict[str, str]) -> "Ranking":
        return cls(kind=kind, name=OVERALL_NAMES[kind], measures=OVERALL_MEASURES[kind],
                   judged_protocols=JUDGED_PROTOCOLS if kind == "offline" else (), not_runnable=not_runnable,
                   tasks_compared=tasks_compared, left_out=left_out)


class ReuseKey(base.Stored):
    """What an app's result.json was made from: the app as submitted, its task, the
    evaluation's settings, and what measured it (this project's version, the image, the
    tools' versions). A later evaluation in the same store with every part the same
    reuses the result instead of evaluating it again (``runs.reusing``); ``run`` is not
    compared: it names the run that made the result."""

    input_hash: str  # sha256 over the app's files as submitted (relative paths and bytes)
    config_hash: str  # settings.Evaluation.config_hash()
    task_hash: str = ""  # sha256 of the task's record: prompt, checklist, UI tests, labels ("": an older key)
    producer: dict[str, str | None] = {}  # runs.provenance.producer(): version, commit, image, tool versions
    run: str = ""  # the run that evaluated the app under this key (not part of the key)

    def same_inputs(self, other: "ReuseKey | None") -> bool:
        return other is not None and self.model_copy(update={"run": ""}) == other.model_copy(update={"run": ""})

    def differences(self, other: "ReuseKey") -> list[str]:
        """What differs from ``other``, in a user's words (the app, its task, a setting, a tool)."""
        names = {"input_hash": "the app's files", "config_hash": "the evaluation settings", "task_hash": "the task"}
        found = [said for field, said in names.items() if getattr(self, field) != getattr(other, field)]
        found += [f"{name} ({other.producer.get(name)} → {self.producer.get(name)})"
                  for name in sorted(set(self.producer) | set(other.producer))
                  if self.producer.get(name) != other.producer.get(name)]
        return found


class RunMarker(base.Stored):
    """The config hash of the run writing a folder (``iwc run --resume`` checks it)."""

    config_hash: str


class RunResults(base.Stored):
    schema_version: str = SCHEMA_VERSION
    run: RunInfo
    apps: tuple[AppResult, ...] = ()
    leaderboard: tuple[LeaderboardRow, ...] = ()
    weights: dict[str, float] = {}
    skipped: tuple[SkippedInput, ...] = ()
    llm_usage: LLMUsage | None = None  # the apps' llm_usage summed
    instrumentation: Reliability = Reliability()
    judge_scores: dict[str, analyses.Distribution] = {}  # judged dimension → score distribution
    reference: Reference | None = None  # fixed μ/σ the z-scores used (None: the run's own pool)
    ui_tests: tuple[UITestRow, ...] = ()  # WebGen-Bench Accuracy per model (tasks with UI tests)
    webcoder: WebCoderSummary | None = None  # WebCoderBench's Table 4 and 5; None: no metric it weighs was scored
    ranking: Ranking | None = None  # what the overall ranks, and on which tasks (None: a file before schema 5)
    noise: spread.Noise | None = None  # the run noise the rows' intervals hold (None: a file before schema 6)
