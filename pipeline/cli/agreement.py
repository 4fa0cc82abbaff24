"""``iwc agreement RESULTS --votes votes.jsonl``: how often the benchmark orders two
apps of a task as humans did, overall and by Δz band (IWC-Bench Table 4)."""

from __future__ import annotations

import argparse
import sys

from iwcbench.pipeline.runs import analysing


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="agreement with human votes, overall and by Δz band")
    p.add_argument("results", help="a run's folder, store URI or results.json")
    p.add_argument("--votes", required=True,
                   help='votes.jsonl: {"task","model_a","model_b","winner"} or {"task","model","score"} a line')
    p.set_defaults(handler=run)


def _pct(value: float | None) -> str:
    return "  n/a" if value is None else f"{100 * value:5.1f}%"


def run(args: argparse.Namespace) -> int:
    found, where = analysing.agreement(args.results, args.votes)
    print(found.model_dump_json(indent=1))
    interval = (f" (95% interval {_pct(found.interval[0]).strip()}–{_pct(found.interval[1]).strip()})"
                if found.interval else "")
    lines = [f"agreement {found.agree}/{found.compared} = {_pct(found.rate).strip()}{interval}; "
             f"{found.human_ties} human ties, {found.benchmark_ties} benchmark ties, {found.unmatched} unmatched",
             "Δz band          n  agree   rate | cumulative n  agree   rate"]
    for b in found.bands:
        label = f"[{b.lower:g}, {'∞' if b.upper is None else f'{b.upper:g}'})"
        lines.append(f"{label:<12} {b.n:5d} {b.agree:6d} {_pct(b.rate)} | {b.cumulative_n:12d} "
                     f"{b.cumulative_agree:6d} {_pct(b.cumulative_rate)}")
    lines.append(f"stored: {where}")
    print("\n".join(lines), file=sys.stderr)
    return 0
