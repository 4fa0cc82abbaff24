"""Live progress of a run, and the leaderboard printed at its end.

On a terminal: a progress bar with counts by outcome, the rate and the time left.
Elsewhere (CI, logs, Kubernetes): one line per finished app. Display only; it must
not decide anything about the run.
"""

from __future__ import annotations

import collections
import pathlib
import threading
import time
from typing import TextIO

import rich.console
import rich.progress
import rich.table

from iwcbench.pipeline.contracts import artifacts, results

# The few metric columns that fit a terminal; the report shows all of them.
TERMINAL_METRICS = ("coverage_statements", "states", "runtime_errors", "accessibility")
_STYLE = {"evaluated": "green", "black_box": "yellow", "start_failed": "red", "not_runnable": "dim", "error": "magenta"}


def _pct(value: float | None) -> str:
    return "  –  " if value is None else f"{value:5.1f}%"


class Display:
    def __init__(self, stream: TextIO) -> None:
        self.console = rich.console.Console(file=stream, highlight=False)
        self.live = self.console.is_terminal
        self.total = 0
        self.finished = 0
        self.counts: collections.Counter[str] = collections.Counter()
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._bar: rich.progress.Progress | None = None
        self._task: rich.progress.TaskID | None = None  # set with _bar

    def plan(self, total: int) -> None:
        self.total = total
        self.started = time.monotonic()
        if self.live:
            self._bar = rich.progress.Progress(
                rich.progress.SpinnerColumn(),
                rich.progress.TextColumn("[bold]apps"),
                rich.progress.BarColumn(),
                rich.progress.MofNCompleteColumn(),
                rich.progress.TextColumn("{task.fields[counts]}"),
                rich.progress.TimeElapsedColumn(),
                rich.progress.TextColumn("{task.fields[eta]}"),
                console=self.console,
            )
            self._bar.start()
            self._task = self._bar.add_task("apps", total=total, counts="", eta="")
        else:
            self.console.print(f"evaluating {total} apps")

    def _counts_text(self) -> str:
        return "  ".join(f"[{_STYLE.get(k, 'white')}]{k} {v}[/]" for k, v in sorted(self.counts.items()))

    def _eta(self) -> str:
        """Time left from the mean time per finished app so far (apps finish in
        bursts when workers run in parallel; a windowed rate would swing wildly)."""
        left = self.total - self.finished
        if not self.finished or not left:
            return ""
        seconds = int((time.monotonic() - self.started) / self.finished * left)
        return f"~{seconds // 60}:{seconds % 60:02d} left"

    def done(self, result: results.AppResult) -> None:
        with self._lock:
            self.finished += 1
            self.counts[result.outcome] += 1
            cov = result.exploration.coverage.statements
            seconds = result.timings.get("total")
            line = (
                f"[{self.finished}/{self.total}] {result.model}/{result.task_id} "
                f"[{_STYLE.get(result.outcome, 'white')}]{result.outcome}[/] "
                f"stmts {_pct(cov)} states {result.exploration.states}"
                + (f" ({seconds:.1f} s)" if seconds is not None else "")
            )
            if result.outcome != "evaluated":
                line += f" — {result.reason}"
            if result.reused:
                line += f" [dim](reused from {result.reused_from or 'an earlier run'})[/]"
            if self._bar is not None:
                self._bar.console.print(line)
                assert self._task is not None  # added when _bar was made
                self._bar.update(self._task, advance=1, counts=self._counts_text(), eta=self._eta())
            else:
                self.console.print(line)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def print_leaderboard(run: results.RunResults, out: pathlib.Path, stream: TextIO) -> None:
    # Logs and pipes get a wide table rather than one folded into 80 columns.
    console = rich.console.Console(file=stream, highlight=False,
                                   width=None if stream.isatty() else 150)
    ranking = run.ranking
    name = ranking.name if ranking is not None else "overall"
    table = rich.table.Table(title=f"leaderboard: {name}", show_lines=False)
    table.add_column("rank", justify="right")
    table.add_column("band", justify="right")
    table.add_column("model")
    table.add_column(f"{name} z", justify="right", no_wrap=True)  # its name is what a reader looks for
    table.add_column("95 % interval", justify="right", no_wrap=True)
    table.add_column("apps", justify="right")
    table.add_column("outcomes")
    table.add_column("left out", justify="right")
    for name in TERMINAL_METRICS:
        table.add_column(name.replace("_", " "), justify="right")
    for row in run.leaderboard:
        metrics = [row.metrics.get(n) for n in TERMINAL_METRICS]
        table.add_row(
            str(row.rank),
            "–" if row.band is None else str(row.band),
            row.model,
            "–" if row.overall is None else f"{row.overall:+.3f}",
            "–" if row.interval is None else f"{row.interval[0]:+.2f} … {row.interval[1]:+.2f}",
            str(row.apps),
            " ".join(f"{k} {v}" for k, v in sorted(row.outcomes.items())),
            str(row.left_out),
            *["–" if m is None else f"{m:.1f}" for m in metrics],
        )
    console.print(table)
    _print_bands(console, run)
    if ranking is not None:
        _print_ranking(console, ranking)
    for row in run.leaderboard:
        if row.missing_dimensions:
            console.print(f"{row.model}: ranked on fewer dimensions than the others (no score for "
                          f"{', '.join(row.missing_dimensions)})")
    reused = sum(1 for r in run.apps if r.reused)
    if reused:
        console.print(f"reused {reused} of {len(run.apps)} apps: their files, task, settings and tools are those "
                      "their stored results were made from (each names its run in results.json: reused_from)")
    console.print(f"results: {out / artifacts.RESULTS.key}")
    console.print(f"report:  {out / 'report' / 'index.html'}")


def _print_bands(console: rich.console.Console, run: results.RunResults) -> None:
    """Which models tie (one band: their intervals overlap), and the metrics whose run noise
    the intervals could not hold (no spread measured)."""
    bands: dict[int, list[str]] = {}
    for row in run.leaderboard:
        if row.band is not None:
            bands.setdefault(row.band, []).append(row.model)
    for band, models in sorted(bands.items()):
        if len(models) > 1:
            console.print(f"band {band}: {', '.join(models)} tie — their 95 % intervals overlap, so the gap between "
                          "them is within the noise (the apps' bootstrap and each metric's run-to-run spread)")
    unmeasured = [m for m, source in (run.noise.sources if run.noise else {}).items() if source == "unmeasured"]
    if bands and unmeasured:
        console.print(f"no run-to-run spread measured for {', '.join(unmeasured)}: the intervals hold only their "
                      "bootstrap (docs/usage.md)")


def _print_ranking(console: rich.console.Console, ranking: results.Ranking) -> None:
    """What the overall ranks, where requirement satisfaction is measured, and the tasks left out."""
    if ranking.judged_protocols:
        console.print(f"The {ranking.name} ranks {ranking.measures}. For requirement satisfaction, run a judged "
                      "protocol:")
        for protocol in ranking.judged_protocols:
            console.print(f"  - {protocol}")
    if ranking.left_out:
        console.print(f"compared on {ranking.tasks_compared} task{'s' * (ranking.tasks_compared != 1)}; left out "
                      f"(scoring.not_runnable {ranking.not_runnable}; --not-runnable floor floors such apps instead):")
        for task_id, why in ranking.left_out.items():
            console.print(f"  - {task_id}: {why}")
