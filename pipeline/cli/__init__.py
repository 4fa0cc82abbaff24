"""The ``iwc`` command line: argparse only, one module per command. A command module
parses its arguments into settings and calls into ``runs``; it must not hold stage logic.

    iwc run        evaluate a folder of apps end to end on this machine
    iwc app ...    one app's pieces, as the Kubernetes pod runs them
    iwc score      aggregate stored per-app results into results.json + report
    iwc rescore    re-judge stored evidence with another judge (no new exploration)
    iwc checklist  write functional / content / visual criteria for tasks without any
    iwc agreement  agreement with human votes, overall and by Δz band
    iwc compare    two runs of the same apps paired (guidance ablation, judging protocols)
    iwc robustness compare two result sets of the same evidence (two judges)
    iwc uitest     WebGen-Bench's UI test cases on one app; ``uitest replay``: stored replays
    iwc import     convert WebGen-Bench / ArtifactsBench files to tasks.jsonl
    iwc weights    metric weights from a preference questionnaire (Borda count)
    iwc schema     print the JSON Schema of results.json
    iwc submit     upload tasks and apps to S3 and start an EvaluationRun on Kubernetes
    iwc status     an EvaluationRun's phase, counts, cost, leader and failures (--watch: to its end)
    iwc fetch      a finished EvaluationRun's results.json and report (--evidence: and evidence)
    iwc operator   the Kubernetes operator and its helpers
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

import pydantic

from iwcbench.operator import cli as operator_cli
from iwcbench.pipeline.cli import (
    agreement, app, checklist, compare, fetch, imports, options, rescore, robustness, run, schema, score, status,
    submit, uitest, weights,
)
from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.runs import inputs

EXIT_CONFIG = options.EXIT_CONFIG
EXIT_INFRA = options.EXIT_INFRA
COMMANDS = (run, app, score, rescore, checklist, agreement, compare, robustness, imports, schema, uitest, weights,
            submit, status, fetch)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iwc", description="Evaluate LLM-generated web apps (IWC-Bench).")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add(sub)
    sub.add_parser("operator", help="the Kubernetes operator (iwc operator --help)", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["operator"]:
        return operator_cli.main(argv[1:])
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.handler(args)
    except pydantic.ValidationError as exc:
        print(settings_mod.describe_error(exc), file=sys.stderr)
        return EXIT_CONFIG
    except (options.UsageError, inputs.BadInput) as exc:
        print(f"iwc: {exc}", file=sys.stderr)
        return EXIT_CONFIG


if __name__ == "__main__":
    sys.exit(main())
