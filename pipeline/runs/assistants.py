"""The LLM side of a run, composed: one client per worker process, one ledger per app,
the LLM tester with coverage-plateau guidance, the judges, the run's budget.

Two things leave an app's judged scores for later, each as a score without a value
whose status says so (``pending``, ``over_budget``; runs/judging_pass picks them up, now
or on ``--resume``): batch mode, where a worker judges only the interactive dimensions and
leaves the rest to the run's shared batches, and the budget, once reached before the
app's judging starts. An app whose LLM exploration would start past the budget is not
explored (``stop_reason``).

Each purpose has its model (``MODEL_FIELDS``: the settings field naming it, the field
it falls back to); a client whose stage asks for several purposes (the judges) routes
each purpose's calls to its own model (``llm.Client.routed``), so a stage never learns
which model or provider answers. ``check_models`` asks every model's endpoint before a
run starts: a bad name, a missing key or an endpoint that does not answer is an error
naming the settings field.

It holds no prompt and no judging logic (those are in stages/judging and
stages/exploring/llm_policy); it only builds clients from the settings and hands each
app its typed assistant.
"""

from __future__ import annotations

import pathlib
from typing import Sequence

from iwcbench.pipeline.contracts import artifacts, metrics, purposes, results, settings as settings_mod, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, capabilities, providers as llm_providers
from iwcbench.pipeline.runs import app as app_run, preparing
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.exploring import assisted, guidance, llm_policy, policy as policy_mod


def cache_dir(out: str, llm_cache_dir: str | None) -> str | None:
    """The LLM response cache: the folder asked for, else OUT/llm-cache; none for an
    s3:// OUT without one (there is no local folder to keep it in)."""
    if llm_cache_dir:
        return llm_cache_dir
    return None if out.startswith("s3://") else str(pathlib.Path(out) / "llm-cache")


def client(evaluation: settings_mod.Evaluation, model: str, cache: str | None) -> llm.Client:
    return llm.Client(llm.Config(model=model, effort=evaluation.llm.effort, cache_dir=cache,
                                 prompt_caching=evaluation.llm.prompt_caching,
                                 base_url=endpoint(evaluation, model), timeout_s=evaluation.llm.request_timeout_s,
                                 max_tokens=evaluation.llm.max_output_tokens,
                                 models=evaluation.llm.traits()))


def endpoint(evaluation: settings_mod.Evaluation, model: str) -> str | None:
    """The base URL the settings give ``model``'s provider (None: its variable or default)."""
    try:
        return evaluation.llm.endpoints.get(llm_providers.split(model)[0])
    except llm_providers.ModelProblem:
        return None  # the client reports the bad name


def appearance_model(evaluation: settings_mod.Evaluation) -> str | None:
    return purposes.model_for(evaluation, "uitest.appearance") if evaluation.uitest_model() else None


def judge_client(evaluation: settings_mod.Evaluation, cache: str | None) -> llm.Client | None:
    """The judges' client: judging.model, each judge routed to its own model when set
    (contracts/purposes)."""
    model = evaluation.judging.model
    if not model:
        return None
    return client(evaluation, model, cache).routed(
        {p: client(evaluation, m, cache) for p, m in purposes.routes(evaluation).items()})


def models_in_use(evaluation: settings_mod.Evaluation) -> dict[str, str]:
    """Settings field → the model it makes this evaluation call (fallbacks resolved),
    for the purposes this evaluation runs."""
    on = {"exploration.model": evaluation.asks_tester(),
          "exploration.guidance_model": evaluation.asks_tester() and evaluation.exploration.guidance,
          "uitests.model": bool(evaluation.uitest_model()),
          "uitests.appearance_model": bool(evaluation.uitest_model()) and evaluation.uitests.appearance}
    used = {}
    for field in purposes.FIELDS:
        wanted = on.get(field, bool(evaluation.judging.model) and field.startswith("judging."))
        model = purposes.model_of_field(evaluation, field) if wanted else None
        if model:
            used[field] = model
    return used


def blind_purposes(evaluation: settings_mod.Evaluation) -> dict[str, str]:
    """Purpose → its model, for the purposes in use that are judged on screenshots and
    whose model reads none (llm.models or its family's default): unscored from the start,
    so that no call is sent only to be refused."""
    traits = evaluation.llm.traits()
    in_use = models_in_use(evaluation)
    found = {}
    for row in purposes.PURPOSES:
        model = in_use.get(row.field)
        if row.images == "needs" and model and not capabilities.of(model, traits).images:
            found[row.name] = model
    return found


class ModelProblem(ValueError):
    """A model named in the settings cannot be called; the message names the field."""


def check_models(evaluation: settings_mod.Evaluation, only: str = "") -> None:
    """Before any app: every model in use (of the fields starting with ``only``) has a
    good name, a key and an endpoint that answers (each endpoint asked once). Raises
    ``ModelProblem`` naming the field."""
    asked: dict[tuple[str, str | None], str | None] = {}
    for path, model in models_in_use(evaluation).items():
        if not path.startswith(only):
            continue
        try:
            where = (llm_providers.split(model)[0], endpoint(evaluation, model))
            if where not in asked:
                try:
                    llm.check(model, where[1])
                    asked[where] = None
                except llm_providers.ModelProblem as exc:
                    asked[where] = str(exc)
            problem = asked[where]
        except llm_providers.ModelProblem as exc:
            problem = str(exc)
        if problem:
            raise ModelProblem(f"{path}: {problem}")


def over_budget(budget: llm_accounting.Budget, explored: bool = False) -> str:
    """The reason given to what the budget left undone (an app's judging, or its LLM exploration)."""
    head = metrics.OVER_BUDGET_REASON if not explored else "not explored: the run's LLM budget"
    return (f"{head} of ${budget.limit_usd:.2f} was reached (${budget.spent():.2f} spent); "
            f"iwc run --resume with a higher --max-cost {'explores' if explored else 'judges'} it")


def waiting(score: metrics.Score | None) -> bool:
    """A judged score left for later (batch mode or the budget), to judge in the judging pass."""
    return score is not None and score.waiting


def pending_scores(dimensions: Sequence[str]) -> dict[str, metrics.Score]:
    return metrics.unscored(judging.names_of(dimensions), f"{metrics.PENDING_REASON}: judged once every app is "
                            "explored (iwc run --resume collects it)", status="pending")


def usage_of(ledger: llm_accounting.Ledger) -> results.LLMUsage | None:
    """A ledger's totals as the results contract records them (None: no call made)."""
    totals = ledger.totals()
    return results.LLMUsage.model_validate(totals) if totals.get("calls") else None


class AppLLM:
    """The LLM side of one app: its tester policy (or None), its judge, its ledger."""

    def __init__(self, wiring: "Wiring", app_key: str, coverage_map: dict | None, sources: dict[str, str]) -> None:
        self.ledger = llm_accounting.Ledger(app_key, budget=wiring.budget)
        self.policy: policy_mod.Policy | None = None
        self._judging = wiring.evaluation.judging
        self._budget = wiring.budget
        self._batch = wiring.spending.batch_judges
        exploration = wiring.evaluation.exploration
        if wiring.tester is not None:
            tester = llm_policy.LLMPolicy(wiring.tester.derive(ledger=self.ledger))
            if exploration.guidance:
                guidance.guide(tester, coverage_map, sources)
            self.policy = tester if exploration.policy == "llm" else assisted.AssistedPolicy(
                tester, max_steps=exploration.assist_steps)
        self._judge = wiring.judge.derive(ledger=self.ledger) if wiring.judge is not None else None
        self._uitester = wiring.uitester.derive(ledger=self.ledger) if wiring.uitester is not None else None

    @property
    def judging(self) -> bool:
        return self._judge is not None

    @property
    def stop_reason(self) -> str | None:
        """Why this app's LLM exploration must not start (the budget is reached), or None."""
        return over_budget(self._budget, explored=True) if self.policy is not None and self._budget.reached() else None

    def judge(self, item: task.Task, files: artifacts.Reader) -> dict[str, metrics.Score]:
        if self._judge is None:
            return {}
        dimensions = list(self._judging.dimensions)
        if self._budget.reached():
            return metrics.unscored(judging.names_of(dimensions), over_budget(self._budget), status="over_budget")
        now = [d for d in dimensions if not self._batch or d in judging.INTERACTIVE]
        later = [d for d in dimensions if d not in now]
        scores = judging.judge_app(item, files, self._judge, self._judging.model_copy(
            update={"dimensions": tuple(now)})) if now else {}
        return {**scores, **pending_scores(later)}

    def usage(self) -> results.LLMUsage | None:
        return usage_of(self.ledger)

    def ui_tester(self) -> llm.Client | None:
        """The GUI agent's (and appearance judge's) client, in this app's ledger."""
        return self._uitester

    @property
    def appearance_later(self) -> bool:
        """Batch mode: the appearance judge goes to the judging pass's batches, like the
        other non-interactive judges (the GUI agent stays interactive: it is an agent)."""
        return self._batch and self._uitester is not None


class Wiring:
    """Clients for a worker process, built once from the evaluation's settings."""

    def __init__(self, evaluation: settings_mod.Evaluation, cache: str | None,
                 spending: settings_mod.Spending = settings_mod.Spending(),
                 budget: llm_accounting.Budget | None = None) -> None:
        self.evaluation = evaluation
        self.spending = spending
        self.budget = budget or llm_accounting.Budget(spending.max_cost_usd)
        self.judge = judge_client(evaluation, cache)
        tester_model = evaluation.tester_model() if evaluation.asks_tester() else None
        guide = evaluation.exploration.guidance_model
        self.tester = client(evaluation, tester_model, cache).routed(
            {"explore.guidance": client(evaluation, guide, cache)} if guide and guide != tester_model else {}
        ) if tester_model else None
        uitest_model, looks = evaluation.uitest_model(), appearance_model(evaluation)
        self.uitester = client(evaluation, uitest_model, cache).routed(
            {"uitest.appearance": client(evaluation, looks, cache)} if looks and looks != uitest_model else {}
        ) if uitest_model else None

    def for_app(self, prepared: preparing.Prepared) -> AppLLM:
        return AppLLM(self, prepared.app.key, prepared.instrumented.coverage_map, prepared.instrumented.sources)


def factory(evaluation: settings_mod.Evaluation, cache: str | None,
            spending: settings_mod.Spending = settings_mod.Spending(),
            budget: llm_accounting.Budget | None = None) -> app_run.AssistantFactory | None:
    """Per-app LLM tester and judges when the evaluation asks for them, else None."""
    if not evaluation.uses_llm():
        return None
    return Wiring(evaluation, cache, spending, budget).for_app


class NoPrice(ValueError):
    """--max-cost with a model whose price is unknown (its spending could not be counted)."""


def check_prices(evaluation: settings_mod.Evaluation, spending: settings_mod.Spending) -> None:
    """A budget needs a price for every model it would pay: raise NoPrice naming one without."""
    if spending.max_cost_usd is None:
        return
    # the UI-test agent and the appearance judge spend from the same budget (their client
    # sits in each app's ledger), so their model needs a price too
    for path, model in models_in_use(evaluation).items():
        if llm_accounting.price_of(model, llm_accounting.DEFAULT_PRICES) is None:
            raise NoPrice(f"--max-cost: no list price is known for {model} ({path}), so its cost cannot be counted")
