"""``iwc schema``: print the JSON Schema of results.json."""

from __future__ import annotations

import argparse
import json

from iwcbench.pipeline.contracts import results


def add(sub: argparse._SubParsersAction) -> None:
    sub.add_parser("schema", help="print the JSON Schema of results.json").set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print(json.dumps(results.RunResults.model_json_schema(), indent=2))
    return 0
