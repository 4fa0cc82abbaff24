"""Planning a run from the input folders: stray entries are reported as skipped with
the reason, and missing submissions count against their model."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import evidence, settings as settings_mod
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import evidence as stored, local, preparing, provenance, reusing


def test_plan_reports_strays_and_missing_apps(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "a"}\n{"id": "t2", "prompt": "b"}\n')
    apps = tmp_path / "apps"
    (apps / "m1" / "t1").mkdir(parents=True)
    (apps / "m1" / "t1" / "index.html").write_text("<p>hi</p>")
    (apps / "m1" / "nope").mkdir()
    (apps / "m1" / "nope" / "index.html").write_text("x")
    (apps / "README.txt").write_text("stray")
    config = settings_mod.RunSettings(tasks=str(tasks), apps=str(apps), out=str(tmp_path / "out"))
    loaded, todo, decided, skipped = local.plan(config)
    assert [t.id for t in loaded] == ["t1", "t2"]
    assert [(a.model, a.task_id) for a in todo] == [("m1", "t1")]
    assert [(r.model, r.task_id, r.outcome, r.reason) for r in decided] == [
        ("m1", "t2", "start_failed", "no app submitted for this task")]
    paths = {s.path: s.reason for s in skipped}
    assert "m1/nope" in paths and "README.txt" in paths
    assert all(reason for reason in paths.values())


def _corpus(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "prompt": "a"}\n{"id": "t2", "prompt": "b"}\n')
    for task_id in ("t1", "t2"):
        (tmp_path / "apps" / "m1" / task_id).mkdir(parents=True)
        (tmp_path / "apps" / "m1" / task_id / "index.html").write_text("<p>hi</p>")
    return settings_mod.RunSettings(tasks=str(tasks), apps=str(tmp_path / "apps"), out=str(tmp_path / "out"))


def _fake_pool(calls):
    def pool(apps, config, tasks, on_done, spent=None, closing=None, run=""):
        """Stands in for the worker pool: records what it was asked to evaluate and,
        like a worker, records what each app was evaluated from and saves its result."""
        calls.append([a.key for a in apps])
        store, by_id = store_mod.LocalStore(config.out), {t.id: t for t in tasks}
        done = [preparing.failed_result(a, "start_failed", "fake: evaluated") for a in apps]
        for app, r in zip(apps, done):
            files = stored.AppEvidence.of(store, app)
            reusing.begin(files, reusing.key(pathlib.Path(app.source), config.evaluation(),
                                             reusing.Origin(by_id[app.task_id], run)))
            preparing.save_result(store, r)
            on_done(r)
        return done
    return pool


def test_resume_evaluates_only_what_is_missing_or_failed_on_our_side(tmp_path, monkeypatch):
    config = _corpus(tmp_path)
    calls: list[list[str]] = []
    monkeypatch.setattr(local, "_run_pool", _fake_pool(calls))
    first = local.execute(config)
    assert calls == [["apps/m1/t1", "apps/m1/t2"]]
    store = store_mod.LocalStore(tmp_path / "out")
    # t1 was interrupted (no result); t2 failed on our side: both go again.
    (tmp_path / "out" / "apps/m1/t1/result.json").unlink()
    preparing.save_result(store, preparing.failed_result(
        evidence.AppRef(model="m1", task_id="t2", source=""), "error", "worker died"))
    local.execute(config, resume=True)
    assert calls[1] == ["apps/m1/t1", "apps/m1/t2"]
    local.execute(config, resume=True)
    assert calls[2] == [], "everything was recorded: nothing to evaluate again"
    assert len(first.apps) == 2

    other = config.model_copy(update={"exploration": config.exploration.model_copy(update={"seed": 7})})
    with pytest.raises(local.ResumeMismatch, match="another configuration"):
        local.execute(other, resume=True)


def test_resume_evaluates_again_an_app_whose_task_files_or_tools_changed(tmp_path, monkeypatch):
    config = _corpus(tmp_path)
    calls: list[list[str]] = []
    monkeypatch.setattr(local, "_run_pool", _fake_pool(calls))
    local.execute(config)
    (tmp_path / "tasks.jsonl").write_text('{"id": "t1", "prompt": "a shoe shop"}\n{"id": "t2", "prompt": "b"}\n')
    local.execute(config, resume=True)
    assert calls[1] == ["apps/m1/t1"], "t1's task was rewritten: its stored scores are stale"
    (tmp_path / "apps/m1/t2/index.html").write_text("<p>changed</p>")
    local.execute(config, resume=True)
    assert calls[2] == ["apps/m1/t2"]
    now = {**provenance.producer(), "iwc-bench": "9.9.9"}
    monkeypatch.setattr(provenance, "producer", lambda: now)
    local.execute(config, resume=True)
    assert calls[3] == ["apps/m1/t1", "apps/m1/t2"], "an upgrade evaluates everything again"


def test_results_name_the_tools_that_produced_them():
    found = provenance.versions()
    assert found["chromium"] and found["chromium"].startswith("Chromium")
    assert found["node"] and found["node"].startswith("v")
    assert found["istanbul-lib-instrument"] and found["axe-core"] and found["playwright"]
