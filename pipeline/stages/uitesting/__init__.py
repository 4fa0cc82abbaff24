"""UI testing: WebGen-Bench's evaluator on one app, from what the GUI agent recorded.

The agent itself is a policy of the explore stage (exploring/uitest_policy.py; replays
are played by exploring/replay_policy.py), driven by runs/uitests.py once per test case
on a fresh page. This stage holds what is made of its records:

* ``cases`` — a test case's ``CaseResult`` (the verdict with its cited steps and
  screenshots, or None with the reason), and the app's scores ``uitest_accuracy`` and
  ``uitest_passed`` (the metric table's rows with producer "uitesting");
* ``replays`` — the replay of a passing case (actions with robust element
  identities, the end state as a DOM normal form digest and the text the test made
  appear), its cache key, and the check of a replay run against an app;
* ``appearance`` — the vision judge's 1–5 appearance score.

Model-level Accuracy is aggregation's (stages/aggregating/webgen.py). This stage never
drives a browser and never imports another stage; what it needs from one (a DOM's
normal form digest) it is handed.
"""

from __future__ import annotations

from iwcbench.pipeline.stages.uitesting import appearance, cases, replays

__all__ = ["appearance", "cases", "replays"]
