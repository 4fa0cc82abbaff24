"""A tool that fails while the app's time runs out says the time limit cut it short (it
had only what was left), so its metrics' reasons name our budget, not a broken tool."""

from __future__ import annotations

import time

from iwcbench.pipeline.kits import clock
from iwcbench.pipeline.stages import quality
from iwcbench.pipeline.stages.quality import tooling


def test_a_tool_failing_as_the_apps_time_runs_out_names_the_time_limit():
    deadline = clock.Deadline.after(1.2)

    def slow() -> tooling.ToolFailure:
        time.sleep(0.4)
        return tooling.ToolFailure("server.mjs did not answer within 0.2 s; stopped")
    answer = quality._in_time(deadline, quality._Run(), "lighthouse", slow)
    assert answer.reason == ("server.mjs did not answer within 0.2 s; stopped (cut short by the app's time "
                             "limit, app_timeout_s = 1.2 s)")


def test_a_tool_failing_with_time_to_spare_keeps_its_own_reason():
    answer = quality._in_time(clock.Deadline.after(60), quality._Run(), "lighthouse",
                              lambda: tooling.ToolFailure("Chromium crashed"))
    assert answer.reason == "Chromium crashed"


def test_nothing_starts_once_the_apps_time_is_spent():
    answer = quality._in_time(clock.Deadline.after(0.5), quality._Run(), "lighthouse", lambda: {"never": "called"})
    assert answer.reason.startswith("not run: the app's time limit")
