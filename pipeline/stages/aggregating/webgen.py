"""WebGen-Bench's model-level numbers: Accuracy over test cases and over instructions.

Pure arithmetic on AppResults and the tasks (which say how many UI test cases each
instruction has and their categories); it reads no store and scores nothing itself.

For each model, over the tasks that have UI test cases:

* **instruction-level Accuracy**, the card's primary metric (its recipe): an instruction
  is YES when all its cases are YES, PARTIAL when at least one is YES or PARTIAL, NO
  otherwise; Accuracy = (YES + 0.5 · PARTIAL) / instructions × 100;
* **case-level Accuracy** beside it: a case counts YES 1, PARTIAL 0.5, NO 0, Σ credit /
  cases × 100, pooled over all the model's cases (never a mean of per-app figures);
* an app that never started (outcome ``start_failed``, which includes a task the model
  submitted no app for) counts NO for every case and as a NO instruction; both figures
  are also given over *started* apps only, beside the number of start failures, so
  that environment and app can be told apart;
* a case whose page did not load for the agent is NO (the app did not serve what the
  case needs), in both figures, and counted apart (``page_failures``);
* unscored cases (no LLM, an unusable reply) are left out, never read as NO; an
  instruction with an unscored case is left out of the instruction level; apps with
  outcome ``error`` (our side failed) are left out entirely and counted;
* apps that cannot run in this environment (``not_runnable``) follow the leaderboard's
  common-task rule (``aggregating.left_out``, the one place it is decided): by default
  their task is left out for every model, so our gap lifts and lowers no model's
  Accuracy; with ``floor`` such an app counts as a start failure, as it ranks there;
* ``unscored_reason`` (the run had no LLM for the agent): every figure is unscored with
  that reason, start failures are still counted;
* breakdowns: the cases by the task's ``primary_category`` (``labels.category``) and by
  the case's ``task_category`` (its primary part), start failures as NO;
* appearance: the mean of the apps' scored ``appearance`` (1–5).
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Collection, Iterable, Mapping, Sequence

from iwcbench.pipeline.contracts import results, settings, task, uitests
from iwcbench.pipeline.stages import aggregating

UNCATEGORISED = "(no category)"


class _Tally:
    def __init__(self) -> None:
        self.counts = {v: 0 for v in uitests.VERDICTS}

    def add(self, verdict: str) -> None:
        self.counts[verdict] += 1

    def slice(self, scored: bool = True) -> results.AccuracySlice:
        n = sum(self.counts.values())
        credit = sum(uitests.CREDIT[v] * k for v, k in self.counts.items())
        return results.AccuracySlice(counted=n, yes=self.counts["YES"], partial=self.counts["PARTIAL"],
                                     no=self.counts["NO"],
                                     accuracy=round(credit / n * 100, 4) if n and scored else None)


def _verdicts(app: results.AppResult | None, item: task.Task) -> list[str | None] | None:
    """Per case: the verdict; None for the whole app when it never started (a not-runnable
    app reaches here only when it is floored, as a start failure)."""
    if app is None or app.outcome == "start_failed" or app.outcome in results.NOT_RUNNABLE_HERE:
        return None
    found = {o.index: o.verdict for o in app.ui_tests}
    return [found.get(i) for i in range(len(item.ui_tests))]


@dataclasses.dataclass
class _Count:
    """One model's verdicts as they are counted, task by task."""

    all_cases: _Tally = dataclasses.field(default_factory=_Tally)
    started_cases: _Tally = dataclasses.field(default_factory=_Tally)
    all_inst: _Tally = dataclasses.field(default_factory=_Tally)
    started_inst: _Tally = dataclasses.field(default_factory=_Tally)
    by_primary: dict[str, _Tally] = dataclasses.field(default_factory=dict)
    by_category: dict[str, _Tally] = dataclasses.field(default_factory=dict)
    start_failures: int = 0
    errors: int = 0
    not_runnable: int = 0
    left_out: int = 0  # instructions of tasks the comparison leaves out (not every model's app ran)
    floored: int = 0  # not-runnable apps counted as start failures (the floor setting)
    unscored: int = 0
    instructions: int = 0
    page_failures: int = 0
    reasons: list[str] = dataclasses.field(default_factory=list)

    def add(self, item: task.Task, app: results.AppResult | None, left_out: bool) -> None:
        """One task with UI test cases, and the model's app for it (None: never submitted);
        ``left_out``: the task is out of the comparison for every model."""
        here = app is not None and app.outcome in results.NOT_RUNNABLE_HERE
        self.not_runnable += here
        if left_out:
            self.left_out += 1
            return
        self.floored += here
        if app is not None and app.outcome == "error":
            self.errors += 1
            return
        self.instructions += 1
        verdicts = _verdicts(app, item)
        started = verdicts is not None
        if verdicts is None:
            self.start_failures += 1
            verdicts = ["NO"] * len(item.ui_tests)
        primary = self.by_primary.setdefault(item.labels.category or UNCATEGORISED, _Tally())
        for test, verdict in zip(item.ui_tests, verdicts):
            if verdict is None:
                self.unscored += 1
                continue
            self.all_cases.add(verdict)
            primary.add(verdict)
            self.by_category.setdefault(test.primary_category or UNCATEGORISED, _Tally()).add(verdict)
            if started:
                self.started_cases.add(verdict)
        whole = uitests.instruction_verdict(verdicts)
        if whole is not None:
            self.all_inst.add(whole)
            if started:
                self.started_inst.add(whole)
        if app is not None and started:
            self.reasons += [o.reason for o in app.ui_tests if o.verdict is None and o.reason]
            self.page_failures += sum(1 for o in app.ui_tests if o.page_failed and o.verdict == "NO")

    def reason(self, scored: bool, unscored_reason: str | None) -> str:
        """What was counted, or why the figures are unscored."""
        if unscored_reason is not None:
            return unscored_reason
        if not scored:
            common = list(dict.fromkeys(self.reasons))
            return (common[0] if len(common) == 1 else "; ".join(common[:3])) if common else \
                "unscored: no UI test case was run"
        failures, unscored, errors, pages, aside, floored = (self.start_failures, self.unscored, self.errors,
                                                              self.page_failures, self.left_out, self.floored)
        return (f"{self.all_cases.slice().counted} test cases of {self.instructions} instructions, "
                f"{failures} start failure{'s' if failures != 1 else ''} counted as NO"
                + (f" ({floored} not runnable here)" if floored else "")
                + (f", {pages} case{'s' if pages != 1 else ''} NO because the page did not load" if pages else "")
                + (f", {unscored} unscored case{'s' if unscored != 1 else ''} left out" if unscored else "")
                + (f", {errors} app{'s' if errors != 1 else ''} left out (our side failed)" if errors else "")
                + (f", {aside} task{'s' if aside != 1 else ''} left out for every model (not every model's "
                   f"app ran)" if aside else ""))


def model_row(model: str, apps: Mapping[str, results.AppResult], tasks: Sequence[task.Task],
              unscored_reason: str | None = None, left_out: Collection[str] = ()) -> results.UITestRow:
    """The row of one model; ``apps`` by task id (a task without one never started);
    ``left_out``: the tasks out of the comparison for every model (``accuracy_table``'s)."""
    count = _Count()
    for item in tasks:
        if item.ui_tests:
            count.add(item, apps.get(item.id), item.id in left_out)
    # start failures alone make a figure only when nothing started (then it is 0 whoever
    # judges); otherwise some case of a started app must have been judged
    ran = sum(count.started_cases.counts.values()) > 0
    scored = unscored_reason is None and count.instructions > 0 and (ran or count.start_failures == count.instructions)
    appearance = [s.value for a in apps.values() if a.outcome != "error" and a.task_id not in left_out
                  and (s := a.scores.get("appearance")) is not None and s.value is not None]
    cases = count.all_cases.slice(scored)
    inst = count.all_inst.slice(scored)
    return results.UITestRow(
        model=model, accuracy=cases.accuracy, instruction_accuracy=inst.accuracy,
        started_accuracy=count.started_cases.slice(scored).accuracy,
        started_instruction_accuracy=count.started_inst.slice(scored).accuracy,
        reason=count.reason(scored, unscored_reason), instructions=count.instructions,
        start_failures=count.start_failures, errors=count.errors, not_runnable=count.not_runnable,
        cases=cases, instruction_counts=inst, unscored_cases=count.unscored, page_failures=count.page_failures,
        by_primary_category={k: v.slice(scored) for k, v in sorted(count.by_primary.items())},
        by_task_category={k: v.slice(scored) for k, v in sorted(count.by_category.items())},
        appearance=round(statistics.fmean(appearance), 4) if appearance and unscored_reason is None else None,
        appearance_apps=len(appearance))


def accuracy_table(apps: Iterable[results.AppResult], tasks: Sequence[task.Task],
                   unscored_reason: str | None = None,
                   not_runnable: settings.NotRunnablePolicy = aggregating.COMMON_TASKS,
                   ) -> tuple[results.UITestRow, ...]:
    """One row per model that was given a task with UI test cases, by model name, on the
    tasks the leaderboard compares (``not_runnable``: settings.Scoring.not_runnable)."""
    if not any(t.ui_tests for t in tasks):
        return ()
    apps = list(apps)
    aside = aggregating.left_out(apps, not_runnable)
    by_model: dict[str, dict[str, results.AppResult]] = {}
    for app in apps:
        by_model.setdefault(app.model, {})[app.task_id] = app
    return tuple(model_row(m, by_model[m], tasks, unscored_reason, aside) for m in sorted(by_model))


def model_values(rows: Iterable[results.UITestRow]) -> dict[str, dict[str, float | None]]:
    """Model → each pooled UI-test metric's value (metric table aggregations
    ``pooled_cases`` and ``pooled_instructions``): what the leaderboard's rows hold for them."""
    out: dict[str, dict[str, float | None]] = {}
    for row in rows:
        cases = row.cases
        passed = round(cases.yes / cases.counted * 100, 4) if cases.accuracy is not None and cases.counted else None
        out[row.model] = {"uitest_accuracy": row.accuracy, "uitest_instruction_accuracy": row.instruction_accuracy,
                          "uitest_passed": passed}
    return out
