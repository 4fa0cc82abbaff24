"""``iwc compare A B``: two runs over the same apps, paired app by app — the
coverage-guidance ablation (A unguided, B guided) or single-round versus deliberative
judging (A single, B deliberative): per-app differences, Figure 3's histogram, a paired
test, the share of apps B improved."""

from __future__ import annotations

import argparse
import sys

from iwcbench.pipeline.runs import analysing


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="pair two runs of the same apps (guidance ablation, judging protocols)")
    p.add_argument("a", help="the baseline run (folder, store URI or results.json)")
    p.add_argument("b", help="the run compared with it")
    p.add_argument("--labels", nargs=2, default=("A", "B"), metavar=("A", "B"),
                   help="names for the two runs in the report, e.g. unguided guided")
    p.add_argument("--into", help="the run whose report shows the comparison (default B)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    found, where = analysing.compare(args.a, args.b, args.labels[0], args.labels[1], args.into)
    print(found.model_dump_json(indent=1))
    lines = []
    for m in found.metrics:
        test = m.test
        p = "n/a" if test is None or test.p_value is None else f"{test.p_value:.4g}"
        lines.append(f"{m.metric}: {len(m.pairs)} apps, {found.b_label} − {found.a_label} mean {m.mean_delta:+.2f}; "
                     f"{m.helped} up, {m.hurt} down, {m.same} same ({100 * (m.helped_share or 0):.1f}% up); "
                     f"Wilcoxon p = {p}")
    lines.append(f"{found.unmatched} apps scored in one run only; stored: {where}")
    print("\n".join(lines), file=sys.stderr)
    return 0
