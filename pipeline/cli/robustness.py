"""``iwc robustness``: how much a leaderboard moves between two result sets of the same
evidence (e.g. two judges): Pearson, Spearman, model pairs that keep their order."""

from __future__ import annotations

import argparse
import json
import sys

from iwcbench.pipeline.runs import finishing
from iwcbench.pipeline.stages.analysing import robustness


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("robustness", help="compare two result sets of the same evidence")
    p.add_argument("a")
    p.add_argument("b")
    p.set_defaults(handler=run)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run(args: argparse.Namespace) -> int:
    found = robustness.compare(finishing.read_leaderboard(args.a), finishing.read_leaderboard(args.b))
    print(json.dumps({"models": found.models, "pearson": found.pearson, "spearman": found.spearman,
                      "pairs": found.pairs, "pairs_kept": found.pairs_kept,
                      "pairs_kept_share": found.pairs_kept_share}))
    print(f"{found.models} models · Pearson {_fmt(found.pearson)} · Spearman {_fmt(found.spearman)} · "
          f"{found.pairs_kept} of {found.pairs} model pairs keep their order ({_fmt(found.pairs_kept_share)})",
          file=sys.stderr)
    return 0
