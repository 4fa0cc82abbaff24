"""Reuse: an app whose files and evaluation settings are those its stored result was made
from is not evaluated again (the same code path for `iwc run` and the cluster's
instrument container, runs.app.prepare_app); its result is taken and marked reused. A
changed file or setting, or a stored `error`, is evaluated afresh."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import artifacts, evidence, results, settings
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import app as app_run, evidence as stored

pytestmark = pytest.mark.node  # instrumenting runs Istanbul


def _app(tmp_path: pathlib.Path, body: str) -> evidence.AppRef:
    folder = tmp_path / "apps" / "m1" / "t1"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(f"<!doctype html><title>x</title><p>{body}</p>")
    return evidence.AppRef(model="m1", task_id="t1", source=str(folder))


def _prepare(app, tmp_path, store, evaluation):
    work = tmp_path / "work"
    return app_run.prepare_app(app, work, store, evaluation)


def _finish(store, app, outcome="evaluated"):
    """What the rest of an evaluation leaves: the app's result, with its LLM bill."""
    usage = results.LLMUsage(calls=3, cost_usd=0.25)
    app_run.save_result(store, results.AppResult(model=app.model, task_id=app.task_id, outcome=outcome, reason="",
                                                 evidence=f"apps/{app.model}/{app.task_id}", llm_usage=usage))


def test_the_same_app_with_the_same_settings_is_reused_and_marked(tmp_path):
    store = store_mod.LocalStore(tmp_path / "out")
    app, evaluation = _app(tmp_path, "hello"), settings.Evaluation()
    first = _prepare(app, tmp_path, store, evaluation)
    assert not isinstance(first, results.AppResult)  # evaluated afresh
    _finish(store, app)
    again = _prepare(app, tmp_path, store, evaluation)
    assert isinstance(again, results.AppResult) and again.reused and again.outcome == "evaluated"
    assert again.llm_usage is None  # this run made no call for it
    assert stored.AppEvidence.of(store, app).result().reused  # marked in the store too


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
