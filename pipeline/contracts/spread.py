"""Run-to-run noise: how far one app's score moves when the same app is evaluated again.

``RunSpread`` is the file ``hack/bench-repeat --write-spread`` writes and the project
ships (stages/aggregating/spread.json): per metric, the standard deviation of one app's
value over repeated runs, in the metric's unit. ``Noise`` is what a leaderboard's
intervals used, recorded in results.json so a reader can see which figures were measured
and which were not. Pure data: no I/O.
"""

from __future__ import annotations

from typing import Literal

from iwcbench.pipeline.contracts import base

# Where a metric's run-to-run spread came from: ``measured`` by hack/bench-repeat (the
# shipped file), the ``judge_repeats`` of this run's apps (a deliberated dimension's
# final-judge runs), or ``unmeasured`` (0: no noise is invented for it).
SpreadSource = Literal["measured", "judge_repeats", "unmeasured"]
LEVEL = 0.95  # of every leaderboard interval (of the overall and of the rank)


class MetricSpread(base.Model):
    sd: float  # pooled standard deviation of one app's value over the runs, in the metric's unit
    apps: int = 0  # apps scored on the metric in every run
    moved: int = 0  # of them, apps whose value was not the same in every run


class RunSpread(base.Stored):
    """Each metric's run-to-run spread, as hack/bench-repeat measured it."""

    measured: str  # how: the command, the commit, the date, the machine and its load
    runs: int  # runs of the same apps compared
    apps: int  # apps in each run
    metrics: dict[str, MetricSpread] = {}


class Noise(base.Model):
    """The run noise a leaderboard's intervals hold: per weighted metric, the spread
    used (in the metric's unit) and where it came from."""

    spread: dict[str, float] = {}
    sources: dict[str, SpreadSource] = {}
    measured: str = ""  # RunSpread.measured of the shipped file
