"""``iwc uitest``: WebGen-Bench's UI test cases on one app, and replays without an LLM.

    iwc uitest APP --task ID --tasks FILE [--judge MODEL | --uitest-model MODEL] [--out DIR]
    iwc uitest replay APP --task ID --tasks FILE --from RUN [--app-model M] [--out DIR]

The first runs the GUI agent on each test case of task ID (exit 0; verdicts printed);
the second re-runs the replays RUN stored for task ID against APP and exits 1 when one
no longer reaches its end state. Also prints the Accuracy table ``iwc run`` shows.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import TextIO

import rich.console
import rich.table

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import results, task
from iwcbench.pipeline.runs import inputs, uitest_folder, uitests as uitest_run

EXIT_REPLAY_FAILED = 1


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("uitest", help="run a task's UI test cases on one app (or: uitest replay APP)",
                       description="iwc uitest APP --task ID: the GUI agent runs each UI test case; "
                                   "iwc uitest replay APP --task ID --from RUN: stored replays, no LLM.")
    p.add_argument("app", help="the app folder or archive; or the word 'replay' followed by it")
    p.add_argument("replay_app", nargs="?", help=argparse.SUPPRESS)
    p.add_argument("--task", required=True, help="task id (its ui_tests are run)")
    p.add_argument("--tasks", required=True, help="tasks.jsonl holding the task (WebGen-Bench files accepted)")
    p.add_argument("--out", help="output folder for evidence and replays (default ./iwc-uitest/TASK)")
    p.add_argument("--model", default="app", help="name the app's model is recorded under (default app)")
    p.add_argument("--from", dest="source", help="replay: the run folder (or URI) whose replays to use")
    p.add_argument("--app-model", help="replay: only replays recorded on this model's app")
    p.add_argument("--llm-cache", help="LLM response cache folder (default OUT/llm-cache)")
    options.add_evaluation_options(p)
    p.set_defaults(handler=run)


def _task(args: argparse.Namespace) -> task.Task:
    found = {t.id: t for t in inputs.load_tasks(args.tasks)}
    if args.task not in found:
        raise options.UsageError(f"--task: no task {args.task!r} in {args.tasks}")
    if not found[args.task].ui_tests:
        raise options.UsageError(f"--task: task {args.task!r} has no UI test cases")
    return found[args.task]


def run(args: argparse.Namespace) -> int:
    replaying = args.app == "replay" and args.replay_app is not None
    if args.replay_app is not None and not replaying:
        raise options.UsageError(f"unexpected argument {args.replay_app!r} (did you mean: iwc uitest replay APP?)")
    path = pathlib.Path(args.replay_app if replaying else args.app)
    if not path.exists():
        raise options.UsageError(f"no such app folder or archive: {path}")
    item = _task(args)
    evaluation = options.evaluation(args)
    out = args.out or str(pathlib.Path("iwc-uitest") / item.id)
    console = _console(sys.stdout)
    if replaying:
        if not args.source:
            raise options.UsageError("iwc uitest replay needs --from RUN (the run whose replays to use)")
        found = uitest_folder.replay_folder(path, item, evaluation, args.source, out, args.model,
                                            args.app_model, getattr(args, "mirror_dir", None))
        return _print_checks(found, args.source, console)
    found = uitest_folder.test_folder(path, item, evaluation, out, args.model,
                                      getattr(args, "mirror_dir", None), args.llm_cache)
    if found.start_failure is not None:
        console.print(f"{item.id}: the app did not start: {found.start_failure} (every test case counts NO)")
        return 0
    assert found.tested is not None
    _print_cases(found.tested, console)
    console.print(f"evidence: {pathlib.Path(out) / found.app.key}")
    if found.usage is not None:
        console.print(f"LLM: {found.usage.calls} calls, {found.usage.input_tokens} input and "
                      f"{found.usage.output_tokens} output tokens")
    return 0


def _console(stream: TextIO) -> rich.console.Console:
    return rich.console.Console(file=stream, highlight=False, width=None if stream.isatty() else 150)


def _print_cases(tested: uitest_run.Tested, console: rich.console.Console) -> None:
    table = rich.table.Table(title=f"UI test cases of {tested.report.task_id}")
    for name in ("#", "verdict", "steps", "test", "justification or reason"):
        table.add_column(name, justify="right" if name in ("#", "steps") else "left")
    for case in tested.report.cases:
        table.add_row(str(case.index + 1), case.verdict or "unscored", str(case.steps), case.task,
                      case.justification or case.reason)
    console.print(table)
    for name in ("uitest_accuracy", "uitest_instruction_accuracy", "uitest_passed", "appearance"):
        score = tested.scores.get(name)
        if score is not None:
            shown = "unscored" if score.value is None else f"{score.value:.1f} {score.unit}"
            console.print(f"{name}: {shown} — {score.reason}")


def _print_checks(found: uitest_folder.Outcome, source: str, console: rich.console.Console) -> int:
    if found.start_failure is not None:
        console.print(f"the app did not start: {found.start_failure}")
        return EXIT_REPLAY_FAILED
    if not found.checks:
        console.print(f"no stored replay of task {found.app.task_id} in {source}")
        return options.EXIT_CONFIG
    table = rich.table.Table(title=f"replays of {found.app.task_id} from {source}")
    for name in ("#", "result", "steps", "s", "recorded on", "reason"):
        table.add_column(name, justify="right" if name in ("#", "steps", "s") else "left")
    for check in found.checks:
        table.add_row(str(check.case_index + 1), "passed" if check.passed else "FAILED", str(check.steps),
                      f"{check.duration_s:.1f}", check.recorded_on, check.reason)
    console.print(table)
    failed = sum(1 for c in found.checks if not c.passed)
    console.print(f"{len(found.checks) - failed} of {len(found.checks)} replays reach their end state")
    return EXIT_REPLAY_FAILED if failed else 0


def _cell(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def print_accuracy(run: results.RunResults, stream: TextIO) -> None:
    """WebGen-Bench's Accuracy per model, when the run had tasks with UI test cases."""
    if not run.ui_tests:
        return
    console = _console(stream)
    table = rich.table.Table(title="WebGen-Bench UI tests (start failures count as NO)")
    for name in ("model", "accuracy % (instructions)", "case-level accuracy %", "start failures",
                 "accuracy started %", "case-level started %", "YES/PARTIAL/NO cases", "page did not load",
                 "unscored", "appearance 1-5"):
        table.add_column(name, justify="left" if name == "model" else "right")
    for row in run.ui_tests:
        c = row.cases
        table.add_row(row.model, _cell(row.instruction_accuracy), _cell(row.accuracy),
                      f"{row.start_failures} of {row.instructions}", _cell(row.started_instruction_accuracy),
                      _cell(row.started_accuracy), f"{c.yes}/{c.partial}/{c.no}", str(row.page_failures),
                      str(row.unscored_cases), _cell(row.appearance, 2))
    console.print(table)
    for row in run.ui_tests:
        if row.instruction_accuracy is None:
            console.print(f"{row.model}: {row.reason}")
