"""``iwc rescore`` of a run scored the cluster way: the scoring Job's ``iwc score`` records
the EvaluationRun's evaluation settings (not a local run's), and re-scoring keeps them —
``--judge`` changes the default judge only; every purpose with a model of its own keeps
it, and appearance is judged again."""

from __future__ import annotations

import json

from fakes.anthropic_server import tool_use
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, sample_files

from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import artifacts, metrics, results, settings, task
from iwcbench.pipeline.kits import store as store_mod

CLUSTER = settings.Evaluation(
    exploration=settings.Exploration(max_steps=7),
    judging=settings.Judging(model="claude-opus-test", protocol="single", dimensions=("usability",),
                             runs=3, min_usable_runs=2),
)


def _scored_like_the_cluster(tmp_path, evaluation: settings.Evaluation = CLUSTER, item: task.Task = TODO_TASK,
                             scores: dict[str, metrics.Score] | None = None) -> tuple[str, str]:
    """A store as the app pods leave it, aggregated by ``iwc score --settings`` as the
    scoring Job runs it (operator/planning.py scoring_job)."""
    store = store_mod.LocalStore(tmp_path / "store")
    prefix = f"apps/model-a/{item.id}"
    for key, data in sample_files().items():
        store.put_bytes(f"{prefix}/{key}", data)
    store_mod.put_model(store, f"{prefix}/{artifacts.RESULT.key}", results.AppResult(
        model="model-a", task_id=item.id, outcome="evaluated", reason="explored", evidence=prefix,
        scores=scores or {"states": metrics.score("states", 3.0, "3 states")}))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(item.model_dump_json() + "\n")
    assert cli.main(["score", "--store", str(tmp_path / "store"), "--tasks", str(tasks),
                     "--settings", evaluation.document()]) == 0
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


class _TwoJudges:
    """The run's judge answers as ScriptedJudge does; every request is noted with the
    model it went to, and the appearance judge gets a rating."""

    def __init__(self) -> None:
        self.judge = ScriptedJudge(bases={"usability": [4] * 10, "aesthetics": [3] * 10})
        self.seen: list[tuple[str, str]] = []

    def __call__(self, body: dict):
        names = {t["name"] for t in body.get("tools", [])}
        if "rate_appearance" in names:
            self.seen.append((body["model"], "appearance"))
            return tool_use("rate_appearance", {"score": 5, "justification": "A tidy list."})
        reply = self.judge(body)
        self.seen.append((body["model"], self.judge.roles[-1]))
        return reply


def test_a_rescore_keeps_each_purposes_judge_and_judges_appearance_again(fake_anthropic, tmp_path):
    """What the cluster's rescore Job runs (operator/planning.py rescore_args): the
    EvaluationRun's settings as one document. Usability has a judge model of its own, and
    keeps it; aesthetics goes to judging.model; the task's UI tests bring appearance."""
    fake_anthropic.handler = judges = _TwoJudges()
    two = settings.Evaluation(judging=settings.Judging(
        model="claude-opus-test", usability_model="claude-usability-test", protocol="single",
        dimensions=("aesthetics", "usability"), runs=2, min_usable_runs=1))
    with_ui = TODO_TASK.model_copy(update={"ui_tests": (task.UITest(task="Add a task.", expected_result="It shows."),)})
    run, tasks = _scored_like_the_cluster(tmp_path, two, with_ui, {
        "appearance": metrics.score("appearance", 40.0, "judged by the first run")})  # (an impossible 40: the check)

    assert cli.main(["rescore", run, "--tasks", tasks, "--settings", two.document()]) == 0

    by_model: dict[str, set[str]] = {}
    for model, role in judges.seen:
        by_model.setdefault(model, set()).add(role.split(".")[0])
    assert by_model["claude-usability-test"] == {"usability"}
    assert "aesthetics" in by_model["claude-opus-test"] and "usability" not in by_model["claude-opus-test"]
    assert "appearance" in by_model["claude-opus-test"]  # uitests.model defaults to the judge
    after = results.RunResults.model_validate_json((tmp_path / "store" / artifacts.RESULTS.key).read_bytes())
    assert after.run.configuration.judging.usability_model == "claude-usability-test"  # not blanked
    scores = after.apps[0].scores
    assert scores["usability"].raw["judge_model"] == "claude-usability-test"
    assert scores["aesthetics"].raw["judge_model"] == "claude-opus-test"
    assert scores["appearance"].value == 5.0  # judged again (WebGen-Bench's 1-5), not the stored 40

    # --judge replaces the default judge only: usability keeps its own
    judges.seen.clear()
    assert cli.main(["rescore", run, "--tasks", tasks, "--judge", "claude-sonnet-test"]) == 0
    assert {model for model, role in judges.seen if role.startswith("aesthetics")} == {"claude-sonnet-test"}
    scores = results.RunResults.model_validate_json((tmp_path / "store" / artifacts.RESULTS.key).read_bytes()).apps[0].scores
    assert scores["usability"].raw["judge_model"] == "claude-usability-test"  # (from the response cache)
    assert scores["aesthetics"].raw["judge_model"] == "claude-sonnet-test"
