"""Writing functional / content / visual criteria for tasks that have none, with three
judge models and a majority (stages/judging/checklist), into a new task file. With
``batch``, the proposals and merges go out as batches (Message Batches, or OpenAI's batch
API where the endpoint serves it), journaled beside the
response cache so that a second try collects what the first had submitted."""

from __future__ import annotations

import pathlib

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import assistants, inputs, judging_pass
from iwcbench.pipeline.stages.judging import checklist


def fill(tasks_uri: str, out: pathlib.Path, models: list[str],
         evaluation: settings_mod.Evaluation = settings_mod.Evaluation(),
         batch: bool = False, spending: settings_mod.Spending = settings_mod.Spending()) -> tuple[int, dict[str, str]]:
    """Write every task to ``out``, criteria added where missing. Returns the number of
    tasks written and, per task left without criteria, the reason."""
    if len(models) != 3:
        raise inputs.BadInput("--judges: name exactly three judge models, comma-separated")
    tasks = inputs.load_tasks(tasks_uri)
    cache = assistants.cache_dir(str(out.parent), None)
    clients = [assistants.client(evaluation, m, cache) for m in models]
    journal = store_mod.LocalStore(pathlib.Path(cache or out.parent))
    with judging_pass.batching(journal, spending, batch) as batcher:
        filled, failed = checklist.fill(tasks, [c.batched(batcher) for c in clients],
                                        parallel=spending.batch_apps if batch else 1)
    out.write_text("".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in filled))
    return len(filled), failed
