"""Reuse: an app whose stored result was made from the same inputs (its files, its task's
record, the evaluation settings, this project's version and the tools' versions) is not
evaluated again (the same code path for `iwc run` and the cluster's instrument
container, runs.preparing.prepare_app); its result is taken, marked reused and names the run
that made it. Any one input changed alone, or a stored `error`, is evaluated afresh."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import artifacts, evidence, results, settings, task
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import evidence as stored, preparing, provenance, reusing

pytestmark = pytest.mark.node  # instrumenting runs Istanbul


def _app(tmp_path: pathlib.Path, body: str) -> evidence.AppRef:
    folder = tmp_path / "apps" / "m1" / "t1"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(f"<!doctype html><title>x</title><p>{body}</p>")
    return evidence.AppRef(model="m1", task_id="t1", source=str(folder))


TASK = task.Task(id="t1", prompt="A page that greets the visitor.",
                 checklist=(task.Criterion(id="c1", kind="functional", text="It says hello."),),
                 ui_tests=(task.UITest(task="Open the page.", expected_result="A greeting shows."),))


def _prepare(app, tmp_path, store, evaluation, item=TASK, run="out/run1"):
    work = tmp_path / "work"
    return preparing.prepare_app(app, work, store, evaluation, origin=reusing.Origin(item, run))


def _finish(store, app, outcome="evaluated"):
    """What the rest of an evaluation leaves: the app's result, with its LLM bill."""
    usage = results.LLMUsage(calls=3, cost_usd=0.25)
    preparing.save_result(store, results.AppResult(model=app.model, task_id=app.task_id, outcome=outcome, reason="",
                                                 evidence=f"apps/{app.model}/{app.task_id}", llm_usage=usage))


def test_the_same_app_with_the_same_settings_is_reused_and_marked(tmp_path):
    store = store_mod.LocalStore(tmp_path / "out")
    app, evaluation = _app(tmp_path, "hello"), settings.Evaluation()
    first = _prepare(app, tmp_path, store, evaluation)
    assert not isinstance(first, results.AppResult)  # evaluated afresh
    _finish(store, app)
    again = _prepare(app, tmp_path, store, evaluation, run="out/run2")
    assert isinstance(again, results.AppResult) and again.reused and again.outcome == "evaluated"
    assert again.reused_from == "out/run1"  # the run that made it, not this one
    assert again.llm_usage is None  # this run made no call for it
    assert stored.AppEvidence.of(store, app).result().reused  # marked in the store too
    third = _prepare(app, tmp_path, store, evaluation, run="out/run3")
    assert isinstance(third, results.AppResult) and third.reused_from == "out/run1"


def _changed_task(**update) -> task.Task:
    return TASK.model_copy(update=update)


@pytest.mark.parametrize("change", [
    pytest.param(lambda: (_changed_task(prompt="A page that sells shoes."), None), id="prompt"),
    pytest.param(lambda: (_changed_task(checklist=()), None), id="checklist"),
    pytest.param(lambda: (_changed_task(ui_tests=(task.UITest(task="Click Buy.", expected_result="A cart."),)), None),
                 id="ui_tests"),
    pytest.param(lambda: (_changed_task(labels=task.Labels(category="shop")), None), id="labels"),
    pytest.param(lambda: (TASK, {"iwc-bench": "9.9.9"}), id="project-version"),
    pytest.param(lambda: (TASK, {"chromium": "Chromium 999.0.0.0 built on Debian"}), id="chromium-version"),
    pytest.param(lambda: (TASK, {"node-tools": "sha256:another-lighthouse"}), id="node-tools"),
    pytest.param(lambda: (TASK, {"image": "localhost/iwc-bench/runner@sha256:other"}), id="image"),
])
def test_each_input_changed_alone_is_evaluated_again(tmp_path, monkeypatch, change):
    store = store_mod.LocalStore(tmp_path / "out")
    app, evaluation = _app(tmp_path, "hello"), settings.Evaluation()
    assert not isinstance(_prepare(app, tmp_path, store, evaluation), results.AppResult)
    _finish(store, app)
    item, tools = change()
    if tools is not None:
        now = {**provenance.producer(), **tools}
        monkeypatch.setattr(provenance, "producer", lambda: now)
    again = _prepare(app, tmp_path, store, evaluation, item=item)
    assert not isinstance(again, results.AppResult)  # evaluated afresh, not the stale scores
    assert stored.AppEvidence.of(store, app).result() is None  # the stale result is gone


def test_a_task_not_known_where_the_app_is_prepared_never_reuses(tmp_path):
    store = store_mod.LocalStore(tmp_path / "out")
    app, evaluation = _app(tmp_path, "hello"), settings.Evaluation()
    _prepare(app, tmp_path, store, evaluation, item=None)
    _finish(store, app)
    assert not isinstance(_prepare(app, tmp_path, store, evaluation, item=None), results.AppResult)


def test_another_setting_or_another_file_is_evaluated_again(tmp_path):
    store = store_mod.LocalStore(tmp_path / "out")
    app = _app(tmp_path, "hello")
    _prepare(app, tmp_path, store, settings.Evaluation())
    _finish(store, app)
    other = settings.Evaluation(exploration=settings.Exploration(max_steps=7))
    assert not isinstance(_prepare(app, tmp_path, store, other), results.AppResult)
    # the result made with the old settings is gone: it can never be paired with the new key
    assert stored.AppEvidence.of(store, app).result() is None
    _finish(store, app)
    changed = _app(tmp_path, "hello, changed")
    assert not isinstance(_prepare(changed, tmp_path, store, other), results.AppResult)
    key = stored.AppEvidence.of(store, app).load(artifacts.REUSE_KEY)
    assert key is not None and key.config_hash == other.config_hash()


def test_an_error_is_never_reused(tmp_path):
    store = store_mod.LocalStore(tmp_path / "out")
    app, evaluation = _app(tmp_path, "hello"), settings.Evaluation()
    _prepare(app, tmp_path, store, evaluation)
    _finish(store, app, outcome="error")
    assert not isinstance(_prepare(app, tmp_path, store, evaluation), results.AppResult)
