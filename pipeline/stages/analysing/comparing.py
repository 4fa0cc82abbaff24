"""Two runs over the same apps, compared app by app: the coverage-guidance ablation
(IWC-Bench §5.6, Figure 3: function coverage with and without guidance) and the
single-round versus deliberative judging baseline (Appendix D: paired judged scores,
their level, spread and endpoint concentration).

Pure: two lists of AppResults in, an ``analyses.Comparison`` out. The paired test is
Wilcoxon's signed-rank test (normal approximation with tie correction; zero differences
dropped) beside the exact two-sided sign test.
"""

from __future__ import annotations

import math
from typing import Sequence

from iwcbench.pipeline.contracts import analyses, metrics, results

# Figure 3's bins of function coverage per task.
COVERAGE_BINS: tuple[tuple[str, float, float], ...] = (
    ("<40", -math.inf, 40), ("40–50", 40, 50), ("50–60", 50, 60), ("60–70", 60, 70),
    ("70–80", 70, 80), ("80–90", 80, 90), ("90–100", 90, 100), ("100", 100, math.inf),
)
DEFAULT_METRICS = ("coverage_functions", "coverage_statements", "aesthetics", "usability")
EPS = 1e-9


def _values(apps: Sequence[results.AppResult], metric: str) -> dict[tuple[str, str], float]:
    """(model, task) → the metric's value, for apps that were measured (floors of apps
    that never started say nothing about exploring or judging, so they are left out)."""
    out = {}
    for a in apps:
        if a.outcome in results.MODEL_FAULT or a.outcome in results.OUR_FAULT:
            continue
        score = a.scores.get(metric)
        if score is not None and score.value is not None and math.isfinite(score.value):
            out[(a.model, a.task_id)] = float(score.value)
    return out


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def signed_rank(deltas: Sequence[float]) -> analyses.PairedTest:
    nonzero = [d for d in deltas if abs(d) > EPS]
    n = len(nonzero)
    if n == 0:
        return analyses.PairedTest(n=0)
    order = sorted(range(n), key=lambda i: abs(nonzero[i]))
    ranks = [0.0] * n
    ties_term = 0.0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(abs(nonzero[order[j + 1]]) - abs(nonzero[order[i]])) <= EPS:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        t = j - i + 1
        ties_term += t ** 3 - t
        i = j + 1
    w_plus = sum(r for r, d in zip(ranks, nonzero) if d > 0)
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - ties_term / 48
    z = (w_plus - mean) / math.sqrt(var) if var > 0 else 0.0
    positives = sum(1 for d in nonzero if d > 0)
    return analyses.PairedTest(n=n, w_plus=w_plus, z=round(z, 4),
                               p_value=round(min(1.0, 2 * _normal_sf(abs(z))), 6),
                               sign_test_p=round(sign_test(positives, n), 6))


def sign_test(successes: int, n: int) -> float:
    """Exact two-sided binomial test of ``successes`` of ``n`` against p = 1/2."""
    if n == 0:
        return 1.0
    k = min(successes, n - successes)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def histogram(a: Sequence[float], b: Sequence[float]) -> analyses.Histogram:
    def count(values: Sequence[float]) -> tuple[int, ...]:
        return tuple(sum(1 for v in values if lo <= v < hi) for _, lo, hi in COVERAGE_BINS)
    return analyses.Histogram(bins=tuple(label for label, _, _ in COVERAGE_BINS), a=count(a), b=count(b))


def compare_metric(a: Sequence[results.AppResult], b: Sequence[results.AppResult],
                   metric: str) -> analyses.MetricComparison | None:
    va, vb = _values(a, metric), _values(b, metric)
    keys = sorted(va.keys() & vb.keys())
    if not keys:
        return None
    pairs = tuple(analyses.PairedApp(model=m, task_id=t, a=va[(m, t)], b=vb[(m, t)],
                                       delta=round(vb[(m, t)] - va[(m, t)], 6)) for m, t in keys)
    deltas = [p.delta for p in pairs]
    helped = sum(1 for d in deltas if d > EPS)
    hurt = sum(1 for d in deltas if d < -EPS)
    entry = metrics.find(metric)
    scale_100 = entry is not None and entry.unit in ("%", "0-100")
    return analyses.MetricComparison(
        metric=metric, pairs=pairs, helped=helped, hurt=hurt, same=len(deltas) - helped - hurt,
        helped_share=round(helped / len(deltas), 4), mean_delta=round(sum(deltas) / len(deltas), 4),
        test=signed_rank(deltas),
        histogram=histogram([p.a for p in pairs], [p.b for p in pairs]) if metric.startswith("coverage_") else None,
        a=analyses.Distribution.of(p.a for p in pairs) if scale_100 else None,
        b=analyses.Distribution.of(p.b for p in pairs) if scale_100 else None)


def compare(a: Sequence[results.AppResult], b: Sequence[results.AppResult], *, a_source: str, b_source: str,
            a_label: str = "A", b_label: str = "B",
            metric_names: Sequence[str] = DEFAULT_METRICS) -> analyses.Comparison:
    """Every requested metric that both runs measured, paired by (model, task)."""
    found = [c for m in metric_names if (c := compare_metric(a, b, m)) is not None]
    keys_a = {(x.model, x.task_id) for x in a if x.outcome not in results.OUR_FAULT}
    keys_b = {(x.model, x.task_id) for x in b if x.outcome not in results.OUR_FAULT}
    return analyses.Comparison(a=a_source, b=b_source, a_label=a_label, b_label=b_label,
                               unmatched=len(keys_a ^ keys_b), metrics=tuple(found))
