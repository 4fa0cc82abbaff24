"""``iwc import``: convert a WebGen-Bench or ArtifactsBench file to tasks.jsonl."""

from __future__ import annotations

import argparse
import pathlib

from iwcbench.pipeline.runs import inputs


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="convert a WebGen-Bench or ArtifactsBench file to tasks.jsonl")
    p.add_argument("file")
    p.add_argument("--out", required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    tasks = inputs.load_tasks(args.file, option="file")
    out = pathlib.Path(args.out)
    out.write_text("".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in tasks))
    print(f"wrote {len(tasks)} tasks to {out}")
    return 0
