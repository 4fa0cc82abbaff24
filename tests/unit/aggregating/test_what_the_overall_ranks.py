"""The leaderboard says what it ranks (issue 41 items 4 and 6): without a judge its overall is
the offline overall — runtime and code quality, not requirement satisfaction — in
results.json, the CLI and the report, which point to the judged protocols; with judged
dimensions it is the judged overall; the two never share a name. A task where some model's
app cannot run here is left out and named, and each row counts both kinds of app."""

from __future__ import annotations

import datetime
import io
import json
import pathlib

from iwcbench.pipeline.cli import progress
from iwcbench.pipeline.contracts import metrics, results, settings
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import finishing

NOW = datetime.datetime.now(datetime.timezone.utc)


def _app(model: str, task: str, **values: float) -> results.AppResult:
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="explored",
                             scores={n: metrics.score(n, v, "measured") for n, v in values.items()})


def _not_runnable(model: str, task: str) -> results.AppResult:
    reason = "not runnable here: dependency not on the registry: tiny-date-format from git+ssh://example"
    return results.AppResult(model=model, task_id=task, outcome="not_runnable", reason=reason,
                             scores={"wcb_linting": metrics.score("wcb_linting", 100.0, "its source")})


OFFLINE = [_app("a", "t1", states=9, runtime_errors=0), _app("a", "t2", states=7, runtime_errors=1),
           _app("b", "t1", states=3, runtime_errors=4), _not_runnable("b", "t2")]


def _finish(tmp_path: pathlib.Path, apps, **scoring) -> results.RunResults:
    evaluation = settings.Evaluation(scoring=settings.Scoring(**scoring))
    return finishing.finish(evaluation, NOW, store_mod.LocalStore(tmp_path), list(apps), [])


def test_an_offline_run_names_its_overall_and_points_to_the_judged_protocols(tmp_path):
    run = _finish(tmp_path, OFFLINE)
    written = json.loads((tmp_path / "results.json").read_text())["ranking"]
    assert written["kind"] == "offline" and written["name"] == "offline overall"
    assert "not requirement satisfaction" in written["measures"]
    assert any("--judge" in p for p in written["judged_protocols"]) and len(written["judged_protocols"]) == 3
    page = (tmp_path / "report" / "index.html").read_text()
    assert "Leaderboard: offline overall" in page and "offline overall z" in page
    assert "WebGen-Bench&#x27;s UI tests" in page or "WebGen-Bench's UI tests" in page
    assert "judged overall" not in page
    printed = io.StringIO()
    progress.print_leaderboard(run, tmp_path, printed)
    said = " ".join(printed.getvalue().split())  # as read, whatever the terminal's wrapping
    assert "offline overall z" in said and "not requirement satisfaction" in said and "--judge MODEL" in said


def test_a_judged_run_is_the_judged_overall_and_never_the_offline_name(tmp_path):
    apps = [_app("a", "t1", aesthetics=80, usability=70), _app("b", "t1", aesthetics=40, usability=50)]
    run = _finish(tmp_path, apps)
    assert run.ranking is not None and (run.ranking.kind, run.ranking.name) == ("judged", "judged overall")
    assert run.ranking.judged_protocols == ()
    page = (tmp_path / "report" / "index.html").read_text()
    assert "Leaderboard: judged overall" in page and "offline overall" not in page


def test_the_tasks_left_out_are_named_in_results_the_cli_and_the_report(tmp_path):
    run = _finish(tmp_path, OFFLINE)
    assert run.ranking is not None and list(run.ranking.left_out) == ["t2"]
    assert "b's app is not runnable here" in run.ranking.left_out["t2"] and run.ranking.tasks_compared == 1
    rows = {r.model: r for r in run.leaderboard}
    assert (rows["b"].not_runnable, rows["b"].left_out, rows["a"].left_out) == (1, 1, 1)
    assert rows["a"].metrics["states"] == 9  # t1 alone: a's t2 is left out with b's
    page = (tmp_path / "report" / "index.html").read_text()
    assert "Models are compared on the 1 task where every model" in page and "1 left out" in page
    assert "1 not runnable here" in page
    printed = io.StringIO()
    progress.print_leaderboard(run, tmp_path, printed)
    assert "t2: not every model's app ran" in " ".join(printed.getvalue().split())


def test_with_the_floor_setting_nothing_is_left_out_and_the_app_is_floored(tmp_path):
    run = _finish(tmp_path, OFFLINE, not_runnable="floor")
    assert run.ranking is not None and run.ranking.left_out == {} and run.ranking.not_runnable == "floor"
    floored = next(a for a in run.apps if a.outcome == "not_runnable")
    assert floored.scores["states"].value == metrics.BY_NAME["states"].floor
    assert [r.model for r in run.leaderboard] == ["a", "b"]
