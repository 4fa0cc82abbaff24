"""Each model's unscored apps are counted per metric in the leaderboard, and a model
ranked on fewer weighted dimensions than the others is flagged there and in the report."""

from __future__ import annotations

import datetime

import pytest

from iwcbench.pipeline.contracts import metrics, results, settings
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.runs import finishing
from iwcbench.pipeline.stages import aggregating


def _app(model: str, task: str, outcome: str = "evaluated", **values: float | None) -> results.AppResult:
    return results.AppResult(model=model, task_id=task, outcome=outcome, reason="r", scores={
        n: metrics.score(n, v, "measured" if v is not None else "unscored: the judge could not answer")
        for n, v in values.items()})


APPS = [
    _app("a", "t1", aesthetics=80.0, usability=70.0),
    _app("a", "t2", aesthetics=60.0, usability=None),  # one usability unscored
    _app("b", "t1", aesthetics=50.0, usability=None),  # b never got a usability score
    _app("b", "t2", aesthetics=40.0, usability=None),
    _app("b", "t3", "error"),  # our failure: not counted as unscored, left out
    _app("c", "t1", aesthetics=70.0, usability=90.0),
]


def test_unscored_apps_are_counted_per_model_and_metric():
    _, board = aggregating.aggregate(APPS, {"aesthetics": 0.5, "usability": 0.5}, bootstrap=0)
    rows = {r.model: r for r in board}
    assert rows["a"].unscored == {"usability": 1}
    assert rows["b"].unscored == {"usability": 2}
    assert rows["c"].unscored == {}


def test_a_model_ranked_on_fewer_dimensions_is_flagged():
    _, board = aggregating.aggregate(APPS, {"aesthetics": 0.5, "usability": 0.5}, bootstrap=0)
    rows = {r.model: r for r in board}
    assert rows["b"].missing_dimensions == ("usability",)
    assert rows["a"].missing_dimensions == () and rows["c"].missing_dimensions == ()
    # an unweighted metric never flags anyone
    _, only_looks = aggregating.aggregate(APPS, {"aesthetics": 1.0}, bootstrap=0)
    assert all(r.missing_dimensions == () for r in only_looks)


def test_the_report_names_the_model_ranked_on_fewer_dimensions(tmp_path):
    evaluation = settings.Evaluation(scoring=settings.Scoring(custom_weights={"aesthetics": 0.5, "usability": 0.5}))
    run = finishing.finish(evaluation, datetime.datetime.now(datetime.timezone.utc), store_mod.LocalStore(tmp_path),
                           list(APPS), [])
    assert {r.model: r.missing_dimensions for r in run.leaderboard}["b"] == ("usability",)
    page = (tmp_path / "report" / "index.html").read_text()
    assert "ranked without usability" in page and "is ranked on fewer dimensions than the others" in page
    assert "2 unscored" in page
    assert "z of the model means, weighted mean" in page  # how this leaderboard was ranked


def test_under_webcoder_weights_the_report_says_the_leaderboard_is_table4(tmp_path):
    apps = [_app(m, t, wcb_linting=v, wcb_mobile=100 - v) for m, t, v in
            (("a", "t1", 90.0), ("a", "t2", 70.0), ("b", "t1", 40.0), ("b", "t2", 60.0))]
    evaluation = settings.Evaluation(scoring=settings.Scoring(weights="wcb_designer"))
    run = finishing.finish(evaluation, datetime.datetime.now(datetime.timezone.utc), store_mod.LocalStore(tmp_path),
                           apps, [])
    assert run.webcoder is not None
    assert [(r.model, r.rank) for r in run.leaderboard] == [(r.model, r.rank) for r in run.webcoder.table]
    assert [r.overall for r in run.leaderboard] == pytest.approx([r.overall for r in run.webcoder.table], abs=1e-12)
    assert run.webcoder.weights["wcb_mobile"] == metrics.weights("wcb_designer")["wcb_mobile"]
    assert "WebCoderBench&#x27;s Table 4" in (tmp_path / "report" / "index.html").read_text() or \
        "WebCoderBench's Table 4" in (tmp_path / "report" / "index.html").read_text()


def test_the_terminal_leaderboard_says_which_model_stands_on_fewer_dimensions(tmp_path):
    import io
    import pathlib

    from iwcbench.pipeline.cli import progress

    _, board = aggregating.aggregate(APPS, {"aesthetics": 0.5, "usability": 0.5}, bootstrap=0)
    run = results.RunResults(run=results.RunInfo(configuration=settings.Evaluation(), config_hash="x",
                                                 started_at="now"), leaderboard=board)
    printed = io.StringIO()
    progress.print_leaderboard(run, pathlib.Path(tmp_path), printed)
    assert "b: ranked on fewer dimensions than the others (no score for usability)" in printed.getvalue()
    assert "a: ranked on fewer" not in printed.getvalue()


def _over_budget(model: str, task: str, **values: float | None) -> results.AppResult:
    """An app whose judged dimensions set to None were left undone by the budget."""
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="r", scores={
        n: metrics.score(n, v, "measured") if v is not None else
        metrics.score(n, None, f"{metrics.OVER_BUDGET_REASON} of $1.00 was reached", status="over_budget")
        for n, v in values.items()})


def test_the_budget_stops_judging_at_a_whole_task_so_no_model_is_judged_on_fewer_apps():
    """--max-cost ran out in the middle of task t2: a was judged there, b was not. Judged
    on t1 and t2, a would stand on two tasks where b stands on one (its t2 is the pool's
    average). t2's judged dimension is set aside for every app, its value kept."""
    apps = [_over_budget("a", "t1", aesthetics=80.0, states=5.0), _over_budget("b", "t1", aesthetics=60.0, states=4.0),
            _over_budget("a", "t2", aesthetics=10.0, states=6.0), _over_budget("b", "t2", aesthetics=None, states=3.0)]
    scored, board = aggregating.aggregate(apps, {"aesthetics": 0.5, "states": 0.5}, bootstrap=0)
    by_key = {(a.model, a.task_id): a for a in scored}
    aside = by_key[("a", "t2")].scores["aesthetics"]
    assert aside.value is None and aside.raw["set_aside"] == 10.0
    assert "left 1 app of task t2 unjudged" in aside.reason
    assert by_key[("b", "t2")].scores["aesthetics"].status == "over_budget"  # still waiting for --resume
    assert by_key[("a", "t2")].scores["states"].value == 6.0  # what was not judged is untouched
    rows = {r.model: r for r in board}
    assert rows["a"].metrics["aesthetics"] == 80.0 and rows["b"].metrics["aesthetics"] == 60.0
    assert rows["a"].unscored == rows["b"].unscored == {"aesthetics": 1}
    assert all(r.missing_dimensions == () for r in board)
    # once --resume judged b's t2, nothing is set aside
    resumed = [*apps[:3], _over_budget("b", "t2", aesthetics=30.0, states=3.0)]
    again, _ = aggregating.aggregate(resumed, {"aesthetics": 0.5, "states": 0.5}, bootstrap=0)
    assert [a.scores["aesthetics"].value for a in again] == [80.0, 60.0, 10.0, 30.0]


def test_a_metric_that_does_not_apply_is_counted_apart_from_our_failures(tmp_path):
    """No media is not a failure of ours: the app's media quality is n/a, left out of the
    mean like an unscored value, and counted as n/a, not as unscored, in its row and the report."""
    def media(model, task, score):
        return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="r",
                                 scores={"wcb_media_quality": score})
    apps = [media("a", "t1", metrics.score("wcb_media_quality", 90.0, "9 of 10 images without a defect")),
            media("a", "t2", metrics.not_applicable("wcb_media_quality", "no images or media in the rendered states")),
            media("b", "t1", metrics.score("wcb_media_quality", None, "not measured: no state was rendered")),
            media("b", "t2", metrics.score("wcb_media_quality", 50.0, "1 of 2 images without a defect"))]
    _, board = aggregating.aggregate(apps, {"wcb_media_quality": 1.0}, bootstrap=0)
    rows = {r.model: r for r in board}
    assert rows["a"].metrics["wcb_media_quality"] == 90.0
    assert rows["a"].unscored == {} and rows["a"].not_applicable == {"wcb_media_quality": 1}
    assert rows["b"].unscored == {"wcb_media_quality": 1} and rows["b"].not_applicable == {}
    evaluation = settings.Evaluation(scoring=settings.Scoring(custom_weights={"wcb_media_quality": 1.0}))
    finishing.finish(evaluation, datetime.datetime.now(datetime.timezone.utc), store_mod.LocalStore(tmp_path), apps, [])
    page = (tmp_path / "report" / "index.html").read_text()
    assert "1 n/a" in page and "1 unscored" in page
