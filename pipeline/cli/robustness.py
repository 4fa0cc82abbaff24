"""``iwc robustness A B``: how much a leaderboard moves between two result sets of the
same evidence (e.g. two judges): Pearson, Spearman, model pairs that keep their order,
each model's rank under both, and each metric's level and spread (IWC-Bench §5.4)."""

from __future__ import annotations

import argparse
import json
import sys

from iwcbench.pipeline.runs import analysing


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("robustness", help="compare two result sets of the same evidence")
    p.add_argument("a", help="the main judge's run (folder, store URI or results.json)")
    p.add_argument("b", help="the other judge's run")
    p.add_argument("--into", help="the run whose report shows the comparison (default B)")
    p.set_defaults(handler=run)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run(args: argparse.Namespace) -> int:
    found, where = analysing.robustness_of(args.a, args.b, args.into)
    print(json.dumps({"models": found.models, "pearson": found.pearson, "spearman": found.spearman,
                      "pairs": found.pairs, "pairs_kept": found.pairs_kept,
                      "pairs_kept_share": found.pairs_kept_share,
                      "ranks": [r.model_dump(mode="json") for r in found.ranks]}))
    lines = [f"{found.models} models · Pearson {_fmt(found.pearson)} · Spearman {_fmt(found.spearman)} · "
             f"{found.pairs_kept} of {found.pairs} model pairs keep their order ({_fmt(found.pairs_kept_share)})"]
    for r in found.ranks:
        delta = "" if r.delta is None else f" ({r.delta:+d})"
        lines.append(f"  {r.model}: rank {r.rank_a} → {r.rank_b}{delta}, overall {_fmt(r.overall_a)} → {_fmt(r.overall_b)}")
    lines.append(f"stored: {where}")
    print("\n".join(lines), file=sys.stderr)
    return 0
