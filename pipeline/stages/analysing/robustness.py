"""Judge robustness: how much a leaderboard changes when the judge changes (IWC-Bench
§5.4, Appendix B).

Given the leaderboards of the same evidence under two judges: Pearson and Spearman
correlations of the overall scores, the share of model pairs that keep their order,
each model's rank under both (Table 5), and each metric's level and spread of
model-level raw means under both. Pure: no I/O, no LLM.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import analyses, results


@dataclasses.dataclass(frozen=True)
class Robustness:
    models: int
    pearson: float | None  # None when a side has no spread
    spearman: float | None
    pairs: int
    pairs_kept: int

    @property
    def pairs_kept_share(self) -> float | None:
        return self.pairs_kept / self.pairs if self.pairs else None


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def compare(first: Mapping[str, float | None], second: Mapping[str, float | None]) -> Robustness:
    """Compare two judges over the models scored (not None) by both."""
    models = sorted(m for m in first.keys() & second.keys()
                    if first[m] is not None and second[m] is not None)
    xs = [float(first[m]) for m in models]  # type: ignore[arg-type]  # models holds only names scored in both
    ys = [float(second[m]) for m in models]  # type: ignore[arg-type]  # as above
    kept = 0
    pairs = 0
    for i, j in itertools.combinations(range(len(models)), 2):
        pairs += 1
        a, b = xs[i] - xs[j], ys[i] - ys[j]
        if (a > 0) == (b > 0) and (a < 0) == (b < 0):
            kept += 1
    return Robustness(len(models), pearson(xs, ys), pearson(ranks(xs), ranks(ys)) if models else None,
                      pairs, kept)


def _mean_std(values: Sequence[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mu = sum(values) / len(values)
    return round(mu, 4), round(math.sqrt(sum((v - mu) ** 2 for v in values) / len(values)), 4)


def analyse(a: results.RunResults, b: results.RunResults, a_source: str = "A",
            b_source: str = "B") -> analyses.Robustness:
    """Everything above for two result sets, as stored under analyses/robustness.json."""
    rows_a = {r.model: r for r in a.leaderboard}
    rows_b = {r.model: r for r in b.leaderboard}
    found = compare({m: r.overall for m, r in rows_a.items()}, {m: r.overall for m, r in rows_b.items()})
    models = sorted(rows_a.keys() | rows_b.keys(),
                    key=lambda m: (rows_a[m].rank if m in rows_a else 10 ** 6, m))
    ranks = []
    for m in models:
        rank_a = rows_a[m].rank if m in rows_a else None
        rank_b = rows_b[m].rank if m in rows_b else None
        ranks.append(analyses.RankChange(
            model=m, overall_a=rows_a[m].overall if m in rows_a else None,
            overall_b=rows_b[m].overall if m in rows_b else None, rank_a=rank_a, rank_b=rank_b,
            delta=rank_b - rank_a if rank_a is not None and rank_b is not None else None))
    names = sorted({n for r in [*a.leaderboard, *b.leaderboard] for n in r.metrics},
                   key=lambda n: (0 if n.split("@")[0] in {"aesthetics", "usability"} else 1, n))
    levels = []
    for n in names:
        ma, sa = _mean_std([v for r in a.leaderboard if (v := r.metrics.get(n)) is not None])
        mb, sb = _mean_std([v for r in b.leaderboard if (v := r.metrics.get(n)) is not None])
        if ma is not None or mb is not None:
            levels.append(analyses.LevelChange(metric=n, mean_a=ma, mean_b=mb, std_a=sa, std_b=sb))
    return analyses.Robustness(
        a=a_source, b=b_source, models=found.models, pearson=found.pearson, spearman=found.spearman,
        pairs=found.pairs, pairs_kept=found.pairs_kept, pairs_kept_share=found.pairs_kept_share,
        ranks=tuple(ranks), levels=tuple(levels))
