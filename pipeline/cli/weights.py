"""``iwc weights borda``: Borda-count weights from a preference questionnaire."""

from __future__ import annotations

import argparse
import json
import pathlib

from iwcbench.pipeline.runs import weighting


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("weights", help="metric weights from a preference questionnaire")
    kinds = p.add_subparsers(dest="method", required=True)
    b = kinds.add_parser("borda", help="Borda count over ranked perspectives and metrics (WebCoderBench §4.3)")
    b.add_argument("responses", help="your questionnaire CSV (format: docs/metrics-wcb.md; an example: "
                   "examples/questionnaire.csv). The wcb weight sets are WebCoderBench's Table 6, not a file")
    b.add_argument("--out", required=True, help="weights file to write (read by --weights FILE)")
    b.add_argument("--persona", help="only this persona's responses")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    document = weighting.borda_document(pathlib.Path(args.responses), args.persona)
    out = pathlib.Path(args.out)
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    top = sorted(document["perspectives"].items(), key=lambda x: -x[1])
    print(f"{document['responses']} responses{' of ' + args.persona if args.persona else ''}: "
          + ", ".join(f"{p} {100 * w:.1f} %" for p, w in top) + f" → {out}")
    return 0
