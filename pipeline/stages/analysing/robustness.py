"""Judge robustness: how much a leaderboard changes when the judge changes.

Given the model-level scores of the same evidence under two judges, report Pearson
and Spearman correlations and the share of model pairs that keep their order. Pure:
no I/O, no LLM.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Mapping, Sequence


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
    xs = [float(first[m]) for m in models]  # type: ignore[arg-type]
    ys = [float(second[m]) for m in models]  # type: ignore[arg-type]
    kept = 0
    pairs = 0
    for i, j in itertools.combinations(range(len(models)), 2):
        pairs += 1
        a, b = xs[i] - xs[j], ys[i] - ys[j]
        if (a > 0) == (b > 0) and (a < 0) == (b < 0):
            kept += 1
    return Robustness(len(models), pearson(xs, ys), pearson(ranks(xs), ranks(ys)) if models else None,
                      pairs, kept)
