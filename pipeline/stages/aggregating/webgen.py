"""WebGen-Bench's model-level numbers: Accuracy over test cases and over instructions.

Pure arithmetic on AppResults and the tasks (which say how many UI test cases each
instruction has and their categories); it reads no store and scores nothing itself.

For each model, over the tasks that have UI test cases:

* a case counts YES 1, PARTIAL 0.5, NO 0; **Accuracy** = Σ credit / cases × 100
  (WebGen-Bench's headline);
* **instruction-level Accuracy** (the seed card's recipe): an instruction is YES when
  all its cases are YES, PARTIAL when at least one is YES or PARTIAL, NO otherwise;
  Accuracy = (YES + 0.5 · PARTIAL) / instructions × 100;
* an app that never started (outcome ``start_failed``, which includes a task the model
  submitted no app for) counts NO for every case and as a NO instruction; both figures
  are also given over *started* apps only, beside the number of start failures, so
  that environment and app can be told apart;
* unscored cases (no LLM, an unusable reply) are left out, never read as NO; an
  instruction with an unscored case is left out of the instruction level; apps with
  outcome ``error`` (our side failed) are left out entirely and counted;
* ``unscored_reason`` (the run had no LLM for the agent): every figure is unscored with
  that reason, start failures are still counted;
* breakdowns: the cases by the task's ``primary_category`` (``labels.category``) and by
  the case's ``task_category`` (its primary part), start failures as NO;
* appearance: the mean of the apps' scored ``appearance`` (1–5).
"""

from __future__ import annotations

import statistics
from typing import Iterable, Mapping, Sequence

from iwcbench.pipeline.contracts import results, task, uitests

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


def instruction_verdict(verdicts: Sequence[str | None]) -> str | None:
    """One instruction from its cases' verdicts (None: one of them is unscored)."""
    if not verdicts or any(v is None for v in verdicts):
        return None
    if all(v == "YES" for v in verdicts):
        return "YES"
    if any(v in ("YES", "PARTIAL") for v in verdicts):
        return "PARTIAL"
    return "NO"


def _verdicts(app: results.AppResult | None, item: task.Task) -> list[str | None] | None:
    """Per case: the verdict; None for the whole app when it never started."""
    if app is None or app.outcome == "start_failed":
        return None
    found = {o.index: o.verdict for o in app.ui_tests}
    return [found.get(i) for i in range(len(item.ui_tests))]


def model_row(model: str, apps: Mapping[str, results.AppResult], tasks: Sequence[task.Task],
              unscored_reason: str | None = None) -> results.UITestRow:
    """The row of one model; ``apps`` by task id (a task without one never started)."""
    all_cases, started_cases = _Tally(), _Tally()
    all_inst, started_inst = _Tally(), _Tally()
    by_primary: dict[str, _Tally] = {}
    by_category: dict[str, _Tally] = {}
    start_failures = errors = unscored = instructions = 0
    reasons: list[str] = []
    for item in tasks:
        if not item.ui_tests:
            continue
        app = apps.get(item.id)
        if app is not None and app.outcome == "error":
            errors += 1
            continue
        instructions += 1
        verdicts = _verdicts(app, item)
        started = verdicts is not None
        if not started:
            start_failures += 1
            verdicts = ["NO"] * len(item.ui_tests)
        primary = by_primary.setdefault(item.labels.category or UNCATEGORISED, _Tally())
        for test, verdict in zip(item.ui_tests, verdicts):
            if verdict is None:
                unscored += 1
                continue
            all_cases.add(verdict)
            primary.add(verdict)
            by_category.setdefault(test.primary_category or UNCATEGORISED, _Tally()).add(verdict)
            if started:
                started_cases.add(verdict)
        whole = instruction_verdict(verdicts)
        if whole is not None:
            all_inst.add(whole)
            if started:
                started_inst.add(whole)
        if app is not None and started:
            reasons += [o.reason for o in app.ui_tests if o.verdict is None and o.reason]
    # start failures alone make a figure only when nothing started (then it is 0 whoever
    # judges); otherwise some case of a started app must have been judged
    ran = sum(started_cases.counts.values()) > 0
    scored = unscored_reason is None and instructions > 0 and (ran or start_failures == instructions)
    if unscored_reason is not None:
        reason = unscored_reason
    elif not scored:
        common = list(dict.fromkeys(reasons))
        reason = (common[0] if len(common) == 1 else "; ".join(common[:3])) if common else \
            "unscored: no UI test case was run"
    else:
        reason = (f"{all_cases.slice().counted} test cases of {instructions} instructions, "
                  f"{start_failures} start failure{'s' if start_failures != 1 else ''} counted as NO"
                  + (f", {unscored} unscored case{'s' if unscored != 1 else ''} left out" if unscored else "")
                  + (f", {errors} app{'s' if errors != 1 else ''} left out (our side failed)" if errors else ""))
    appearance = [s.value for a in apps.values() if a.outcome != "error"
                  and (s := a.scores.get("appearance")) is not None and s.value is not None]
    cases = all_cases.slice(scored)
    inst = all_inst.slice(scored)
    return results.UITestRow(
        model=model, accuracy=cases.accuracy, instruction_accuracy=inst.accuracy,
        started_accuracy=started_cases.slice(scored).accuracy,
        started_instruction_accuracy=started_inst.slice(scored).accuracy,
        reason=reason, instructions=instructions, start_failures=start_failures, errors=errors,
        cases=cases, instruction_counts=inst, unscored_cases=unscored,
        by_primary_category={k: v.slice(scored) for k, v in sorted(by_primary.items())},
        by_task_category={k: v.slice(scored) for k, v in sorted(by_category.items())},
        appearance=round(statistics.fmean(appearance), 4) if appearance and unscored_reason is None else None,
        appearance_apps=len(appearance))


def accuracy_table(apps: Iterable[results.AppResult], tasks: Sequence[task.Task],
                   unscored_reason: str | None = None) -> tuple[results.UITestRow, ...]:
    """One row per model that was given a task with UI test cases, by model name."""
    if not any(t.ui_tests for t in tasks):
        return ()
    by_model: dict[str, dict[str, results.AppResult]] = {}
    for app in apps:
        by_model.setdefault(app.model, {})[app.task_id] = app
    return tuple(model_row(m, by_model[m], tasks, unscored_reason) for m in sorted(by_model))
