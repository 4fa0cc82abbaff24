"""Re-judging a finished run's stored evidence with another judge (no new exploration),
then finishing it again (results.json and the report). With ``batch``, the judges' calls
go out as Message Batches (the alignment agent stays interactive); an interrupted
re-score run again collects the batches it had submitted instead of sending them anew."""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil

from iwcbench.pipeline.contracts import results, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import assistants, finishing, inputs, judging_pass
from iwcbench.pipeline.stages import judging


@dataclasses.dataclass(frozen=True)
class Rescored:
    apps: int
    usage: results.LLMUsage | None


def rescore(run_uri: str, tasks_uri: str, judge: str, out: str | None = None,
            protocol: str | None = None, batch: bool = False) -> Rescored:
    """Re-judge every app of the run at ``run_uri`` with ``judge`` (and, if given, the
    judging ``protocol``), in place or into a copy at ``out`` (local runs only). The
    run's recorded settings are kept, with the judge replaced; a run without readable
    settings is re-judged with the defaults."""
    if out:
        if run_uri.startswith("s3://"):
            raise inputs.BadInput("--out: re-scoring into a copy works for local runs only")
        shutil.copytree(run_uri, out, dirs_exist_ok=True)
        run_uri = out
    store = store_mod.open_store(run_uri)
    tasks = {t.id: t for t in inputs.load_tasks(tasks_uri)}
    config: settings_mod.Evaluation
    try:
        previous = json.loads(store.get_bytes("results.json"))
        config = settings_mod.RunSettings.model_validate(previous["run"]["configuration"])
        config = config.model_copy(update={"out": run_uri})
        llm_cache_dir = config.llm_cache_dir
    except (store_mod.NotFound, KeyError, ValueError):
        config, llm_cache_dir = settings_mod.Evaluation(), None
    judging_update = {"model": judge, **({"protocol": protocol} if protocol else {})}
    config = config.model_copy(update={"judging": config.judging.model_copy(update=judging_update)})
    client = assistants.client(config, judge, assistants.cache_dir(run_uri, llm_cache_dir))
    spending = config.spending if isinstance(config, settings_mod.RunSettings) else settings_mod.Spending()
    with judging_pass.batching(client, store, spending, batch) as batcher:
        updated = judging.rescore(store, tasks, client.batched(batcher), config.judging, interactive=client,
                                  parallel=spending.batch_apps if batch else 1)
    finishing.finish(config, datetime.datetime.now(datetime.timezone.utc), store, updated, [],
                     list(tasks.values()))
    return Rescored(apps=len(updated), usage=assistants.usage_of(client.ledger))
