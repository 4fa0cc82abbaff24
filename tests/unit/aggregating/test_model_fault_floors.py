"""A broken or missing app costs its model under every weight set: it takes the floor
of each metric it could not be measured on (judged dimensions included); only our own
failures (`error`) stay out of the pools."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.stages import aggregating, scoring


def _measured(model: str, task: str, level: float) -> results.AppResult:
    """An app scored on every metric of the table at ``level`` (0–1 of the way from
    the worst to a good value)."""
    scores = {}
    for m in metrics.TABLE:
        good = 100.0 if m.unit in ("%", "0-100") else 10.0
        worst = m.floor if m.floor is not None else (0.0 if m.higher_is_better else 20.0)
        value = worst + level * (good - worst) if m.higher_is_better else worst - level * (worst - 0.0)
        scores[m.name] = metrics.score(m.name, round(value, 3), "test")
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="explored", scores=scores)


def _broken(model: str, task: str, **kw) -> results.AppResult:
    return results.AppResult(model=model, task_id=task, outcome="start_failed", reason="no app submitted", **kw)


def _pool(broken_scores: bool) -> list[results.AppResult]:
    tasks = ["t1", "t2", "t3", "t4"]
    # "skipper" made one excellent app and skipped or broke the other three;
    # "steady" made four decent ones.
    apps = [_measured("skipper", "t1", 0.95)]
    for t in tasks[1:]:
        extra = {"scores": scoring.failure_scores("start_failed", "no app submitted")} if broken_scores else {}
        apps.append(_broken("skipper", t, **extra))
    apps += [_measured("steady", t, 0.6) for t in tasks]
    return apps


@pytest.mark.parametrize("weight_set", metrics.WEIGHT_SETS)
@pytest.mark.parametrize("broken_scores", [False, True], ids=["no-scores", "offline-floors"])
def test_skipping_most_tasks_never_wins(weight_set, broken_scores):
    apps = _pool(broken_scores)
    scored, rows = aggregating.aggregate(apps, weights=metrics.weights(weight_set), bootstrap=0)
    assert [r.model for r in rows] == ["steady", "skipper"], weight_set
    skipper = {a.task_id: a for a in scored if a.model == "skipper"}
    for name in metrics.weights(weight_set):
        floor = metrics.BY_NAME[name].floor
        if floor is not None:
            assert skipper["t2"].scores[name].value == floor
            reason = skipper["t2"].scores[name].reason
            assert reason.startswith(("floor: the app could not be measured", "the app did not start")), reason


def test_judged_means_include_the_floors_of_apps_that_never_started():
    _, rows = aggregating.aggregate(_pool(broken_scores=True), bootstrap=0)
    skipper = next(r for r in rows if r.model == "skipper")
    # one app at 95 and three at the floor 0: the mean is a quarter of 95
    assert skipper.metrics["aesthetics"] == pytest.approx(95.0 / 4)


def test_our_own_failures_stay_out_and_get_no_floor():
    apps = [_measured("a", "t1", 0.9), _measured("b", "t1", 0.5),
            results.AppResult(model="a", task_id="t2", outcome="error", reason="worker died",
                              scores=scoring.failure_scores("error", "worker died"))]
    scored, rows = aggregating.aggregate(apps, bootstrap=0)
    failed = next(a for a in scored if a.task_id == "t2")
    assert failed.overall is None and "aesthetics" not in failed.scores
    assert next(r for r in rows if r.model == "a").metrics["aesthetics"] == pytest.approx(
        _measured("a", "t1", 0.9).scores["aesthetics"].value)


def test_a_metric_nobody_was_scored_on_gets_no_floor():
    # offline run: no app has a judged score, so broken apps get no judged floor either
    offline = [results.AppResult(model="a", task_id="t1", outcome="evaluated", reason="",
                                 scores={"states": metrics.score("states", 3.0, "")}),
               _broken("b", "t1")]
    scored, _ = aggregating.aggregate(offline, bootstrap=0)
    broken = next(a for a in scored if a.model == "b")
    assert set(broken.scores) == {"states"} and broken.scores["states"].value == 0.0
    assert aggregating.weights_for(scored) == metrics.weights("default")


def _with_coverage(app: results.AppResult, covered: int, total: int) -> results.AppResult:
    pct = 100.0 * covered / total
    cov = metrics.score("coverage_statements", pct, f"{covered} of {total} statements executed",
                        raw={"covered": covered, "total": total, "library": 0})
    return app.model_copy(update={"scores": {**app.scores, "coverage_statements": cov}})


def test_coverage_floors_only_an_app_whose_own_code_never_ran():
    # coverage weighs nothing offline: 100 % or 5 % of the code run leaves the overall alone
    assert not {n for n in metrics.weights("default") if n.startswith("coverage_")}
    offline = metrics.weights("default")
    seen_all = _with_coverage(_measured("m", "t1", 0.6), 40, 40)
    seen_little = _with_coverage(_measured("m", "t1", 0.6), 2, 40)
    other = _measured("n", "t1", 0.4)
    high = aggregating.aggregate([seen_all, other], weights=offline, bootstrap=0)[0][0].overall
    low = aggregating.aggregate([seen_little, other], weights=offline, bootstrap=0)[0][0].overall
    assert high == pytest.approx(low)
    # none of its 40 statements ran, not even its top level: what the explorer saw the page
    # do, it did without its code, so the behaviour metrics are at their floors
    never = aggregating.aggregate([_with_coverage(_measured("m", "t1", 0.6), 0, 40), other], weights=offline, bootstrap=0)[0][0]
    for name in aggregating.BEHAVIOUR:
        assert never.scores[name].value == metrics.BY_NAME[name].floor, name
        assert "own code never ran" in never.scores[name].reason
    assert never.overall < high
    # a page with no script of its own (coverage unscored) is not floored
    css_only = _measured("m", "t1", 0.6).model_copy(update={"scores": {
        **_measured("m", "t1", 0.6).scores,
        "coverage_statements": metrics.score("coverage_statements", None, "not measured in black-box mode")}})
    kept = aggregating.aggregate([css_only, other], weights=offline, bootstrap=0)[0][0]
    assert kept.scores["states"].value == css_only.scores["states"].value


def _not_runnable(model: str, task: str) -> results.AppResult:
    """An app whose build needs the network: its four static metrics scored, the rest not."""
    reason = "not runnable here: build needs a network service (fetch failed), and builds have no network"
    static = {n: metrics.score(n, 40.0, "its source") for n in
              ("wcb_linting", "wcb_comments", "wcb_redundancy", "wcb_error_handling")}
    return results.AppResult(model=model, task_id=task, outcome="not_runnable", reason=reason,
                             scores={**scoring.failure_scores("not_runnable", reason), **static})


def _gamer_and_honest() -> list[results.AppResult]:
    """Two models alike on t1 and t4; on the hard tasks t2 and t3 "gamer" sent apps that
    cannot be built here (a git dependency), "honest" apps that fail to start."""
    apps = [_measured(m, t, 0.6) for m in ("gamer", "honest") for t in ("t1", "t4")]
    apps += [_not_runnable("gamer", t) for t in ("t2", "t3")]
    apps += [_broken("honest", t, scores=scoring.failure_scores("start_failed", "it crashed at load"))
             for t in ("t2", "t3")]
    return apps


@pytest.mark.parametrize("weight_set", metrics.WEIGHT_SETS)
def test_by_default_models_are_compared_on_the_tasks_where_every_app_ran(weight_set):
    apps = _gamer_and_honest()
    scored, rows = aggregating.aggregate(apps, weights=metrics.weights(weight_set), bootstrap=0)
    by_model = {r.model: r for r in rows}
    # the not-runnable apps lift nobody: both models stand on t1 and t4 alone, alike
    assert by_model["gamer"].rank == by_model["honest"].rank, rows
    assert by_model["gamer"].overall == pytest.approx(by_model["honest"].overall or 0.0, abs=1e-9)
    assert {a.task_id for a in scored if a.overall is not None} <= {"t1", "t4"}
    gamer = by_model["gamer"]
    assert (gamer.apps, gamer.not_runnable, gamer.left_out) == (4, 2, 2)
    assert gamer.outcomes == {"evaluated": 2, "not_runnable": 2}
    assert (by_model["honest"].not_runnable, by_model["honest"].left_out) == (0, 2)
    assert gamer.metrics["wcb_linting"] == pytest.approx(_measured("gamer", "t1", 0.6).scores["wcb_linting"].value)


def test_the_tasks_left_out_are_named_with_why():
    left = aggregating.left_out(_gamer_and_honest())
    assert sorted(left) == ["t2", "t3"]
    assert "gamer's app is not runnable here: build needs a network service" in left["t2"]
    assert aggregating.left_out(_gamer_and_honest(), "floor") == {}


@pytest.mark.parametrize("weight_set", metrics.WEIGHT_SETS)
def test_with_the_floor_setting_a_not_runnable_app_ranks_as_a_start_failure(weight_set):
    apps = _gamer_and_honest()
    as_failures = [a.model_copy(update={"outcome": "start_failed"}) if a.outcome == "not_runnable" else a
                   for a in apps]
    weights = metrics.weights(weight_set)
    scored, rows = aggregating.aggregate(apps, weights=weights, bootstrap=0, not_runnable="floor")
    _, same = aggregating.aggregate(as_failures, weights=weights, bootstrap=0, not_runnable="floor")
    assert [(r.model, r.rank, r.overall) for r in rows] == [(r.model, r.rank, r.overall) for r in same]
    here = next(a for a in scored if a.outcome == "not_runnable")
    assert here.scores["states"].value == metrics.BY_NAME["states"].floor
    assert here.scores["wcb_linting"].value == 40.0  # what its source was scored on stays
    assert all(r.left_out == 0 for r in rows)


def _webgen_apps(model: str, verdicts: dict[str, str]) -> list[results.AppResult]:
    return [results.AppResult(model=model, task_id=t, outcome="evaluated", reason="",
                              ui_tests=(results.UITestOutcome(index=0, verdict=v, reason="seen"),))
            for t, v in verdicts.items()]


def test_webgen_accuracy_follows_the_leaderboards_common_task_rule():
    # b's t2 cannot run here; a passed t2 and failed t1: left out for b alone, it would lift
    # b and a alike in no way the leaderboard does. The task is out for both models.
    from iwcbench.pipeline.contracts import task as task_mod
    from iwcbench.pipeline.stages.aggregating import webgen

    case = {"task": "Add a task", "expected_result": "It shows", "category": "Functional Testing: Adding"}
    tasks = [task_mod.Task(id=t, prompt="p", ui_tests=[case]) for t in ("t1", "t2")]
    apps = [*_webgen_apps("a", {"t1": "NO", "t2": "YES"}), *_webgen_apps("b", {"t1": "YES"}),
            _not_runnable("b", "t2")]
    a, b = webgen.accuracy_table(apps, tasks)
    without = webgen.accuracy_table([x for x in apps if x.task_id == "t1"], tasks[:1])
    assert [(r.model, r.accuracy, r.instructions) for r in (a, b)] == [(r.model, r.accuracy, r.instructions)
                                                                       for r in without] == [("a", 0.0, 1),
                                                                                             ("b", 100.0, 1)]
    assert (b.not_runnable, a.not_runnable) == (1, 0)
    assert a.reason.endswith("1 task left out for every model (not every model's app ran)"), a.reason
    # with the floor setting the app ranks as a start failure: every case NO
    a, b = webgen.accuracy_table(apps, tasks, not_runnable="floor")
    assert (a.accuracy, b.accuracy, b.start_failures, b.not_runnable) == (50.0, 50.0, 1, 1)
    assert "1 start failure counted as NO (1 not runnable here)" in b.reason, b.reason