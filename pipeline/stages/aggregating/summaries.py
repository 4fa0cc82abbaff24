"""Run-level summaries beside the leaderboard: how instrumentation fared (IWC-Bench
§5.5) and how the judged scores are distributed (level, spread, endpoint concentration:
what Appendix D compares between single-round and deliberative judging).

Pure arithmetic on AppResults; it must not read the store.
"""

from __future__ import annotations

import re
from typing import Sequence

from iwcbench.pipeline.contracts import analyses, metrics, results

# Why an app was black box or never got a copy to serve: first matching pattern wins.
_CAUSES: tuple[tuple[str, str], ...] = (
    (r"^not runnable here", "not runnable here (network or git at build)"),
    (r"needs a build|build frameworks", "build framework not built"),
    (r"failed to parse", "JavaScript that does not parse"),
    (r"no JavaScript", "no JavaScript"),
    (r"no script could be instrumented", "scripts left uninstrumented"),
    (r"archive|symlink|traversal|member|unsafe", "unsafe or broken archive"),
    (r"no start page|index\.html", "no start page"),
    (r"empty", "empty app"),
    (r"timed out|time limit|timeout", "instrumenter over its time limit"),
)


def cause_of(reason: str) -> str:
    for pattern, cause in _CAUSES:
        if re.search(pattern, reason, re.IGNORECASE):
            return cause
    return "other: " + reason.split(":", 1)[0][:60]


def reliability(apps: Sequence[results.AppResult]) -> results.Reliability:
    """Instrumented, black box and failed over the submitted apps, with the causes
    tallied. An app our side failed on (``error``) counts as failed with that cause."""
    counts = {"instrumented": 0, "black_box": 0, "failed": 0}
    causes: dict[str, int] = {}
    apps = [a for a in apps if a.reason != results.NOT_SUBMITTED]
    for app in apps:
        mode = app.instrumentation.mode
        if mode == "instrumented":
            counts["instrumented"] += 1
            continue
        if mode == "black_box":
            counts["black_box"] += 1
            why = app.instrumentation.reason
        else:
            counts["failed"] += 1
            why = app.reason
        cause = "our side failed" if app.outcome in results.OUR_FAULT else cause_of(why)
        causes[cause] = causes.get(cause, 0) + 1
    total = len(apps)
    return results.Reliability(
        apps=total, **counts,
        success_rate=round(100.0 * counts["instrumented"] / total, 2) if total else None,
        causes=dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))))


def judge_scores(apps: Sequence[results.AppResult]) -> dict[str, analyses.Distribution]:
    """The distribution of each judged (LLM) metric over the apps that were judged
    (apps at a floor because they never started are left out: they say nothing about
    the judge)."""
    out = {}
    for m in metrics.TABLE:
        if m.kind != "llm":
            continue
        values = [s.value for a in apps if a.outcome not in results.MODEL_FAULT | results.OUR_FAULT
                  if (s := a.scores.get(m.name)) is not None and s.value is not None]
        if values:
            out[m.name] = analyses.Distribution.of(values)
    return out
