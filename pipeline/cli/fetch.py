"""``iwc fetch RUN``: a finished EvaluationRun's results.json (checked against the digest
in its status) and report, and with ``--evidence`` every app's evidence, into a folder
laid out as ``iwc run``'s output. Argparse only; operator/fetching does the work.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

from iwcbench.operator import fetching, watching
from iwcbench.pipeline.cli import status as status_cli


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fetch", help="download a finished EvaluationRun's results.json and report (and evidence)")
    p.add_argument("run", metavar="RUN", help="the EvaluationRun's name")
    status_cli.add_run_options(p)
    p.add_argument("--out", metavar="DIR", help="where to (default ./RUN)")
    p.add_argument("--evidence", action="store_true", help="every app's evidence too (apps/<model>/<task_id>/)")
    p.add_argument("--wait", action="store_true", help="wait for the run to end first (see --timeout)")
    p.add_argument("--endpoint-url", metavar="URL", help="the S3 endpoint to read from (default: "
                   "AWS_ENDPOINT_URL, else AWS)")
    p.set_defaults(handler=fetch)


def fetch(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        print("iwc fetch: --interval must be positive", file=sys.stderr)
        return watching.EXIT_USAGE
    if args.endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url
    run = status_cli.looked_up(args, args.wait, "fetch")
    if isinstance(run, int):
        return run
    out = pathlib.Path(args.out or args.run)
    try:
        done = fetching.fetch(run, out, evidence=args.evidence)
    except fetching.NotReady as exc:
        print(f"iwc fetch: {exc}", file=sys.stderr)
        return exc.code
    except fetching.DigestMismatch as exc:
        print(f"iwc fetch: {exc}", file=sys.stderr)
        return watching.EXIT_DIGEST
    except Exception as exc:  # noqa: BLE001 - the store unreachable, credentials refused
        print(f"iwc fetch: {type(exc).__name__}: {exc}", file=sys.stderr)
        return watching.EXIT_INFRA
    print(f"{done.copied.describe('downloaded')} into {out}/", file=sys.stderr)
    print(f"{done.results}  (digest checked)\n{out / fetching.REPORT / 'index.html'}")
    return 0
