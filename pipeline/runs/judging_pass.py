"""The judging pass of a run: once its apps are explored, judge what was left for later.

An app's judged dimensions are left for later, as unscored scores saying so
(status ``pending`` / ``over_budget``, contracts/metrics.py), in batch mode (a worker judges only the
interactive dimensions) and when the run's budget was reached before the app's judging
began. This pass judges those dimensions of those apps, ``spending.batch_apps`` at a time
through shared ``batch_lanes.Batchers`` in batch mode (one batcher per endpoint, so that
every app's calls go out in the same batches; the alignment agent keeps the interactive
client), else
``workers`` at a time interactively, and writes each app's result back as soon as it is
judged. WebGen-Bench's appearance judge, left ``pending`` in batch mode too, is judged
here with the same batcher (runs/uitests.judge_appearance_later, the UI-test model).

Run again (``iwc run --resume``), it finds the apps still waiting: submitted batches are
collected from the journal in the store (``artifacts.BATCHES``), not sent again, and what already
came back is answered by the response cache. An app whose batch had not ended when the
batcher stopped waiting stays ``pending``.

``rescore_apps`` re-judges every stored app with another judge (``iwc rescore``); both
go through one loop over stored apps (``_judge_apps``). This module holds no judging
logic.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import logging
from typing import Any, Callable, Iterable, Iterator

from iwcbench.pipeline.contracts import artifacts, metrics, results, settings as settings_mod, task
from iwcbench.pipeline.kits import llm, store as store_mod
from iwcbench.pipeline.kits.llm import accounting as llm_accounting, batch_lanes, batches as llm_batches
from iwcbench.pipeline.runs import assistants, evidence as stored, uitests as uitest_run
from iwcbench.pipeline.stages import judging

log = logging.getLogger(__name__)


class StoreJournal:
    """The batch journal as one JSON object in the run's store."""

    def __init__(self, store: store_mod.Store) -> None:
        self.files = stored.RunFiles(store)

    def load(self) -> dict[str, Any]:
        return self.files.json(artifacts.BATCHES) or {}

    def save(self, data: dict[str, Any]) -> None:
        self.files.save_json(artifacts.BATCHES, data)


def timing(spending: settings_mod.Spending) -> llm_batches.Timing:
    return llm_batches.Timing(poll_s=spending.batch_poll_s, poll_max_s=spending.batch_poll_max_s,
                              wait_s=spending.batch_wait_s, quiet_s=min(2.0, spending.batch_poll_s))


@contextlib.contextmanager
def batching(store: store_mod.Store, spending: settings_mod.Spending, on: bool) -> Iterator[batch_lanes.Batchers | None]:
    """The batchers (one per endpoint: Anthropic's Message Batches, OpenAI's batch API
    where the endpoint serves it) journaling into ``store`` while the block runs; None
    when ``on`` is false."""
    if not on:
        yield None
        return
    with batch_lanes.Batchers(StoreJournal(store), timing(spending)) as batchers:
        yield batchers


def waiting_dimensions(result: results.AppResult, dimensions: tuple[str, ...]) -> list[str]:
    return [d for d in dimensions if any(assistants.waiting(result.scores.get(n)) for n in judging.names_of([d]))]


@dataclasses.dataclass(frozen=True)
class _Pass:
    """One pass of judges over stored apps: which dimensions of which app, with what."""

    store: store_mod.Store
    tasks: dict[str, task.Task]
    settings: settings_mod.Judging
    client: llm.Client  # may be batched
    interactive: llm.Client  # the INTERACTIVE judges' (the alignment agent)
    dimensions: Callable[[results.AppResult], list[str]]  # none: the app keeps its result
    ledger: Callable[[str], llm_accounting.Ledger]  # the ledger of one app (by its evidence prefix)
    budget: llm_accounting.Budget | None = None  # once reached, what is left stays over_budget
    batcher: batch_lanes.Batchers | None = None  # batches that may stop waiting: late ones stay pending
    suffix: str = ""  # new scores beside the old ones: aesthetics@<suffix>
    count_usage: bool = True  # add the calls to the app's llm_usage
    looker: llm.Client | None = None  # the appearance judge's (may be batched); None: appearance is not judged
    looks: Callable[[results.AppResult], bool] = lambda result: False  # the app's appearance is waiting
    parse_retries: int = 2  # the appearance judge's (uitests.parse_retries)


def _judge_one(run: _Pass, result: results.AppResult) -> results.AppResult:
    dims = run.dimensions(result)
    look = run.looker is not None and run.looks(result)
    if not dims and not look:
        return result
    app = stored.AppEvidence(run.store, result.evidence)
    if run.budget is not None and run.budget.reached():
        reason = assistants.over_budget(run.budget)
        names = [*judging.names_of(dims), *(["appearance"] if look else [])]
        new = {n: result.scores[n].model_copy(update={"reason": reason, "status": "over_budget"})
               for n in names if n in result.scores}
        return _save(run, app, result, new, None)
    ledger = run.ledger(result.evidence)
    item = run.tasks[result.task_id]
    new = judging.judge_app(item, app, run.client.derive(ledger=ledger),
                            run.settings.model_copy(update={"dimensions": tuple(dims)}),
                            interactive=run.interactive.derive(ledger=ledger)) if dims else {}
    if look and run.looker is not None:
        new["appearance"] = uitest_run.judge_appearance_later(app, item, run.looker.derive(ledger=ledger),
                                                              run.parse_retries)
    if run.batcher is not None and run.batcher.gave_up:
        late = [d for d in dims if d not in judging.INTERACTIVE]
        kept = result.scores.get("appearance")
        waiting = {**assistants.pending_scores(late), **({"appearance": kept} if look and kept is not None else {})}
        for name, score in waiting.items():
            if new.get(name) is None or new[name].value is None:
                new[name] = score
    if run.suffix:
        new = {f"{name}@{run.suffix}": s for name, s in new.items()}
    return _save(run, app, result, new, assistants.usage_of(ledger))


def _judge_apps(run: _Pass, found: list[results.AppResult], parallel: int) -> list[results.AppResult]:
    """``found``, each app judged as ``run`` says and written back as soon as it is,
    ``parallel`` apps at a time (a batched client gathers their calls into shared batches)."""
    pool = concurrent.futures.ThreadPoolExecutor(max(1, parallel))
    try:
        return list(pool.map(lambda result: _judge_one(run, result), found))
    except BaseException:
        # Ctrl-C: the judges waiting on batches are let go at once; what was submitted
        # stays in the journal and --resume collects it
        if run.batcher is not None:
            run.batcher.abandon()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)


def judge_waiting(config: settings_mod.RunSettings, store: store_mod.Store, tasks: dict[str, task.Task],
                  found: list[results.AppResult], budget: llm_accounting.Budget) -> list[results.AppResult]:
    """``found`` with every waiting dimension judged (or still waiting, with the reason),
    and every waiting appearance score (batch mode leaves it to this pass too)."""
    evaluation = config.evaluation()
    model, look_model = evaluation.judging.model, evaluation.uitest_model()
    todo = {r.evidence: dims for r in found
            if model and r.task_id in tasks and (dims := waiting_dimensions(r, evaluation.judging.dimensions))}
    looks = {r.evidence for r in found
             if look_model and r.task_id in tasks and assistants.waiting(r.scores.get("appearance"))}
    if not todo and not looks:
        return found
    spending = config.spending
    cache = assistants.cache_dir(config.out, config.llm_cache_dir)
    judge = assistants.judge_client(evaluation, cache) or assistants.client(evaluation, look_model or "", cache)
    appearance = assistants.appearance_model(evaluation)
    looker = assistants.client(evaluation, appearance, cache) if appearance and looks else None
    batch = spending.batch_judges
    with batching(store, spending, batch) as batcher:
        run = _Pass(store=store, tasks=tasks, settings=evaluation.judging, client=judge.batched(batcher),
                    interactive=judge, dimensions=lambda r: todo.get(r.evidence, []),
                    ledger=lambda prefix: llm_accounting.Ledger(prefix, budget=budget), budget=budget, batcher=batcher,
                    looker=looker.batched(batcher) if looker is not None else None,
                    looks=lambda r: r.evidence in looks, parse_retries=evaluation.uitests.parse_retries)
        return _judge_apps(run, found, spending.batch_apps if batch else config.workers)


def rescore_apps(store: store_mod.Store, tasks: dict[str, task.Task], client: llm.Client,
                 settings: settings_mod.Judging = settings_mod.Judging(), *, suffix: str = "",
                 models: Iterable[str] = (), interactive: llm.Client | None = None,
                 parallel: int = 1, looker: llm.Client | None = None,
                 parse_retries: int = 2) -> list[results.AppResult]:
    """Re-judge every stored app (``apps/*/*/result.json``) with ``client`` (routed per
    purpose as its settings say) and write the results back; with ``looker``, the
    appearance of apps whose task has UI test cases too. ``suffix`` keeps the old
    scores: the new ones are stored as ``aesthetics@<suffix>`` etc. instead of replacing
    them. Apps whose task is unknown, or that never ran (no trace), keep their result
    unchanged; apps of other ``models`` (when given) are left out. The calls count in
    ``client``'s (and ``looker``'s) ledger, one scope per app."""
    wanted = set(models)
    files = stored.RunFiles(store)
    found = [r for r in files.app_results() if not wanted or r.model in wanted]

    def dimensions(result: results.AppResult) -> list[str]:
        if result.task_id not in tasks or not files.app(result.evidence).exists(artifacts.TRACE):
            log.info("rescore: skipping %s (%s)", result.evidence,
                     "unknown task" if result.task_id not in tasks else "no trace")
            return []
        return list(settings.dimensions)

    def looks(result: results.AppResult) -> bool:
        item = tasks.get(result.task_id)
        return item is not None and bool(item.ui_tests) and files.app(result.evidence).exists(artifacts.TRACE)

    run = _Pass(store=store, tasks=tasks, settings=settings, client=client, interactive=interactive or client,
                dimensions=dimensions, ledger=client.ledger.scoped, suffix=suffix, count_usage=False,
                looker=looker, looks=looks, parse_retries=parse_retries)
    return _judge_apps(run, found, parallel)


def _save(run: _Pass, app: stored.AppEvidence, result: results.AppResult, scores: dict[str, metrics.Score],
          usage: results.LLMUsage | None) -> results.AppResult:
    updated = result.model_copy(update={
        "scores": {**result.scores, **scores},
        "llm_usage": results.LLMUsage.total([result.llm_usage, usage]) if run.count_usage else result.llm_usage,
    })
    app.save(artifacts.RESULT, updated)
    return updated
