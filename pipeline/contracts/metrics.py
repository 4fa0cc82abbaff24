"""The metric table: one entry per metric, the only place its facts live.

Every score the project computes — rule metrics (stages/scoring), judged dimensions
(stages/judging), and what the issues after this one add — has exactly one ``Metric``
here: its unit, which way is better, the floor an app gets when it is the model's
fault, its weight in each weight set, its WebCoderBench perspective, its kind and a
one-line definition. Scoring and judging build their ``Score`` records through
``score``/``unscored``; aggregation reads directions and weights from here; the report
reads units; ``docs/metrics.md`` is generated from this table (hack/gen-docs) and
``hack/verify`` fails when it drifts.

Adding a rule metric is its function in a stage plus one entry in ``TABLE``. Pure data:
no I/O, nothing computed from evidence.
"""

from __future__ import annotations

import math
from typing import Iterable, Literal, Mapping, get_args

import pydantic

from iwcbench.pipeline.contracts import base, webcoder_metrics

Kind = Literal["rule", "llm"]
# WebCoderBench's nine perspectives (seed 002, Table 3).
Perspective = Literal[
    "code_quality", "visual_quality", "content_quality", "performance", "accessibility",
    "maintainability", "functional_alignment", "visual_alignment", "content_alignment",
]
PERSPECTIVES: tuple[str, ...] = get_args(Perspective)
# Where a metric comes from: the stage that computes it.
Producer = Literal["scoring", "judging", "uitesting", "quality"]
# Named weight sets. ``default``: the offline rule metrics; ``iwc``: IWC-Bench §4.4;
# ``wcb``: WebCoderBench's 24 metrics under Table 6's "ALL" column; ``wcb_<persona>``: the
# same metrics under one persona's column of Table 6 (webcoder_metrics.TABLE6).
WeightSet = Literal["default", "iwc", "wcb", "wcb_developer", "wcb_quality_assurance", "wcb_data_scientist",
                    "wcb_product_manager", "wcb_operations", "wcb_legal", "wcb_designer"]
WEIGHT_SETS: tuple[str, ...] = get_args(WeightSet)


# What a score is: measured (``scored``: ``value`` set), or not, and then why not in
# kind: ``unscored`` (it could not be measured, on our side: a tool failed, time ran
# out, the sandbox blocked what it needed; ``reason`` says why), ``not_applicable`` (the
# app has nothing the metric is about: no media for media quality, fewer than two icons
# for icon consistency; not a failure, and not counted as one), ``pending`` (left to the
# run's Message Batches, judged by the judging pass or ``--resume``) or ``over_budget``
# (left undone once the run's LLM budget was reached). Every state but ``scored`` has no
# value and is left out of every aggregate (it is never 0).
ScoreStatus = Literal["scored", "unscored", "not_applicable", "pending", "over_budget"]
WAITING: frozenset[str] = frozenset({"pending", "over_budget"})  # states a later judging pass takes up
PENDING_REASON = "judging by Message Batch pending"  # how a pending score's reason begins
OVER_BUDGET_REASON = "not judged: the run's LLM budget"  # how an over_budget score's reason begins
# Schema-1 results (no ``status``) said it only with these heads of the reason.
LEGACY_HEADS: dict[str, str] = {PENDING_REASON: "pending", OVER_BUDGET_REASON: "over_budget"}


class Score(base.Model):
    """One measured dimension. ``value`` None means not scored, ``status`` says in
    which way and ``reason`` why; such a value is left out of every aggregate (it is
    never 0)."""

    value: float | None
    reason: str
    status: ScoreStatus = "scored"  # absent (schema 1): read from value and reason
    rationale: str | None = None
    higher_is_better: bool = True
    unit: str = ""
    evidence: tuple[str, ...] = ()  # citations: "step 4", "S3", "shots/0004.png"
    raw: dict | None = None  # judge prompt digest, raw replies, tokens

    @pydantic.model_validator(mode="before")
    @classmethod
    def _status_of_old_scores(cls, data: object) -> object:
        if isinstance(data, dict) and "status" not in data:
            if data.get("value") is not None:
                return {**data, "status": "scored"}
            reason = str(data.get("reason", ""))
            state = next((s for head, s in LEGACY_HEADS.items() if reason.startswith(head)), "unscored")
            return {**data, "status": state}
        return data

    @pydantic.model_validator(mode="after")
    def _value_matches_status(self) -> "Score":
        if (self.value is not None) != (self.status == "scored"):
            raise ValueError(f"a {self.status} score {'has no' if self.value is None else 'cannot have a'} value")
        return self

    @property
    def waiting(self) -> bool:
        """Left for later (batch mode or the budget): a judging pass takes it up."""
        return self.status in WAITING


Aggregation = Literal["mean", "pooled_cases", "pooled_instructions", "sample_z"]
# How a metric's benchmark pools it per model: the leaderboard's ``metrics`` and ``z``
# hold every metric by its own aggregation (stages/aggregating), one row per model.
AGGREGATIONS: dict[str, str] = {
    "mean": "model level: the mean of the model's app values; its z is over the model means",
    "pooled_cases": "model level: WebGen-Bench's figure pooled over every UI test case of the model (start "
                    "failures as NO), never a mean of per-app values; z over the models; not weighable",
    "pooled_instructions": "model level: WebGen-Bench's Accuracy over instructions, the card's primary (an "
                           "instruction is YES when all its cases are, PARTIAL when one is YES or PARTIAL; start "
                           "failures as NO), pooled over the model's instructions; z over the models; not weighable",
    "sample_z": "WebCoderBench Table 4: the mean of the model's app values; ranked by WebCoderBench's weights, its "
                "z is the mean over the model's apps of each app's z against all apps (per-sample z), else over "
                "the model means; weighted within its perspective in results.json webcoder; Table 5 per "
                "requirement label",
}
POOLED: tuple[Aggregation, ...] = ("pooled_cases", "pooled_instructions")  # computed over UI test cases, not weighable


class Metric(base.Model):
    name: str
    unit: str
    higher_is_better: bool
    floor: float | None  # value for an app that is the model's fault; None: left unscored
    weights: dict[str, float] = {}  # weight set → weight (absent: 0)
    perspective: Perspective | None = None
    kind: Kind
    producer: Producer
    aggregation: Aggregation = "mean"  # how its benchmark pools it per model (AGGREGATIONS)
    definition: str


# Offline (``default``) weights, for a run with no judge (issue 19 item 8; docs/usage.md
# says why each is what it is): what measures the app, not how much of it we saw.
# WebCoderBench's 19 rule metrics 0.55 together, in Table 6's "ALL" proportions
# (``OFFLINE_WCB``, given in ``_shared``); runtime errors 0.10; what the app does when
# used: states 0.10, transitions 0.05, clicks with no effect 0.10, dead ends 0.05;
# axe-core accessibility 0.05 (WCB's own accessibility metrics carry the rest). Coverage
# and blocked requests weigh 0: coverage says how much of the app the evidence covers and
# is reported beside the score (an app whose own code never ran takes the floor of what
# the explorer measures: aggregating.with_floors); a blocked request is our sandbox's
# doing. Where a metric is not scored (no quality suite, say) the weights of the others
# are renormalised. IWC (§4.4): 1/3 aesthetics, 1/3 usability, 1/9 per alignment
# sub-dimension.
OFFLINE_WCB = 0.55
# A metric read "over the states" reads the same screens for every app, whatever the
# explorer found: the start state and the first SCREENS - 1 distinct states after it.
SCREENS = 8
# A deliberated dimension's value (aesthetics, usability) is its final-judge scores (1-5; trimmed
# mean) times this, on 0-100; aggregation reads the same factor to put the judge's repeats in that unit.
JUDGE_SCALE = 20
TABLE: tuple[Metric, ...] = (
    Metric(name="coverage_statements", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own JavaScript statements executed during exploration (Istanbul; "
                      "recognised library code left out)"),
    Metric(name="coverage_functions", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own JavaScript functions executed during exploration (Istanbul; "
                      "recognised library code left out)"),
    Metric(name="coverage_branches", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own branch arms taken during exploration (Istanbul; recognised "
                      "library code left out)"),
    Metric(name="runtime_errors", unit="errors", higher_is_better=False, floor=None,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={"default": 0.10}, aggregation="mean",
           definition="uncaught page errors plus console errors over the whole exploration"),
    Metric(name="blocked_requests", unit="requests", higher_is_better=False, floor=None,
           kind="rule", producer="scoring", perspective="content_quality",
           weights={}, aggregation="mean",
           definition="requests the sandbox refused: the app tried to reach outside its server and the CDN "
                      "mirror"),
    Metric(name="states", unit="states", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring",
           weights={"default": 0.10}, aggregation="mean",
           definition="distinct states reached (identical normalised DOMs are one state; the crash state not "
                      "counted)"),
    Metric(name="transitions", unit="transitions", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring",
           weights={"default": 0.05}, aggregation="mean",
           definition="distinct (state, other state, action) edges of the state graph; self-loops not "
                      "counted"),
    Metric(name="dead_end_ratio", unit="%", higher_is_better=False, floor=100.0,
           kind="rule", producer="scoring",
           weights={"default": 0.05}, aggregation="mean",
           definition="share of the states acted in where no action led to another state"),
    Metric(name="no_effect_ratio", unit="%", higher_is_better=False, floor=100.0,
           kind="rule", producer="scoring",
           weights={"default": 0.10}, aggregation="mean",
           definition="share of performed clicks, selects, checks, keys, drags and backs that changed "
                      "nothing a user can see or the app keeps (the page, its address, "
                      "stored data, a request, a dialog or a window; canvas pixels for actions aimed at a "
                      "canvas or the page, and for other controls only on a page whose canvases never draw "
                      "by themselves); code that ran is no effect; an action aimed at a canvas or the page "
                      "whose effect a canvas that draws by itself or cannot be read hides is left out"),
    Metric(name="accessibility", unit="0-100", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="accessibility",
           weights={"default": 0.05}, aggregation="mean",
           definition="100 minus the impact-weighted axe-core rules violated per page (critical 10, serious "
                      "6, moderate 3, minor 1), averaged per state then over the same screens for every app: "
                      f"the start state and the first {SCREENS - 1} distinct states after it"),
    Metric(name="aesthetics", unit="0-100", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="visual_quality",
           weights={"iwc": 1 / 3}, aggregation="mean",
           definition="visual aesthetics of up to five representative screenshots: advocate, critic, five "
                      "judge runs, trimmed mean × 20"),
    Metric(name="usability", unit="0-100", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging",
           weights={"iwc": 1 / 3}, aggregation="mean",
           definition="usability from the trace and state graph, same deliberation as aesthetics"),
    Metric(name="alignment_functional", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="functional_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's functional criteria the alignment agent found satisfied in the "
                      "evidence"),
    Metric(name="alignment_content", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="content_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's content criteria the alignment agent found satisfied in the "
                      "evidence"),
    Metric(name="alignment_visual", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="visual_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's visual criteria the alignment agent found satisfied in the "
                      "evidence"),
    # issue 12 — WebGen-Bench's evaluator (stages/uitesting). No weights: reported beside
    # the IWC overall, not part of it; the model-level Accuracy is pooled over test
    # cases (stages/aggregating/webgen.py), not a mean of these per-app values.
    Metric(name="uitest_instruction_accuracy", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_instructions",
           definition="WebGen-Bench's instruction verdict of the app, the card's primary Accuracy: 100 when every "
                      "UI test case is YES, 50 when one is YES or PARTIAL, 0 otherwise; unscored when a case is"),
    Metric(name="uitest_accuracy", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_cases",
           definition="WebGen-Bench Accuracy of the app's UI test cases run by the GUI agent: (YES + 0.5 · "
                      "PARTIAL) / cases × 100; an app that never started fails every case"),
    Metric(name="uitest_passed", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_cases",
           definition="share of the app's UI test cases the GUI agent judged YES"),
    Metric(name="appearance", unit="1-5", higher_is_better=True, floor=1.0,
           kind="llm", producer="uitesting",
           aggregation="mean",
           definition="WebGen-Bench appearance: a vision judge rates the first screen and up to two more "
                      "representative screenshots on a written 1–5 rubric"),
)


# WebCoderBench's 24 metrics (issue 11; webcoder_metrics.py holds their definitions and
# Table 6): rule metrics (producer "quality", stages/quality) and the five LLM metrics
# (producer "judging", stages/judging/webcoder.py); docs/metrics-wcb.md has the detail.
# Every value is 0-100, higher is better.
def _wcb(entry: webcoder_metrics.Entry) -> Metric:
    """One of WebCoderBench's 24: 0-100, higher is better, floor 0 (weights: ``_shared``)."""
    return Metric(name=entry.name, unit="0-100", higher_is_better=True, floor=0.0, kind=entry.kind,
                  producer="judging" if entry.kind == "llm" else "quality", perspective=entry.perspective,
                  aggregation="sample_z", definition=entry.definition)


def _shared(entries: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """Each entry with an equal share of its perspective's weight in every WebCoderBench set,
    and each rule metric its part of ``OFFLINE_WCB`` in the offline set, in the proportions
    of the ``wcb`` set."""
    def perspective(m: Metric) -> str:
        assert m.perspective is not None  # _wcb gives each of WebCoderBench's metrics its perspective
        return m.perspective

    members = {p: sum(1 for m in entries if m.perspective == p) for p in webcoder_metrics.TABLE6}
    shared = [{ws: webcoder_metrics.perspective_weight(ws, perspective(m)) / members[perspective(m)]
               for ws in webcoder_metrics.WEBCODER_SETS}
              for m in entries]
    rules = math.fsum(w["wcb"] for m, w in zip(entries, shared) if m.kind == "rule")
    for m, w in zip(entries, shared):
        if m.kind == "rule":
            w["default"] = w["wcb"] * OFFLINE_WCB / rules
    return tuple(m.model_copy(update={"weights": w}) for m, w in zip(entries, shared))


WEBCODER: tuple[Metric, ...] = _shared(tuple(_wcb(e) for e in webcoder_metrics.ENTRIES))
TABLE = TABLE + WEBCODER

BY_NAME: dict[str, Metric] = {m.name: m for m in TABLE}


def base_name(name: str) -> str:
    """``aesthetics@v2`` (a re-score kept beside the original) → ``aesthetics``."""
    return name.split("@", 1)[0]


def find(name: str) -> Metric | None:
    """The table entry of a score name (suffixed re-scores included), or None."""
    return BY_NAME.get(base_name(name))


def names(producer: Producer | None = None) -> tuple[str, ...]:
    """Metric names in table order, optionally only one stage's."""
    return tuple(m.name for m in TABLE if producer is None or m.producer == producer)


def weights(weight_set: str) -> dict[str, float]:
    """The named weight set: metric → weight, only the metrics it weighs."""
    if weight_set not in WEIGHT_SETS:
        raise KeyError(f"unknown weight set {weight_set!r} (known: {', '.join(WEIGHT_SETS)})")
    return {m.name: m.weights[weight_set] for m in TABLE if m.weights.get(weight_set, 0) > 0}


def webcoder_groups() -> dict[str, tuple[str, ...]]:
    """WebCoderBench's perspectives → their metrics (the entries it aggregates, ``sample_z``),
    in Table 3 order: what its questionnaire ranks and its Table 4 sums."""
    groups: dict[str, tuple[str, ...]] = {p: () for p in PERSPECTIVES}
    for m in TABLE:
        if m.aggregation == "sample_z" and m.perspective is not None:
            groups[m.perspective] += (m.name,)
    return {p: names for p, names in groups.items() if names}


def higher_is_better(name: str) -> bool:
    """Direction of a metric; names outside the table count as higher-is-better."""
    metric = find(name)
    return metric.higher_is_better if metric is not None else True


def score(name: str, value: float | None, reason: str, evidence: Iterable[str] = (),
          raw: dict | None = None, rationale: str | None = None,
          status: ScoreStatus | None = None) -> Score:
    """A Score of a table metric, its unit and direction taken from the table;
    ``status`` by default ``scored`` with a value, ``unscored`` without."""
    metric = BY_NAME[base_name(name)]
    return Score(value=value, reason=reason, rationale=rationale, higher_is_better=metric.higher_is_better,
                 unit=metric.unit, evidence=tuple(evidence), raw=raw,
                 status=status or ("scored" if value is not None else "unscored"))


def not_applicable(name: str, reason: str, evidence: Iterable[str] = (), raw: dict | None = None) -> Score:
    """A metric the app gives nothing to measure (``reason`` says what is absent)."""
    return score(name, None, reason, evidence, raw, status="not_applicable")


def unscored(names_: Iterable[str], reason: str, raw: dict | None = None,
             status: ScoreStatus = "unscored") -> dict[str, Score]:
    """Each named metric not scored, with the same reason (never 0) and ``status``."""
    return {n: score(n, None, reason, raw=raw, status=status) for n in names_}


def names_aggregated(*aggregations: Aggregation) -> tuple[str, ...]:
    """The metrics whose benchmark pools them per model one of these ways, in table order."""
    return tuple(m.name for m in TABLE if m.aggregation in aggregations)


def aggregation_of(name: str) -> Aggregation:
    """How a score name is pooled per model; names outside the table as a mean."""
    metric = find(name)
    return metric.aggregation if metric is not None else "mean"


def ranks_as_table4(weights: Mapping[str, float]) -> bool:
    """Whether weights are WebCoderBench's kind (every metric they weigh is one of its 24,
    aggregation ``sample_z``): then the leaderboard ranks by its Table 4 (per-sample z),
    so a run holds one WebCoderBench ranking, not two."""
    weighed = [n for n, w in weights.items() if w > 0]
    return bool(weighed) and all((m := find(n)) is not None and m.aggregation == "sample_z" for n in weighed)


def floors(names_: Iterable[str], reason: str) -> dict[str, Score]:
    """Scores of an app that is the model's fault: each metric at its floor; a metric
    without a floor (an unbounded count) is unscored, saying so."""
    out = {}
    for n in names_:
        floor = BY_NAME[n].floor
        out[n] = score(n, floor, reason) if floor is not None else \
            score(n, None, f"no floor for a count; {reason}")
    return out
