"""One app folder outside a run: ``iwc uitest APP --task ID`` runs the task's UI test
cases on it; ``iwc uitest replay APP --task ID --from RUN`` re-runs the replays a run
stored for that task against it — no LLM — and says which still reach their end state.

Both prepare the app as a run does (``runs.preparing.prepare_app``: materialise, instrument)
and serve it (the serving stage) before the UI tests of ``runs.uitests``; evidence goes
to an output store of their own, under ``apps/<model>/<task_id>/``. An app that does not
start is reported as such, with its reason. No stage logic here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import shutil
import tempfile
from typing import Iterator

from iwcbench.pipeline.contracts import artifacts, evidence, layout, results, settings as settings_mod, task, uitests
from iwcbench.pipeline.kits import llm, store as store_mod
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.runs import app as app_run, assistants, evidence as stored, preparing, uitests as uitest_run
from iwcbench.pipeline.stages import serving
from iwcbench.pipeline.stages.uitesting import replays


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one command found: the app's start failure, or what it measured."""

    app: evidence.AppRef
    start_failure: str | None = None
    tested: uitest_run.Tested | None = None
    checks: tuple[uitests.ReplayCheck, ...] = ()
    usage: results.LLMUsage | None = None


def app_ref(path: pathlib.Path, model: str, task_id: str) -> evidence.AppRef:
    found = layout.archive_task(path.name)
    return evidence.AppRef(model=model, task_id=task_id, source=str(path),
                           packaging=found[1] if found and path.is_file() else "folder")


@contextlib.contextmanager
def served(app: evidence.AppRef, store: store_mod.Store, evaluation: settings_mod.Evaluation,
           mirror_dir: str | None) -> Iterator[tuple[preparing.Prepared | str, str, routing.Hermetic | None]]:
    """(prepared app, its start URL, a hermetic router) while it is served; (the reason
    it cannot start, "", None) when it cannot."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="iwc-uitest-"))
    try:
        prepared = preparing.prepare_app(app, work, store, evaluation)
        if isinstance(prepared, results.AppResult):
            yield prepared.reason, "", None
            return
        with contextlib.ExitStack() as stack:
            try:
                server = stack.enter_context(serving.serve(prepared.site))
            except serving.ServerFailed as exc:  # a server build whose own server did not start
                yield str(exc), "", None
                return
            start = serving.start_url(server.url, prepared.report.entry)
            yield prepared, start, routing.Hermetic(server.url, app_run.mirror_for(evaluation.sandbox, mirror_dir))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _bench(app: evidence.AppRef, prepared: preparing.Prepared, start: str, router: routing.Hermetic,
           store: store_mod.Store, evaluation: settings_mod.Evaluation, client: llm.Client | None) -> uitest_run.Bench:
    # one router per case: its records are drained per step, its mirror shared
    return uitest_run.Bench(app=app, site=prepared.site, start_url=start,
                            router=lambda: routing.Hermetic(router.app_origin, router.mirror),
                            store=store, evaluation=evaluation, client=client)


def test_folder(path: pathlib.Path, item: task.Task, evaluation: settings_mod.Evaluation, out: str,
                model: str = "app", mirror_dir: str | None = None, llm_cache_dir: str | None = None) -> Outcome:
    """The task's UI test cases on the app at ``path`` (evidence and replays into ``out``)."""
    store = store_mod.open_store(out)
    app = app_ref(path, model, item.id)
    name = evaluation.uitest_model()
    client = assistants.client(evaluation, name, assistants.cache_dir(out, llm_cache_dir)) if name else None
    with served(app, store, evaluation, mirror_dir) as (prepared, start, router):
        if isinstance(prepared, str):
            return Outcome(app=app, start_failure=prepared)
        assert router is not None
        tested = uitest_run.test_app(_bench(app, prepared, start, router, store, evaluation, client), item, ())
    return Outcome(app=app, tested=tested, usage=assistants.usage_of(client.ledger) if client else None)


def stored_replays(source: str, item: task.Task, app_model: str | None = None) -> list[uitests.Replay]:
    """The replays a run stored for ``item`` whose test is still one of its cases
    (optionally only those recorded on ``app_model``'s app), by case then key."""
    files = stored.RunFiles(store_mod.open_store(source))
    tests = {(t.task, t.expected_result) for t in item.ui_tests}
    found = []
    for key in files.store.list(f"{replays.PREFIX}/{item.id}/"):
        if not key.endswith(".json"):
            continue
        replay = files.load_at(key, artifacts.REPLAYS)
        if replay is None:
            continue
        if (replay.test, replay.expected_result) not in tests:
            continue
        if app_model is not None and replay.app.split("/", 1)[0] != app_model:
            continue
        found.append(replay)
    return sorted(found, key=lambda r: (r.case_index, r.key))


def replay_folder(path: pathlib.Path, item: task.Task, evaluation: settings_mod.Evaluation, source: str,
                  out: str, model: str = "app", app_model: str | None = None,
                  mirror_dir: str | None = None) -> Outcome:
    """Every stored replay of ``item`` (from the run at ``source``) against the app at
    ``path``; evidence into ``out``. No LLM is used."""
    found = stored_replays(source, item, app_model)
    store = store_mod.open_store(out)
    app = app_ref(path, model, item.id)
    if not found:
        return Outcome(app=app)
    with served(app, store, evaluation, mirror_dir) as (prepared, start, router):
        if isinstance(prepared, str):
            return Outcome(app=app, start_failure=prepared)
        assert router is not None
        bench = _bench(app, prepared, start, router, store, evaluation, None)
        checks = tuple(uitest_run.play(bench, r, f"replays/{r.key}")[0] for r in found)
    stored.AppEvidence.of(store, app).save_json(artifacts.REPLAY_CHECKS, [c.model_dump(mode="json") for c in checks])
    return Outcome(app=app, checks=checks)
