"""Planning a run from the input folders: stray entries are reported as skipped with
the reason, and missing submissions count against their model."""

from __future__ import annotations

from iwcbench.pipeline import batching, settings as settings_mod


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
    loaded, todo, decided, skipped = batching.plan(config)
    assert [t.id for t in loaded] == ["t1", "t2"]
    assert [(a.model, a.task_id) for a in todo] == [("m1", "t1")]
    assert [(r.model, r.task_id, r.outcome, r.reason) for r in decided] == [
        ("m1", "t2", "start_failed", "no app submitted for this task")]
    paths = {s.path: s.reason for s in skipped}
    assert "m1/nope" in paths and "README.txt" in paths
    assert all(reason for reason in paths.values())
