"""The artifact declarations and the typed reader/writer around them: one key per
artifact, validated reads, writes that refuse the wrong model, and results of the
previous schema (no score status, a dict configuration) still read."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.contracts import artifacts, metrics, results, settings
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import evidence as stored


def test_every_artifact_has_its_own_key_and_every_model_carries_a_schema_version():
    keys = [(a.level, a.key) for a in artifacts.ALL]
    assert len(keys) == len(set(keys))
    assert len({a.schema for a in artifacts.ALL if a.schema}) == len([a for a in artifacts.ALL if a.schema])
    for a in artifacts.ALL:
        if a.model is not None:
            assert "schema_version" in a.model.model_fields, a.key
            assert a.schema, a.key


def test_a_reader_validates_what_it_reads_and_says_which_key_is_bad():
    files = {"trace.json": b'{"explorer": "heuristic"}', "graph.json": b"{}"}
    reader = artifacts.Reader(files.get, "apps/m/t")
    assert reader.load(artifacts.GRAPH) is not None
    assert reader.load(artifacts.ACCESSIBILITY) is None  # absent
    with pytest.raises(artifacts.Unreadable, match=r"^apps/m/t/trace.json is not a valid Trace: 3 problem"):
        reader.load(artifacts.TRACE)
    assert reader.load_or_none(artifacts.TRACE) is None
    assert reader.under("shots").full("0001.png") == "apps/m/t/shots/0001.png"


def test_app_evidence_writes_by_declaration_and_refuses_the_wrong_model(tmp_path):
    store = store_mod.LocalStore(tmp_path)
    app = stored.AppEvidence(store, "apps/m/t")
    marker = results.RunMarker(config_hash="abc")
    with pytest.raises(TypeError, match="holds a QualityReport"):
        app.save(artifacts.QUALITY, marker)
    with pytest.raises(ValueError, match="run-level"):
        app.save(artifacts.RUN_MARKER, marker)
    run = stored.RunFiles(store)
    run.save(artifacts.RUN_MARKER, marker)
    assert json.loads((tmp_path / "run.json").read_text()) == {"schema_version": "1", "config_hash": "abc"}
    assert run.load(artifacts.RUN_MARKER) == marker
    assert run.app("apps/m/t").load(artifacts.RESULT) is None


def test_a_score_says_in_which_way_it_is_not_scored():
    assert metrics.score("states", 3.0, "3 states").status == "scored"
    assert metrics.score("states", None, "no graph").status == "unscored"
    pending = metrics.unscored(["usability"], f"{metrics.PENDING_REASON}: later", status="pending")["usability"]
    assert pending.waiting and pending.value is None
    with pytest.raises(ValueError, match="a pending score cannot have a value"):
        metrics.Score(value=1.0, reason="x", status="pending")
    with pytest.raises(ValueError, match="a scored score has no value"):
        metrics.Score(value=None, reason="x", status="scored")


def test_schema_1_results_still_read_their_states_from_the_reason():
    old = {"model": "m", "task_id": "t", "outcome": "evaluated", "reason": "explored", "schema_version": "1",
           "scores": {"states": {"value": 3.0, "reason": "3 states"},
                      "usability": {"value": None, "reason": f"{metrics.PENDING_REASON}: judged once every app is explored"},
                      "aesthetics": {"value": None, "reason": f"{metrics.OVER_BUDGET_REASON} of $1.00 was reached"},
                      "alignment_visual": {"value": None, "reason": "cannot judge: no trace"}}}
    app = results.AppResult.model_validate(old)
    assert {n: s.status for n, s in app.scores.items()} == {
        "states": "scored", "usability": "pending", "aesthetics": "over_budget", "alignment_visual": "unscored"}
    assert app.schema_version == "1"
    assert results.AppResult(model="m", task_id="t", outcome="evaluated", reason="r").schema_version == "6"


def test_the_recorded_configuration_reads_back_as_the_settings_it_was():
    run = settings.RunSettings(tasks="t.jsonl", apps="apps", out="out", workers=4)
    for recorded, kind in ((run, settings.RunSettings), (settings.Evaluation(), settings.Evaluation)):
        # given whole, as schema 2 wrote it (one dict), or as the run's settings object
        for given in (recorded.model_dump(mode="json"), recorded):
            info = results.RunInfo(configuration=given, config_hash="h", started_at="now")
            written = json.loads(info.model_dump_json())
            again = results.RunInfo.model_validate(written)
            assert type(again.configuration) is settings.Evaluation and again.configuration == recorded.evaluation()
            assert "tasks" not in written["configuration"]
            assert (written["local"] or {}).get("workers") == (4 if kind is settings.RunSettings else None)
            assert type(again.recorded_settings()) is kind and again.recorded_settings() == recorded
    with pytest.raises(ValueError):
        results.RunInfo(configuration={"exploration": {"max_steps": 0}}, config_hash="h", started_at="now")


def test_the_published_schemas_accept_what_the_store_writes():
    """docs/schemas describe files as written (field names, not the CRD's camelCase)."""
    import pathlib

    import jsonschema

    root = pathlib.Path(__file__).resolve().parents[3]
    schema = json.loads((root / "docs/schemas/results.schema.json").read_text())
    for recorded in (settings.RunSettings(tasks="t.jsonl", apps="apps", out="out"), settings.Evaluation()):
        info = results.RunInfo(configuration=recorded, config_hash="h", started_at="now")
        written = json.loads(results.RunResults(run=info).model_dump_json())
        jsonschema.validate(written, schema)
