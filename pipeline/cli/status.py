"""``iwc status RUN``: an EvaluationRun's phase, counts, cost, leader, results and recent
failures, short; ``--watch`` follows it to its end. The exit code says how it stands
(operator/watching: 0 Succeeded, 1 Failed, 3 not ended, 4 no such run, 75 unreachable).
Argparse only; operator/watching does the work.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import Any, Callable

from iwcbench.operator import watching
from iwcbench.pipeline.kits import cluster as cluster_kit


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="an EvaluationRun's phase, counts, cost, leader, results and failures")
    p.add_argument("run", metavar="RUN", help="the EvaluationRun's name")
    add_run_options(p)
    p.add_argument("-w", "--watch", action="store_true",
                   help="print a line whenever it changes, until it ends (Succeeded or Failed)")
    p.set_defaults(handler=status)


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Where the run is, and how long to wait for it (``iwc status``, ``iwc fetch``)."""
    p.add_argument("-n", "--namespace", help="default: the kubeconfig context's namespace")
    p.add_argument("--interval", type=float, default=5.0, metavar="S", help="seconds between looks (default 5)")
    p.add_argument("--timeout", type=float, metavar="S", help="stop waiting after S seconds (exit 3; default: never)")


def reader(args: argparse.Namespace) -> Callable[[], dict[str, Any]]:
    cluster = cluster_kit.connect()
    namespace = args.namespace or cluster_kit.default_namespace()
    return lambda: watching.read(cluster, namespace, args.run)


def looked_up(args: argparse.Namespace, follow: bool, command: str) -> dict[str, Any] | int:
    """The run (followed to its end when ``follow``), or the exit code of why not."""
    def changed(run: dict[str, Any]) -> None:
        print(f"{datetime.datetime.now():%H:%M:%S}  {watching.summary_line(run)}", flush=True)

    try:
        read = reader(args)
        return watching.follow(read, changed, args.interval, args.timeout) if follow else read()
    except watching.NotFound as exc:
        print(f"iwc {command}: {exc}", file=sys.stderr)
        return watching.EXIT_NOT_FOUND
    except Exception as exc:  # noqa: BLE001 - no kubeconfig, the API server unreachable, refused
        print(f"iwc {command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return watching.EXIT_INFRA


def status(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        print("iwc status: --interval must be positive", file=sys.stderr)
        return watching.EXIT_USAGE
    run = looked_up(args, args.watch, "status")
    if isinstance(run, int):
        return run
    print("\n".join(watching.describe(run, datetime.datetime.now(datetime.timezone.utc))))
    return watching.exit_code(run)
