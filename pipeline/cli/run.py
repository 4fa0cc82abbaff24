"""``iwc run``: evaluate a folder of apps end to end on this machine."""

from __future__ import annotations

import argparse
import pathlib
import sys

from iwcbench.pipeline.cli import options, progress, uitest
from iwcbench.pipeline.kits import telemetry
from iwcbench.pipeline.runs import assistants, forecasting, local
from iwcbench.pipeline.stages import ingesting


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="evaluate apps/<model>/<task_id> end to end")
    options.add_input_options(p)
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--workers", type=int, default=1, help="apps in parallel (default 1)")
    p.add_argument("--resume", action="store_true",
                   help="keep the apps an interrupted run with the same settings already recorded")
    options.add_evaluation_options(p)
    options.add_spending_options(p)
    p.add_argument("--estimate", action="store_true",
                   help="print the expected LLM requests, tokens and dollars per stage for these apps and "
                   "settings, then stop: nothing is sent, nothing is written")
    p.add_argument("--calibrate-from", metavar="RUN",
                   help="with --estimate: tokens per call from this earlier run's results.json (default: the "
                   "calibration sample measured on the example apps)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    config = options.run_settings(args, tasks=args.tasks, apps=args.apps, out=args.out,
                                  workers=args.workers, models=tuple(args.models))
    if not pathlib.Path(config.apps).is_dir():
        raise options.UsageError(f"--apps: no such folder: {config.apps}")
    if not pathlib.Path(config.tasks).is_file():
        raise options.UsageError(f"--tasks: no such file: {config.tasks}")
    if args.estimate:
        try:
            lines, apps, source = forecasting.for_run(config, args.resume, args.calibrate_from)
        except (ingesting.TaskFileError, OSError, ValueError) as exc:
            raise options.UsageError(str(exc)) from None
        forecasting.write(lines, apps, source, sys.stdout)
        return 0
    try:  # before any app: every model named can be called (name, key, endpoint)
        assistants.check_models(config)
    except assistants.ModelProblem as exc:
        raise options.UsageError(str(exc)) from None
    for purpose, model in assistants.blind_purposes(config).items():
        print(f"note: {purpose} is judged on screenshots and {model} reads no images (llm.models): "
              "its scores will be unscored with that reason", file=sys.stderr)
    telemetry.setup("iwc")
    display = progress.Display(stream=sys.stderr)
    try:
        run_results = local.execute(config, on_plan=display.plan, on_done=display.done, resume=args.resume)
    except (ingesting.TaskFileError, local.ResumeMismatch) as exc:
        raise options.UsageError(str(exc)) from None
    except assistants.NoPrice as exc:
        raise options.UsageError(str(exc)) from None
    finally:
        display.close()
    progress.print_leaderboard(run_results, pathlib.Path(config.out), stream=sys.stdout)
    uitest.print_accuracy(run_results, stream=sys.stdout)
    return 0
