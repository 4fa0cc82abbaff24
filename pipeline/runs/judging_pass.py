"""The judging pass of a run: once its apps are explored, judge what was left for later.

An app's judged dimensions are left for later, as unscored scores saying so
(runs/assistants ``PENDING`` / ``OVER_BUDGET``), in batch mode (a worker judges only the
interactive dimensions) and when the run's budget was reached before the app's judging
began. This pass judges those dimensions of those apps, ``spending.batch_apps`` at a time
through one shared ``llm_batches.Batcher`` in batch mode (so that every app's calls go
out in the same batches; the alignment agent keeps the interactive client), else
``workers`` at a time interactively, and writes each app's result back as soon as it is
judged.

Run again (``iwc run --resume``), it finds the apps still waiting: submitted batches are
collected from the journal in the store (``BATCHES``), not sent again, and what already
came back is answered by the response cache. An app whose batch had not ended when the
batcher stopped waiting stays ``PENDING``. This module holds no judging logic.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
from typing import Any, Iterator

from iwcbench.pipeline.contracts import results, settings as settings_mod, task
from iwcbench.pipeline.kits import llm, llm_batches, store as store_mod
from iwcbench.pipeline.runs import app as app_run, assistants
from iwcbench.pipeline.stages import judging

log = logging.getLogger(__name__)

BATCHES = "llm-batches.json"  # the store key of the batch journal


class StoreJournal:
    """The batch journal as one JSON object in the run's store."""

    def __init__(self, store: store_mod.Store) -> None:
        self.store = store

    def load(self) -> dict[str, Any]:
        try:
            return store_mod.get_json(self.store, BATCHES)
        except store_mod.NotFound:
            return {}

    def save(self, data: dict[str, Any]) -> None:
        store_mod.put_json(self.store, BATCHES, data)


def timing(spending: settings_mod.Spending) -> llm_batches.Timing:
    return llm_batches.Timing(poll_s=spending.batch_poll_s, poll_max_s=spending.batch_poll_max_s,
                              wait_s=spending.batch_wait_s, quiet_s=min(2.0, spending.batch_poll_s))


@contextlib.contextmanager
def batching(client: llm.Client, store: store_mod.Store, spending: settings_mod.Spending,
             on: bool) -> Iterator[llm_batches.Batcher | None]:
    """A batcher journaling into ``store`` while the block runs (None when ``on`` is false)."""
    if not on:
        yield None
        return
    with llm_batches.Batcher(client, StoreJournal(store), timing(spending)) as batcher:
        if batcher.resumed:
            log.info("collecting %d Message Batch(es) an earlier run submitted", len(batcher.resumed))
        yield batcher


def waiting_dimensions(result: results.AppResult, dimensions: tuple[str, ...]) -> list[str]:
    return [d for d in dimensions if any(assistants.waiting(result.scores.get(n)) for n in judging.names_of([d]))]


def judge_waiting(config: settings_mod.RunSettings, store: store_mod.Store, tasks: dict[str, task.Task],
                  found: list[results.AppResult], budget: llm.Budget) -> list[results.AppResult]:
    """``found`` with every waiting dimension judged (or still waiting, with the reason)."""
    evaluation = config.evaluation()
    model = evaluation.judging.model
    todo = {r.evidence: dims for r in found
            if r.task_id in tasks and (dims := waiting_dimensions(r, evaluation.judging.dimensions))}
    if not model or not todo:
        return found
    spending = config.spending
    judge = assistants.client(evaluation, model, assistants.cache_dir(config.out, config.llm_cache_dir))
    batch = spending.batch_judges

    with batching(judge, store, spending, batch) as batcher:
        batched = judge.batched(batcher)

        def one(result: results.AppResult) -> results.AppResult:
            dims = todo.get(result.evidence)
            if not dims:
                return result
            if budget.reached():
                scores = judging.names_of(dims)
                reason = assistants.over_budget(budget)
                new = {n: result.scores[n].model_copy(update={"reason": reason}) for n in scores if n in result.scores}
                return _save(store, result, new, None)
            ledger = llm.Ledger(result.evidence, budget=budget)
            settings = evaluation.judging.model_copy(update={"dimensions": tuple(dims)})
            new = judging.judge_app(tasks[result.task_id], _reader(store, result.evidence),
                                    batched.derive(ledger=ledger), settings, interactive=judge.derive(ledger=ledger))
            if batcher is not None and batcher.gave_up:
                late = [d for d in dims if d not in judging.INTERACTIVE]
                for name, score in assistants.pending_scores(late).items():
                    if new.get(name) is None or new[name].value is None:
                        new[name] = score
            return _save(store, result, new, assistants.usage_of(ledger))

        parallel = spending.batch_apps if batch else config.workers
        pool = concurrent.futures.ThreadPoolExecutor(max(1, parallel))
        try:
            return list(pool.map(one, found))
        except BaseException:
            # Ctrl-C: the judges waiting on batches are let go at once; what was submitted
            # stays in the journal and --resume collects it
            if batcher is not None:
                batcher.abandon()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)


def _reader(store: store_mod.Store, prefix: str):
    def read(rel: str) -> bytes | None:
        try:
            return store.get_bytes(f"{prefix}/{rel}")
        except store_mod.NotFound:
            return None
    return read


def _save(store: store_mod.Store, result: results.AppResult, scores: dict[str, results.Score],
          usage: results.LLMUsage | None) -> results.AppResult:
    updated = result.model_copy(update={
        "scores": {**result.scores, **scores},
        "llm_usage": results.LLMUsage.total([result.llm_usage, usage]),
    })
    app_run.save_result(store, updated)
    return updated
