"""The LLM side of a run, composed: one client per worker process, one ledger per app,
the LLM tester with coverage-plateau guidance, the judges.

It holds no prompt and no judging logic (those are in stages/judging and
stages/exploring/llm_policy); it only builds clients from the settings and hands each
app its typed assistant.
"""

from __future__ import annotations

import pathlib
from typing import Callable

from iwcbench.pipeline.contracts import results, settings as settings_mod, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.runs import app as app_run
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.exploring import guidance, llm_policy


def cache_dir(out: str, llm_cache_dir: str | None) -> str | None:
    """The LLM response cache: the folder asked for, else OUT/llm-cache; none for an
    s3:// OUT without one (there is no local folder to keep it in)."""
    if llm_cache_dir:
        return llm_cache_dir
    return None if out.startswith("s3://") else str(pathlib.Path(out) / "llm-cache")


def client(evaluation: settings_mod.Evaluation, model: str, cache: str | None) -> llm.Client:
    return llm.Client(llm.Config(model=model, effort=evaluation.llm.effort, cache_dir=cache))


def usage_of(ledger: llm.Ledger) -> results.LLMUsage | None:
    """A ledger's totals as the results contract records them (None: no call made)."""
    totals = ledger.totals()
    return results.LLMUsage.model_validate(totals) if totals.get("calls") else None


class AppLLM:
    """The LLM side of one app: its tester policy (or None), its judge, its ledger."""

    def __init__(self, wiring: "Wiring", app_key: str, coverage_map: dict, sources: dict[str, str]) -> None:
        self.ledger = llm.Ledger(app_key)
        self.policy: llm_policy.LLMPolicy | None = None
        self._judging = wiring.evaluation.judging
        if wiring.tester is not None:
            self.policy = llm_policy.LLMPolicy(wiring.tester.derive(ledger=self.ledger))
            if wiring.evaluation.exploration.guidance:
                guidance.guide(self.policy, coverage_map, sources)
        self._judge = wiring.judge.derive(ledger=self.ledger) if wiring.judge is not None else None

    @property
    def judging(self) -> bool:
        return self._judge is not None

    def judge(self, item: task.Task, read: Callable[[str], bytes | None]) -> dict[str, results.Score]:
        return judging.judge_app(item, read, self._judge, self._judging) if self._judge is not None else {}

    def usage(self) -> results.LLMUsage | None:
        return usage_of(self.ledger)


class Wiring:
    """Clients for a worker process, built once from the evaluation's settings."""

    def __init__(self, evaluation: settings_mod.Evaluation, cache: str | None) -> None:
        self.evaluation = evaluation
        judge_model = evaluation.judging.model
        self.judge = client(evaluation, judge_model, cache) if judge_model else None
        tester_model = evaluation.tester_model() if evaluation.exploration.policy == "llm" else None
        self.tester = client(evaluation, tester_model, cache) if tester_model else None

    def for_app(self, prepared: app_run.Prepared) -> AppLLM:
        return AppLLM(self, prepared.app.key, prepared.coverage_map, app_run.sources_of(prepared.work))


def factory(evaluation: settings_mod.Evaluation, cache: str | None) -> app_run.AssistantFactory | None:
    """Per-app LLM tester and judges when the evaluation asks for them, else None."""
    if not evaluation.uses_llm():
        return None
    return Wiring(evaluation, cache).for_app
