"""``iwc robustness A B``: how much a leaderboard moves between two result sets of the
same evidence (e.g. two judges): Pearson, Spearman, model pairs that keep their order,
each model's rank under both, and each metric's level and spread (IWC-Bench §5.4).

``iwc robustness A --judge MODEL --tasks T`` is the study as one command: A's stored
evidence is judged again by MODEL (any provider: ``google/gemini-2.5-flash``,
``openai/gpt-4o``, a ``vllm/`` model on your GPUs) into a copy B (``--out``; no new
exploration), then A and B are compared."""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import protocols
from iwcbench.pipeline.runs import analysing, assistants, rescoring


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("robustness", help="compare two result sets of the same evidence, or judge one again and compare")
    p.add_argument("a", help="the main judge's run (folder, store URI or results.json)")
    p.add_argument("b", nargs="?", help="the other judge's run (or --judge to make it)")
    p.add_argument("--judge", metavar="PROVIDER/MODEL",
                   help=f"judge A's evidence again with this model into --out, then compare (IWC-Bench's second "
                   f"judge: {protocols.ROBUSTNESS_JUDGE})")
    p.add_argument("--tasks", help="with --judge: the run's tasks.jsonl")
    p.add_argument("--out", help="with --judge: where the re-judged copy goes (default: A-<model>)")
    p.add_argument("--endpoint", action="append", metavar="PROVIDER=URL", help="base URL of a provider's API")
    p.add_argument("--batch", action="store_true", help="with --judge: through batch APIs (Anthropic's, OpenAI's where "
                   "the endpoint serves it)")
    p.add_argument("--into", help="the run whose report shows the comparison (default B)")
    p.set_defaults(handler=run)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _second_run(args: argparse.Namespace) -> str:
    if args.b and args.judge:
        raise options.UsageError("robustness: give B or --judge, not both")
    if not args.judge:
        if not args.b:
            raise options.UsageError("robustness: give B, or --judge MODEL --tasks TASKS to make it")
        return args.b
    if not args.tasks:
        raise options.UsageError("--tasks: --judge re-judges the run's evidence and needs its tasks")
    a = pathlib.Path(args.a)
    out = args.out or str(a.parent / f"{a.name}-{re.sub(r'[^A-Za-z0-9.-]+', '-', args.judge)}")
    try:
        done = rescoring.rescore(args.a, args.tasks, args.judge, out, batch=args.batch,
                                 endpoints=options.endpoints(args.endpoint))
    except assistants.ModelProblem as exc:
        raise options.UsageError(str(exc)) from None
    usage = done.usage
    spent = "no call" if usage is None else (f"${usage.cost_usd:.4f}" if usage.cost_usd is not None
                                            else f"{usage.input_tokens + usage.output_tokens:,} tokens, no price")
    print(f"judged {done.apps} apps again with {args.judge} into {out} ({spent})", file=sys.stderr)
    return out


def run(args: argparse.Namespace) -> int:
    b = _second_run(args)
    found, where = analysing.robustness_of(args.a, b, args.into)
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
