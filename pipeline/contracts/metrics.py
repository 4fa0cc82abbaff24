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

from typing import Iterable, Literal

from iwcbench.pipeline.contracts import base, results

Kind = Literal["rule", "llm"]
# WebCoderBench's nine perspectives (seed 002, Table 3).
Perspective = Literal[
    "code_quality", "visual_quality", "content_quality", "performance", "accessibility",
    "maintainability", "functional_alignment", "visual_alignment", "content_alignment",
]
PERSPECTIVES: tuple[str, ...] = Perspective.__args__  # type: ignore[attr-defined]
# Where a metric comes from: the stage that computes it.
Producer = Literal["scoring", "judging", "uitesting"]
# Named weight sets. ``default``: the offline rule metrics; ``iwc``: IWC-Bench §4.4.
WeightSet = Literal["default", "iwc"]
WEIGHT_SETS: tuple[str, ...] = WeightSet.__args__  # type: ignore[attr-defined]


class Metric(base.Model):
    name: str
    unit: str
    higher_is_better: bool
    floor: float | None  # value for an app that is the model's fault; None: left unscored
    weights: dict[str, float] = {}  # weight set → weight (absent: 0)
    perspective: Perspective | None = None
    kind: Kind
    producer: Producer
    definition: str


def _m(name: str, unit: str, higher: bool, floor: float | None, kind: Kind, producer: Producer,
       definition: str, perspective: str | None = None, **weights: float) -> Metric:
    return Metric(name=name, unit=unit, higher_is_better=higher, floor=floor, weights=weights,
                  perspective=perspective, kind=kind, producer=producer, definition=definition)


# Offline (``default``) weights: coverage 0.25 (how much of the code a tester reached),
# runtime errors 0.15, richness of the state space 0.20, responsiveness 0.20,
# accessibility 0.15, sandbox escapes 0.05. IWC (§4.4): 1/3 aesthetics, 1/3 usability,
# 1/9 per alignment sub-dimension.
TABLE: tuple[Metric, ...] = (
    _m("coverage_statements", "%", True, 0.0, "rule", "scoring",
       "share of the app's own JavaScript statements executed during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.15),
    _m("coverage_functions", "%", True, 0.0, "rule", "scoring",
       "share of the app's own JavaScript functions executed during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.05),
    _m("coverage_branches", "%", True, 0.0, "rule", "scoring",
       "share of the app's own branch arms taken during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.05),
    _m("runtime_errors", "errors", False, None, "rule", "scoring",
       "uncaught page errors plus console errors over the whole exploration",
       "code_quality", default=0.15),
    _m("blocked_requests", "requests", False, None, "rule", "scoring",
       "requests the sandbox refused: the app tried to reach outside its server and the CDN mirror",
       "content_quality", default=0.05),
    _m("states", "states", True, 0.0, "rule", "scoring",
       "distinct states reached (identical normalised DOMs are one state; the crash state not counted)",
       default=0.125),
    _m("transitions", "transitions", True, 0.0, "rule", "scoring",
       "distinct (state, other state, action) edges of the state graph; self-loops not counted",
       default=0.075),
    _m("dead_end_ratio", "%", False, 100.0, "rule", "scoring",
       "share of the states acted in where no action led to another state",
       default=0.10),
    _m("no_effect_ratio", "%", False, 100.0, "rule", "scoring",
       "share of performed clicks, selects, checks, keys, drags and backs that changed neither "
       "the state nor coverage", default=0.10),
    _m("accessibility", "0-100", True, 0.0, "rule", "scoring",
       "100 minus the impact-weighted axe-core rules violated per page (critical 10, serious 6, "
       "moderate 3, minor 1), averaged per state then over states", "accessibility", default=0.15),
    _m("aesthetics", "0-100", True, 0.0, "llm", "judging",
       "visual aesthetics of up to five representative screenshots: advocate, critic, five "
       "judge runs, trimmed mean × 20", "visual_quality", iwc=1 / 3),
    _m("usability", "0-100", True, 0.0, "llm", "judging",
       "usability from the trace and state graph, same deliberation as aesthetics",
       iwc=1 / 3),
    _m("alignment_functional", "%", True, 0.0, "llm", "judging",
       "share of the task's functional criteria the alignment agent found satisfied in the evidence",
       "functional_alignment", iwc=1 / 9),
    _m("alignment_content", "%", True, 0.0, "llm", "judging",
       "share of the task's content criteria the alignment agent found satisfied in the evidence",
       "content_alignment", iwc=1 / 9),
    _m("alignment_visual", "%", True, 0.0, "llm", "judging",
       "share of the task's visual criteria the alignment agent found satisfied in the evidence",
       "visual_alignment", iwc=1 / 9),
    # issue 12 — WebGen-Bench's evaluator (stages/uitesting). No weights: reported beside
    # the IWC overall, not part of it; the model-level Accuracy is pooled over test
    # cases (stages/aggregating/webgen.py), not a mean of these per-app values.
    _m("uitest_accuracy", "%", True, 0.0, "llm", "uitesting",
       "WebGen-Bench Accuracy of the app's UI test cases run by the GUI agent: (YES + 0.5 · PARTIAL) "
       "/ cases × 100; an app that never started fails every case"),
    _m("uitest_passed", "%", True, 0.0, "llm", "uitesting",
       "share of the app's UI test cases the GUI agent judged YES"),
    _m("appearance", "1-5", True, 1.0, "llm", "uitesting",
       "WebGen-Bench appearance: a vision judge rates the first screen and up to two more "
       "representative screenshots on a written 1–5 rubric"),
)

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


def higher_is_better(name: str) -> bool:
    """Direction of a metric; names outside the table count as higher-is-better."""
    metric = find(name)
    return metric.higher_is_better if metric is not None else True


def score(name: str, value: float | None, reason: str, evidence: Iterable[str] = (),
          raw: dict | None = None, rationale: str | None = None) -> results.Score:
    """A Score of a table metric, its unit and direction taken from the table."""
    metric = BY_NAME[base_name(name)]
    return results.Score(value=value, reason=reason, rationale=rationale,
                         higher_is_better=metric.higher_is_better, unit=metric.unit,
                         evidence=tuple(evidence), raw=raw)


def unscored(names_: Iterable[str], reason: str, raw: dict | None = None) -> dict[str, results.Score]:
    """Each named metric unscored with the same reason (never 0)."""
    return {n: score(n, None, reason, raw=raw) for n in names_}


def floors(names_: Iterable[str], reason: str) -> dict[str, results.Score]:
    """Scores of an app that is the model's fault: each metric at its floor; a metric
    without a floor (an unbounded count) is unscored, saying so."""
    out = {}
    for n in names_:
        floor = BY_NAME[n].floor
        out[n] = score(n, floor, reason) if floor is not None else \
            score(n, None, f"no floor for a count; {reason}")
    return out
