"""An app in a framework the build step does not build is ours to carry (issue 46 part 4):
it ends not_runnable naming the framework, in ``iwc run`` and in an app pod alike, and it
lifts and lowers no model — its task is left out of the leaderboard and of WebGen-Bench's
Accuracy for every model, and every figure is the run's without that task."""

from __future__ import annotations

import datetime
import json
import pathlib

from iwcbench.pipeline import cli
from iwcbench.pipeline.cli import app as app_cli
from iwcbench.pipeline.contracts import evidence, metrics, results, settings, task
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import finishing, preparing

NOW = datetime.datetime.now(datetime.timezone.utc)
GATSBY = {  # what `npm init gatsby` writes, trimmed to the files that tell it apart
    "package.json": json.dumps({"name": "todos", "private": True,
                                "scripts": {"build": "gatsby build"},
                                "dependencies": {"gatsby": "^5.14.0", "react": "^18.2.0", "react-dom": "^18.2.0"}}),
    "gatsby-config.js": "module.exports = { siteMetadata: { title: 'Todos' } }\n",
    "src/pages/index.js": "export default function Index() { return null }\n",
}
CASE = {"task": "Add a task", "expected_result": "It shows in the list", "category": "Functional Testing: Adding"}
TASKS = [task.Task(id=t, prompt="A task list.", ui_tests=[CASE]) for t in ("t1", "t2")]


def _write(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _evaluated(model: str, task_id: str, verdict: str, **values: float) -> results.AppResult:
    return results.AppResult(model=model, task_id=task_id, outcome="evaluated", reason="explored",
                             scores={n: metrics.score(n, v, "measured") for n, v in values.items()},
                             ui_tests=(results.UITestOutcome(index=0, verdict=verdict, reason="seen"),))


def _evaluation(**scoring) -> settings.Evaluation:
    # a model for the UI-test agent, so that Accuracy is scored (finishing calls no LLM); no
    # WebCoderBench tools (they would score the app's source, with Node)
    return settings.Evaluation(uitests=settings.UITests(model="openai/agent"), scoring=settings.Scoring(**scoring),
                               quality=settings.Quality(enabled=False))


def _unsupported_app(tmp_path: pathlib.Path) -> results.AppResult:
    source = _write(tmp_path / "apps" / "b" / "t2", GATSBY)
    app = evidence.AppRef(model="b", task_id="t2", source=str(source))
    done = preparing.prepare_app(app, tmp_path / "work", store_mod.LocalStore(tmp_path / "evidence"), _evaluation())
    assert isinstance(done, results.AppResult)
    return done


def test_an_unsupported_framework_is_not_runnable_and_names_it(tmp_path):
    done = _unsupported_app(tmp_path)
    assert done.outcome == "not_runnable", (done.outcome, done.reason)
    assert done.reason.startswith("not runnable here: Gatsby (gatsby in package.json) is not supported "
                                  "by the build step"), done.reason
    assert done.instrumentation.build == "failed"
    # what needs the page is unscored with the reason, never a floor charged to the model
    assert done.scores["states"].value is None and done.scores["states"].status == "unscored"


def test_an_app_pod_records_the_same_outcome(tmp_path):
    # the init container's command (iwc app instrument): the outcome is decided there and
    # marks the work folder so that the explorer container does not run
    _write(tmp_path / "apps" / "b" / "t2", GATSBY)
    work = tmp_path / "work"
    code = cli.main(["app", "instrument", "--apps", str(tmp_path / "apps"), "--model", "b", "--task", "t2",
                     "--work", str(work), "--store", str(tmp_path / "evidence"),
                     "--settings", _evaluation().model_dump_json()])
    assert code == 0
    decided = results.AppResult.model_validate_json((work / app_cli.OUTCOME).read_text())
    assert decided.outcome == "not_runnable" and "Gatsby" in decided.reason, decided.reason


def _finish(tmp_path: pathlib.Path, apps: list[results.AppResult], tasks: list[task.Task],
            **scoring) -> results.RunResults:
    store = store_mod.LocalStore(tmp_path)
    return finishing.finish(_evaluation(**scoring), NOW, store, apps, [], tasks)


def test_the_task_is_left_out_for_every_model_and_no_figure_moves(tmp_path):
    # a did well on t2 and badly on t1; counting t2 for a alone (or for b's app as anything)
    # would move both models' figures
    t1 = [_evaluated("a", "t1", "NO", states=3, runtime_errors=4),
          _evaluated("b", "t1", "YES", states=9, runtime_errors=0)]
    with_gap = [*t1, _evaluated("a", "t2", "YES", states=12, runtime_errors=0), _unsupported_app(tmp_path)]
    run = _finish(tmp_path / "with", with_gap, TASKS)
    alone = _finish(tmp_path / "without", t1, TASKS[:1])

    assert run.ranking is not None and list(run.ranking.left_out) == ["t2"]
    assert "b's app is not runnable here: Gatsby" in run.ranking.left_out["t2"]
    rows = {r.model: r for r in run.leaderboard}
    assert (rows["b"].not_runnable, rows["b"].left_out, rows["a"].left_out) == (1, 1, 1)

    def board(r: results.RunResults):
        return [(row.model, row.rank, row.overall, row.metrics) for row in r.leaderboard]

    assert board(run) == board(alone)
    assert [row.model for row in run.leaderboard] == ["b", "a"]

    def accuracy(r: results.RunResults):
        return [(row.model, row.accuracy, row.instruction_accuracy, row.instructions) for row in r.ui_tests]

    assert accuracy(run) == accuracy(alone) == [("a", 0.0, 0.0, 1), ("b", 100.0, 100.0, 1)]
    assert {row.model: row.not_runnable for row in run.ui_tests} == {"a": 0, "b": 1}


def test_with_the_floor_setting_accuracy_floors_it_as_the_leaderboard_does(tmp_path):
    t1 = [_evaluated(m, "t1", "YES", states=9, runtime_errors=0) for m in ("a", "b")]
    gap = _unsupported_app(tmp_path)
    failed = gap.model_copy(update={"outcome": "start_failed"})
    a2 = _evaluated("a", "t2", "YES", states=9, runtime_errors=0)
    floored = _finish(tmp_path / "floor", [*t1, a2, gap], TASKS, not_runnable="floor")
    as_failure = _finish(tmp_path / "failed", [*t1, a2, failed], TASKS, not_runnable="floor")
    assert floored.ranking is not None and floored.ranking.left_out == {}
    b = next(row for row in floored.ui_tests if row.model == "b")
    assert (b.accuracy, b.start_failures) == (50.0, 1)
    assert [(r.model, r.accuracy) for r in floored.ui_tests] == [(r.model, r.accuracy) for r in as_failure.ui_tests]
    assert [(r.model, r.overall) for r in floored.leaderboard] == \
        [(r.model, r.overall) for r in as_failure.leaderboard]
