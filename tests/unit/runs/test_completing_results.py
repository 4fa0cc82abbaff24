"""`iwc score --apps` gives every (model, task) a result, as `iwc run` does: an app
whose evaluation never finished is `error`, a task without an app is `start_failed`."""

from __future__ import annotations

from iwcbench.pipeline.runs import finishing, inputs, preparing
from iwcbench.pipeline.contracts import evidence


def _done(model: str, task_id: str):
    app = evidence.AppRef(model=model, task_id=task_id, source="")
    return preparing.failed_result(app, "start_failed", "no index.html")


def test_missing_results_are_recorded_with_reasons():
    found = [_done("m1", "t1")]
    expected = [("m1", "t1"), ("m1", "t2"), ("m2", "t1")]
    complete = {(r.model, r.task_id): r for r in finishing.complete_results(found, expected, ["t1", "t2"])}
    assert set(complete) == {("m1", "t1"), ("m1", "t2"), ("m2", "t1"), ("m2", "t2")}
    assert complete["m1", "t1"].reason == "no index.html"
    assert complete["m1", "t2"].outcome == "error" and "our side" in complete["m1", "t2"].reason
    assert complete["m2", "t2"].outcome == "start_failed"
    assert complete["m2", "t2"].reason == "no app submitted for this task"


def test_expected_apps_from_a_folder(tmp_path):
    (tmp_path / "m1" / "t1").mkdir(parents=True)
    (tmp_path / "m1" / "t1" / "index.html").write_text("<p>x</p>")
    (tmp_path / "m2").mkdir()
    (tmp_path / "m2" / "t2.zip").write_bytes(b"PK")
    (tmp_path / "m2" / "unknown").mkdir()
    assert inputs.expected_apps(str(tmp_path), (), ["t1", "t2"]) == [("m1", "t1"), ("m2", "t2")]
    assert inputs.expected_apps(str(tmp_path), ("m2",), ["t1", "t2"]) == [("m2", "t2")]


def test_expected_apps_from_s3(s3_bucket):
    from iwcbench.pipeline.kits import store as store_mod

    s = store_mod.open_store(f"s3://{s3_bucket}/apps")
    s.put_bytes("m1/t1/index.html", b"x")
    s.put_bytes("m1/t2.tar.gz", b"x")
    s.put_bytes("m1/zz/index.html", b"x")
    assert inputs.expected_apps(f"s3://{s3_bucket}/apps", (), ["t1", "t2"]) == [("m1", "t1"), ("m1", "t2")]
