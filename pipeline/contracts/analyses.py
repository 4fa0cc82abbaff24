"""The validation analyses a user runs on their own results (IWC-Bench §5.3–5.6,
Appendix D): human votes in, and what each analysis stores under ``analyses/`` of a run
(the report shows every one that is there). Pure data.
"""

from __future__ import annotations

import math
from typing import Iterable, Literal

import pydantic

from iwcbench.pipeline.contracts import base

AGREEMENT = "analyses/agreement.json"
COMPARISON = "analyses/comparison.json"
ROBUSTNESS = "analyses/robustness.json"

# IWC-Bench Table 4's Δz bands: [0, 0.25), [0.25, 0.5), …, [2, ∞).
DZ_BANDS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)


# ---------------------------------------------------------------- votes


class PairVote(base.Model):
    """A human preference between two models' apps for one task. ``winner`` names a
    model, or is "tie"."""

    task: str = pydantic.Field(min_length=1)
    model_a: str = pydantic.Field(min_length=1)
    model_b: str = pydantic.Field(min_length=1)
    winner: str = pydantic.Field(min_length=1)

    @pydantic.model_validator(mode="after")
    def _winner_is_one_of_them(self) -> "PairVote":
        if self.model_a == self.model_b:
            raise ValueError("model_a and model_b name the same model")
        if self.winner not in (self.model_a, self.model_b, "tie"):
            raise ValueError(f"winner must be {self.model_a!r}, {self.model_b!r} or 'tie', not {self.winner!r}")
        return self


class RatingVote(base.Model):
    """A human rating of one model's app for one task (higher is better); ratings of
    the same task become pairwise preferences (equal ratings: a tie)."""

    task: str = pydantic.Field(min_length=1)
    model: str = pydantic.Field(min_length=1)
    score: float


# ---------------------------------------------------------------- agreement


class Band(base.Model):
    lower: float
    upper: float | None  # None: no upper bound
    n: int = 0  # decisive pairs with Δz in [lower, upper)
    agree: int = 0
    rate: float | None = None  # agree / n
    cumulative_n: int = 0  # decisive pairs with Δz ≥ lower
    cumulative_agree: int = 0
    cumulative_rate: float | None = None


class Agreement(base.Stored):
    """How often the benchmark orders two apps of a task as the human did."""

    votes: str  # where the votes came from
    results: str  # the results they were compared with
    pairs: int  # human preference pairs read (ratings expanded)
    compared: int  # decisive pairs (human and benchmark both prefer one app)
    agree: int
    rate: float | None
    interval: tuple[float, float] | None = None  # bootstrap 95 % interval of the rate
    human_ties: int = 0  # the human saw no difference (not in the rate)
    benchmark_ties: int = 0  # equal overall z (not in the rate)
    unmatched: int = 0  # an app missing from the results or without an overall
    unmatched_examples: tuple[str, ...] = ()
    bands: tuple[Band, ...] = ()
    disagreements: tuple[dict, ...] = ()  # the largest-Δz ones first, for a look


# ---------------------------------------------------------------- comparing two runs


class Distribution(base.Model):
    """Scores of one dimension over a run's apps: level, spread and how many sit at
    the ends of the scale (within ``ENDPOINT_MARGIN`` of 0 or 100)."""

    n: int
    mean: float | None = None
    std: float | None = None  # population σ
    min: float | None = None
    max: float | None = None
    endpoint_share: float | None = None

    @classmethod
    def of(cls, values: Iterable[float | None]) -> "Distribution":
        """The distribution of some 0–100 scores (unscored ones left out)."""
        found = [v for v in values if v is not None and math.isfinite(v)]
        if not found:
            return cls(n=0)
        mu = math.fsum(found) / len(found)
        sigma = math.sqrt(math.fsum((v - mu) ** 2 for v in found) / len(found))
        ends = sum(1 for v in found if v <= ENDPOINT_MARGIN or v >= 100 - ENDPOINT_MARGIN)
        return cls(n=len(found), mean=round(mu, 4), std=round(sigma, 4), min=min(found), max=max(found),
                   endpoint_share=round(ends / len(found), 4))


ENDPOINT_MARGIN = 5.0  # score points from 0 or 100 that count as "at an endpoint"


class PairedApp(base.Model):
    model: str
    task_id: str
    a: float
    b: float
    delta: float  # b − a


class PairedTest(base.Model):
    """Wilcoxon signed-rank test of b − a (normal approximation, ties averaged, zero
    differences dropped) and the exact two-sided sign test."""

    n: int  # non-zero differences
    w_plus: float | None = None
    z: float | None = None
    p_value: float | None = None
    sign_test_p: float | None = None


class Histogram(base.Model):
    bins: tuple[str, ...]  # labels, e.g. "<40", "40–50", …, "100"
    a: tuple[int, ...]
    b: tuple[int, ...]


class MetricComparison(base.Model):
    metric: str
    pairs: tuple[PairedApp, ...] = ()
    helped: int = 0  # b > a
    hurt: int = 0
    same: int = 0
    helped_share: float | None = None
    mean_delta: float | None = None
    test: PairedTest | None = None
    histogram: Histogram | None = None
    a: Distribution | None = None
    b: Distribution | None = None


class Comparison(base.Stored):
    """Two runs over the same apps (e.g. with and without coverage guidance, or single
    versus deliberative judging): paired per app."""

    a: str
    b: str
    a_label: str = "A"
    b_label: str = "B"
    unmatched: int = 0  # apps scored in one run only
    metrics: tuple[MetricComparison, ...] = ()


# ---------------------------------------------------------------- judge robustness


class RankChange(base.Model):
    model: str
    overall_a: float | None
    overall_b: float | None
    rank_a: int | None
    rank_b: int | None
    delta: int | None  # rank B − rank A: negative is a rise


class LevelChange(base.Model):
    """A metric's model-level raw means under A and under B: level and spread."""

    metric: str
    mean_a: float | None
    mean_b: float | None
    std_a: float | None
    std_b: float | None


class Robustness(base.Stored):
    a: str
    b: str
    models: int
    pearson: float | None
    spearman: float | None
    pairs: int
    pairs_kept: int
    pairs_kept_share: float | None
    ranks: tuple[RankChange, ...] = ()
    levels: tuple[LevelChange, ...] = ()


Kind = Literal["agreement", "comparison", "robustness"]
