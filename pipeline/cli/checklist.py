"""``iwc checklist``: criteria for tasks that have none (three judges, majority)."""

from __future__ import annotations

import argparse
import pathlib
import sys

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import protocols
from iwcbench.pipeline.runs import checklists


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("checklist", help="criteria for tasks that have none (three judges, majority)")
    p.add_argument("--tasks", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--judges", help="three judge models, comma-separated (provider/model; the first merges); "
                   "default: --seed-protocol's")
    p.add_argument("--settings", help="an evaluation settings document (its llm.endpoints)")
    p.add_argument("--seed-protocol", choices=["iwc"], help="IWC-Bench's proposers: Claude-Opus-4.8, GPT-5.6-Sol, "
                   "Grok-4.5")
    p.add_argument("--endpoint", action="append", metavar="PROVIDER=URL", help="base URL of a provider's API")
    p.add_argument("--batch", action="store_true",
                   help="ask through batch APIs at half price (Anthropic's, OpenAI's where the endpoint serves "
                   "it); run it again after an "
                   "interruption to collect what was submitted")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    evaluation = options.evaluation(args)
    models = ([m.strip() for m in args.judges.split(",") if m.strip()] if args.judges
              else list(protocols.CHECKLIST_PROPOSERS.get(args.seed_protocol or "", ())))
    if not models:
        raise options.UsageError("--judges: name three models (or --seed-protocol iwc)")
    out = pathlib.Path(args.out)
    written, failed = checklists.fill(args.tasks, out, models, evaluation=evaluation, batch=args.batch)
    for task_id, reason in sorted(failed.items()):
        print(f"{task_id}: no checklist: {reason}", file=sys.stderr)
    print(f"wrote {written} tasks ({written - len(failed)} with a checklist) to {out}")
    return 0
