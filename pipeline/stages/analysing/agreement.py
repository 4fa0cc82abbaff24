"""Human agreement (IWC-Bench §5.3, Table 4): how often the benchmark orders two apps
of the same task as a human did, overall and by the size of the benchmark's score
difference (Δz = |overall z of app A − overall z of app B|).

Votes are pairwise preferences, or per-app ratings turned into preferences within each
task. A human tie and a benchmark tie are counted apart and left out of the rate; a vote
naming an app the results do not have (or that has no overall) is counted as unmatched.
Pure: votes and app overalls in, an ``analyses.Agreement`` out.
"""

from __future__ import annotations

import itertools
import random
from typing import Iterable, Mapping, Sequence

from iwcbench.pipeline.contracts import analyses

BOOTSTRAP = 2000
TIE = 1e-9  # overalls closer than this are a benchmark tie
SHOWN_DISAGREEMENTS = 10


def pairs_from(votes: Iterable[analyses.PairVote | analyses.RatingVote]) -> list[analyses.PairVote]:
    """Every preference the votes express: pair votes as they are, ratings of one task
    as all pairs of its rated models (the higher mean rating wins, equal ones tie)."""
    pairs: list[analyses.PairVote] = []
    ratings: dict[str, dict[str, list[float]]] = {}  # task → model → ratings (several raters)
    for vote in votes:
        if isinstance(vote, analyses.PairVote):
            pairs.append(vote)
        else:
            ratings.setdefault(vote.task, {}).setdefault(vote.model, []).append(vote.score)
    for task, by_model in sorted(ratings.items()):
        means = {m: sum(v) / len(v) for m, v in by_model.items()}
        for x, y in itertools.combinations(sorted(means), 2):
            winner = "tie" if means[x] == means[y] else (x if means[x] > means[y] else y)
            pairs.append(analyses.PairVote(task=task, model_a=x, model_b=y, winner=winner))
    return pairs


def _band_of(dz: float, bounds: Sequence[float]) -> int:
    index = 0
    for i, lower in enumerate(bounds):
        if dz >= lower:
            index = i
    return index


def agreement(pairs: Sequence[analyses.PairVote], overall: Mapping[tuple[str, str], float | None],
              votes_source: str = "", results_source: str = "",
              bounds: Sequence[float] = analyses.DZ_BANDS, bootstrap: int = BOOTSTRAP,
              seed: int = 0) -> analyses.Agreement:
    """``overall`` maps (model, task) to the app's overall z."""
    compared: list[tuple[float, bool, analyses.PairVote]] = []  # (Δz, agreed, vote)
    human_ties = benchmark_ties = 0
    unmatched: list[str] = []
    for vote in pairs:
        za, zb = overall.get((vote.model_a, vote.task)), overall.get((vote.model_b, vote.task))
        if za is None or zb is None:
            missing = [m for m, z in ((vote.model_a, za), (vote.model_b, zb)) if z is None]
            unmatched.append(f"{vote.task}: no overall for {', '.join(missing)}")
            continue
        if vote.winner == "tie":
            human_ties += 1
            continue
        if abs(za - zb) < TIE:
            benchmark_ties += 1
            continue
        benchmark_winner = vote.model_a if za > zb else vote.model_b
        compared.append((abs(za - zb), benchmark_winner == vote.winner, vote))

    bands = []
    for i, lower in enumerate(bounds):
        upper = bounds[i + 1] if i + 1 < len(bounds) else None
        within = [ok for dz, ok, _ in compared if _band_of(dz, bounds) == i]
        above = [ok for dz, ok, _ in compared if dz >= lower]
        bands.append(analyses.Band(
            lower=lower, upper=upper, n=len(within), agree=sum(within),
            rate=round(sum(within) / len(within), 4) if within else None,
            cumulative_n=len(above), cumulative_agree=sum(above),
            cumulative_rate=round(sum(above) / len(above), 4) if above else None))
    agreed = sum(ok for _, ok, _ in compared)
    rate = round(agreed / len(compared), 4) if compared else None
    worst = sorted((c for c in compared if not c[1]), key=lambda c: -c[0])[:SHOWN_DISAGREEMENTS]
    return analyses.Agreement(
        votes=votes_source, results=results_source, pairs=len(pairs), compared=len(compared),
        agree=agreed, rate=rate, interval=_interval([ok for _, ok, _ in compared], bootstrap, seed),
        human_ties=human_ties, benchmark_ties=benchmark_ties, unmatched=len(unmatched),
        unmatched_examples=tuple(unmatched[:5]), bands=tuple(bands),
        disagreements=tuple({"task": v.task, "human": v.winner,
                             "benchmark": v.model_a if v.winner == v.model_b else v.model_b,
                             "dz": round(dz, 4)} for dz, _, v in worst))


def _interval(outcomes: Sequence[bool], n: int, seed: int) -> tuple[float, float] | None:
    """Percentile bootstrap 95 % interval of the agreement rate (pairs resampled)."""
    if not outcomes or n < 1:
        return None
    rng = random.Random(seed)
    size = len(outcomes)
    rates = sorted(sum(outcomes[rng.randrange(size)] for _ in range(size)) / size for _ in range(n))
    return round(rates[int(0.025 * (n - 1))], 4), round(rates[int(round(0.975 * (n - 1)))], 4)
