"""``iwc checklist``: criteria for tasks that have none (three judges, majority)."""

from __future__ import annotations

import argparse
import pathlib
import sys

from iwcbench.pipeline.runs import checklists


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("checklist", help="criteria for tasks that have none (three judges, majority)")
    p.add_argument("--tasks", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--judges", required=True, help="three judge models, comma-separated")
    p.add_argument("--batch", action="store_true",
                   help="ask through the Message Batches API at half price; run it again after an "
                   "interruption to collect what was submitted")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    models = [m.strip() for m in args.judges.split(",") if m.strip()]
    out = pathlib.Path(args.out)
    written, failed = checklists.fill(args.tasks, out, models, batch=args.batch)
    for task_id, reason in sorted(failed.items()):
        print(f"{task_id}: no checklist: {reason}", file=sys.stderr)
    print(f"wrote {written} tasks ({written - len(failed)} with a checklist) to {out}")
    return 0
