"""Re-judging a finished run's stored evidence (no new exploration), then finishing it
again (results.json and the report). Every purpose keeps the judge model the run gave it
(a per-dimension model, WebCoderBench's judges, the appearance judge) unless the caller
names another; the appearance of apps with UI test cases is judged again too. With
``batch``, the judges' calls go out as Message Batches (the alignment agent stays
interactive); an interrupted re-score run again collects the batches it had submitted
instead of sending them anew."""

from __future__ import annotations

import dataclasses
import datetime
import shutil

from iwcbench.pipeline.contracts import artifacts, results, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import assistants, evidence as stored, finishing, inputs, judging_pass


@dataclasses.dataclass(frozen=True)
class Rescored:
    apps: int
    usage: results.LLMUsage | None
    models: dict[str, str] = dataclasses.field(default_factory=dict)  # settings field → the model it judged with


def rescore(run_uri: str, tasks_uri: str, judge: str | None, out: str | None = None,
            protocol: str | None = None, batch: bool = False, endpoints: dict[str, str] | None = None,
            given: settings_mod.Evaluation | None = None) -> Rescored:
    """Re-judge every app of the run at ``run_uri``, in place or into a copy at ``out``
    (local runs only). The settings the run recorded in its results.json are kept — a
    run's on one machine (``iwc run``) or an evaluation's (``iwc score``, the cluster's
    scoring Job); a run that never finished (no results.json) is re-judged with the
    defaults, and an unreadable results.json is an error (``BadInput``). ``given``'s
    judging and UI-test sections (an EvaluationRun's spec as it is now) replace the
    recorded ones; then ``judge`` replaces the default judge (``judging.model``) and
    ``protocol`` the protocol: a purpose the settings give a model of its own keeps it.
    ``endpoints`` adds base URLs by provider. No judge at all, or one that cannot be
    called, is an error naming the field (``assistants.ModelProblem``) before any app."""
    if out:
        if run_uri.startswith("s3://"):
            raise inputs.BadInput("--out: re-scoring into a copy works for local runs only")
        shutil.copytree(run_uri, out, dirs_exist_ok=True)
        run_uri = out
    store = store_mod.open_store(run_uri)
    tasks = {t.id: t for t in inputs.load_tasks(tasks_uri)}
    config = recorded_settings(store, run_uri)
    llm_cache_dir = config.llm_cache_dir if isinstance(config, settings_mod.RunSettings) else None
    config = judged_with(config, judge, protocol, given)
    config = config.model_copy(update={
        "llm": config.llm.model_copy(update={"endpoints": {**config.llm.endpoints, **(endpoints or {})}})})
    if not config.judging.model:
        raise assistants.ModelProblem("judging.model: the run named no judge; name one (--judge)")
    assistants.check_models(config, only="judging.")
    cache = assistants.cache_dir(run_uri, llm_cache_dir)
    client = assistants.judge_client(config, cache)
    assert client is not None  # judging.model is set
    appearance = assistants.appearance_model(config) if config.uitests.appearance else None
    if appearance:
        assistants.check_models(config, only="uitests.appearance_model")
    looker = assistants.client(config, appearance, cache) if appearance else None
    spending = config.spending if isinstance(config, settings_mod.RunSettings) else settings_mod.Spending()
    with judging_pass.batching(store, spending, batch) as batcher:
        updated = judging_pass.rescore_apps(
            store, tasks, client.batched(batcher), config.judging, interactive=client,
            parallel=spending.batch_apps if batch else 1,
            looker=looker.batched(batcher) if looker is not None else None,
            parse_retries=config.uitests.parse_retries)
    finishing.finish(config, datetime.datetime.now(datetime.timezone.utc), store, updated, [],
                     list(tasks.values()))
    usage = results.LLMUsage.total([assistants.usage_of(client.ledger),
                                    assistants.usage_of(looker.ledger) if looker is not None else None])
    return Rescored(apps=len(updated), usage=usage, models={f: m for f, m in assistants.models_in_use(config).items()
                                                            if f.startswith(("judging.", "uitests.appearance"))})


def judged_with(config: settings_mod.Evaluation, judge: str | None, protocol: str | None,
                given: settings_mod.Evaluation | None) -> settings_mod.Evaluation:
    """The recorded settings with the judging a re-score asks for (``rescore``)."""
    if given is not None:
        config = config.model_copy(update={"judging": given.judging, "uitests": given.uitests})
    update = {**({"model": judge} if judge else {}), **({"protocol": protocol} if protocol else {})}
    return config.model_copy(update={"judging": config.judging.model_copy(update=update)})


def recorded_settings(store: store_mod.Store, run_uri: str) -> settings_mod.Evaluation:
    """The settings the run at ``run_uri`` recorded (a ``RunSettings``, now writing to
    ``run_uri``, or the ``Evaluation`` an ``iwc score`` recorded); the defaults when it
    has no results.json yet."""
    try:
        previous = stored.RunFiles(store).load(artifacts.RESULTS)
    except artifacts.Unreadable as exc:
        raise inputs.BadInput(f"{run_uri}: its settings cannot be read back, so it is not re-scored: {exc}") from None
    if previous is None:
        return settings_mod.Evaluation()
    config = previous.run.recorded_settings()
    if isinstance(config, settings_mod.RunSettings):
        return config.model_copy(update={"out": run_uri})
    return config
