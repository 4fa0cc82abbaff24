"""The ``iwc`` command line. Thin: parses arguments into settings and calls one
function per command. It must not hold stage logic.

    iwc run        evaluate a folder of apps end to end on this machine
    iwc app ...    one app's pieces, as the Kubernetes pod runs them
    iwc score      aggregate stored per-app results into results.json + report
    iwc rescore    re-judge stored evidence with another judge (no new exploration)
    iwc checklist  write functional / content / visual criteria for tasks without any
    iwc robustness compare two result sets of the same evidence
    iwc import     convert WebGen-Bench / ArtifactsBench files to tasks.jsonl
    iwc schema     print the JSON Schema of results.json
    iwc operator   the Kubernetes operator and its helpers
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

import pydantic

from iwcbench.pipeline import settings as settings_mod

EXIT_CONFIG = 2  # bad configuration or input file: the message names the field
EXIT_INFRA = 75  # EX_TEMPFAIL: our side failed; a retry may succeed (podFailurePolicy)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-steps", type=int, help="actions per app (default 100)")
    p.add_argument("--seed", type=int, help="explorer seed (default 0)")
    p.add_argument("--explorer", choices=["heuristic", "llm", "random"],
                   help="exploration policy (default heuristic; random: the seeded baseline clicker)")
    p.add_argument("--judge", help="LLM judge model, e.g. claude-opus-4-5 (needs ANTHROPIC_API_KEY)")
    p.add_argument("--explorer-model", help="LLM tester model for --explorer llm (default: the judge)")
    p.add_argument("--effort", choices=["low", "medium", "high", "xhigh", "max"],
                   help="reasoning effort for the LLM tester and judges (default: API default)")
    p.add_argument("--app-timeout", type=float, help="seconds for one app's exploration (default 300)")
    p.add_argument("--step-timeout", type=float, help="seconds for one action (default 10)")
    p.add_argument("--no-accessibility", action="store_true", help="skip axe-core")
    p.add_argument("--mirror-dir", help="CDN mirror cache folder")
    p.add_argument("--offline-mirror", action="store_true", help="serve CDN files from the cache only")


def _settings(args: argparse.Namespace, **top) -> settings_mod.RunSettings:
    exploration = {k: v for k, v in {
        "max_steps": args.max_steps, "seed": args.seed, "policy": args.explorer,
        "app_timeout_s": args.app_timeout, "step_timeout_s": args.step_timeout,
        "model": args.explorer_model,
    }.items() if v is not None}
    scoring = {k: v for k, v in {"judge": args.judge, "effort": args.effort}.items() if v}
    if args.no_accessibility:
        scoring["accessibility"] = False
    sandbox = {k: v for k, v in {
        "mirror_dir": args.mirror_dir, "mirror_fetch": False if args.offline_mirror else None,
    }.items() if v is not None}
    return settings_mod.RunSettings.model_validate(
        {**top, "exploration": exploration, "scoring": scoring, "sandbox": sandbox}
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iwc", description="Evaluate LLM-generated web apps (IWC-Bench).")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="evaluate apps/<model>/<task_id> end to end")
    run.add_argument("--tasks", required=True, help="tasks.jsonl (WebGen-Bench / ArtifactsBench files accepted)")
    run.add_argument("--apps", required=True, help="folder holding <model>/<task_id>/ apps")
    run.add_argument("--out", required=True, help="output folder")
    run.add_argument("--workers", type=int, default=1, help="apps in parallel (default 1)")
    run.add_argument("--models", nargs="*", default=(), help="only these models")
    run.add_argument("--resume", action="store_true",
                     help="keep the apps an interrupted run with the same settings already recorded")
    _add_run_options(run)

    app = sub.add_parser("app", help="one app's stages (what a Kubernetes app pod runs)")
    app_sub = app.add_subparsers(dest="app_command", required=True)
    ins = app_sub.add_parser("instrument", help="materialise and instrument one app into WORK/site")
    ins.add_argument("--apps", required=True, help="apps folder or s3:// URI")
    ins.add_argument("--model", required=True)
    ins.add_argument("--task", required=True)
    ins.add_argument("--work", required=True, help="work folder shared with the other containers")
    ins.add_argument("--store", required=True, help="evidence store: folder or s3:// URI")
    srv = app_sub.add_parser("serve", help="serve an instrumented app (long-running)")
    srv.add_argument("--root", required=True)
    srv.add_argument("--port", type=int, default=8080)
    srv.add_argument("--host", default="127.0.0.1")
    exp = app_sub.add_parser("explore", help="explore a served app, score it, store the evidence")
    exp.add_argument("--work", required=True)
    exp.add_argument("--url", required=True)
    exp.add_argument("--store", required=True)
    exp.add_argument("--tasks", required=True)
    exp.add_argument("--model", required=True)
    exp.add_argument("--task", required=True)
    _add_run_options(exp)

    score = sub.add_parser("score", help="aggregate stored results into results.json and the report")
    score.add_argument("--store", required=True)
    score.add_argument("--tasks", required=True)
    score.add_argument("--apps", help="the apps folder or s3:// URI: apps with no result are recorded too")
    score.add_argument("--models", nargs="*", default=(), help="only these models (with --apps)")

    rescore = sub.add_parser("rescore", help="re-judge stored evidence (no new exploration)")
    rescore.add_argument("run", help="a run's output folder or store URI")
    rescore.add_argument("--tasks", required=True)
    rescore.add_argument("--judge", required=True, help="judge model")
    rescore.add_argument("--out", help="write the re-scored run here (default: in place)")

    checklist = sub.add_parser("checklist", help="criteria for tasks that have none (three judges, majority)")
    checklist.add_argument("--tasks", required=True)
    checklist.add_argument("--out", required=True)
    checklist.add_argument("--judges", required=True, help="three judge models, comma-separated")

    robust = sub.add_parser("robustness", help="compare two result sets of the same evidence")
    robust.add_argument("a")
    robust.add_argument("b")

    imp = sub.add_parser("import", help="convert a WebGen-Bench or ArtifactsBench file to tasks.jsonl")
    imp.add_argument("file")
    imp.add_argument("--out", required=True)

    sub.add_parser("schema", help="print the JSON Schema of results.json")
    op = sub.add_parser("operator", help="the Kubernetes operator (iwc operator --help)", add_help=False)
    op.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["operator"]:
        from iwcbench.operator import cli as operator_cli

        return operator_cli.main(argv[1:])
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from iwcbench.pipeline import commands  # heavy imports only once arguments are fine

    try:
        return commands.dispatch(args, _settings)
    except pydantic.ValidationError as exc:
        print(settings_mod.describe_error(exc), file=sys.stderr)
        return EXIT_CONFIG
    except commands.UsageError as exc:
        print(f"iwc: {exc}", file=sys.stderr)
        return EXIT_CONFIG


if __name__ == "__main__":
    sys.exit(main())
