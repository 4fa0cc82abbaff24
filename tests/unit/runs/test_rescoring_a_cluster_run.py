"""``iwc rescore`` of a run scored the cluster way: the scoring Job's ``iwc score`` records
the EvaluationRun's evaluation settings (not a local run's), and re-scoring keeps them —
only the judge model changes."""

from __future__ import annotations

import json

from fakes.judge_evidence import TODO_TASK, ScriptedJudge, sample_files

from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import artifacts, metrics, results, settings
from iwcbench.pipeline.kits import store as store_mod

CLUSTER = settings.Evaluation(
    exploration=settings.Exploration(max_steps=7),
    judging=settings.Judging(model="claude-opus-test", protocol="single", dimensions=("usability",),
                             runs=3, min_usable_runs=2),
)


def _scored_like_the_cluster(tmp_path) -> tuple[str, str]:
    """A store as the app pods leave it, aggregated by ``iwc score --settings`` as the
    scoring Job runs it (operator/planning.py scoring_job)."""
    store = store_mod.LocalStore(tmp_path / "store")
    prefix = f"apps/model-a/{TODO_TASK.id}"
    for key, data in sample_files().items():
        store.put_bytes(f"{prefix}/{key}", data)
    store_mod.put_model(store, f"{prefix}/{artifacts.RESULT.key}", results.AppResult(
        model="model-a", task_id=TODO_TASK.id, outcome="evaluated", reason="explored", evidence=prefix,
        scores={"states": metrics.score("states", 3.0, "3 states")}))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(TODO_TASK.model_dump_json() + "\n")
    assert cli.main(["score", "--store", str(tmp_path / "store"), "--tasks", str(tasks),
                     "--settings", CLUSTER.document()]) == 0
    return str(tmp_path / "store"), str(tasks)


def test_rescoring_a_cluster_run_keeps_its_judging_settings(fake_anthropic, tmp_path):
    fake_anthropic.handler = judge = ScriptedJudge(bases={"usability": [4] * 10})
    run, tasks = _scored_like_the_cluster(tmp_path)
    recorded = json.loads((tmp_path / "store" / artifacts.RESULTS.key).read_text())["run"]["configuration"]
    assert recorded["judging"]["protocol"] == "single" and "tasks" not in recorded  # an evaluation, not a run

    assert cli.main(["rescore", run, "--tasks", tasks, "--judge", "claude-sonnet-test"]) == 0

    # what was judged is what the run asked for: usability alone, by the single protocol
    # (the final-judge prompt once; the defaults would deliberate over every dimension)
    assert judge.roles == ["usability.judge"]
    written = json.loads((tmp_path / "store" / artifacts.RESULTS.key).read_text())["run"]["configuration"]
    assert written["judging"] == {**recorded["judging"], "model": "claude-sonnet-test"}
    assert written["exploration"]["max_steps"] == 7
    after = results.RunResults.model_validate_json((tmp_path / "store" / artifacts.RESULTS.key).read_bytes())
    assert type(after.run.configuration) is settings.Evaluation and after.run.local is None
    assert after.run.configuration.judging == CLUSTER.judging.model_copy(update={"model": "claude-sonnet-test"})
    scores = after.apps[0].scores
    assert scores["usability"].status == "scored" and scores["usability"].raw["judge_model"] == "claude-sonnet-test"
    assert "aesthetics" not in scores and "alignment_functional" not in scores
    assert scores["states"].value == 3.0  # the offline scores are kept


def test_a_local_run_is_rescored_with_its_own_run_settings(fake_anthropic, tmp_path):
    """A results.json ``iwc run`` wrote records its RunSettings (here as schema 2 did, in
    one ``configuration``): re-scoring reads them back as such (where it ran, how it
    spent), writing to the run it re-scores, and records them as schema 3 does."""
    fake_anthropic.handler = ScriptedJudge(bases={"usability": [4] * 10})
    run, tasks = _scored_like_the_cluster(tmp_path)
    local = settings.RunSettings(tasks=tasks, apps=str(tmp_path / "apps"), out="/elsewhere", workers=3,
                                 judging=CLUSTER.judging)
    path = tmp_path / "store" / artifacts.RESULTS.key
    before = json.loads(path.read_text())
    before["schema_version"] = "2"
    before["run"]["configuration"] = local.model_dump(mode="json")
    path.write_text(json.dumps(before))

    assert cli.main(["rescore", run, "--tasks", tasks, "--judge", "claude-sonnet-test"]) == 0

    used = results.RunResults.model_validate_json(path.read_bytes()).run.recorded_settings()
    assert isinstance(used, settings.RunSettings)
    assert used.workers == 3 and used.out == run and used.judging.protocol == "single"
    written = json.loads(path.read_text())
    assert written["schema_version"] == results.SCHEMA_VERSION and "workers" not in written["run"]["configuration"]
    assert written["run"]["local"]["workers"] == 3
