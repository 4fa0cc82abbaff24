"""The leaderboard's noise: each model's 95 % interval holds the apps' bootstrap and the
metrics' run-to-run spread, and models whose intervals overlap share a rank band."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import metrics, results, spread
from iwcbench.pipeline.stages import aggregating
from iwcbench.pipeline.stages.aggregating import intervals

W = {"states": 0.5, "no_effect_ratio": 0.5}
# a rerun moves an app's states by about 2 and its no-effect share by about 3 points
SPREAD = spread.RunSpread(measured="test", runs=3, apps=10, metrics={
    "states": spread.MetricSpread(sd=2.0), "no_effect_ratio": spread.MetricSpread(sd=3.0)})
NONE_MEASURED = spread.RunSpread(measured="test", runs=0, apps=0)


def app(model: str, task: str, states: float, no_effect: float, **more: metrics.Score) -> results.AppResult:
    scores = {"states": metrics.score("states", states, "test"),
              "no_effect_ratio": metrics.score("no_effect_ratio", no_effect, "test"), **more}
    return results.AppResult(model=model, task_id=task, outcome="evaluated", reason="", scores=scores)


def board(apps, measured=SPREAD, bootstrap=300, weights=W) -> dict[str, results.LeaderboardRow]:
    _, rows = aggregating.aggregate(apps, weights, bootstrap=bootstrap, spread=measured)
    return {r.model: r for r in rows}


def overlap(a: results.LeaderboardRow, b: results.LeaderboardRow) -> bool:
    return a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1]


def test_the_same_app_under_two_model_names_ties_in_one_band():
    # "twin" is "original" evaluated again: each value moved by about one run spread
    tasks = [("t1", 30, 20), ("t2", 24, 30), ("t3", 36, 10)]
    apps = [app("original", t, s, e) for t, s, e in tasks]
    apps += [app("twin", t, s + 2, e - 3) for t, s, e in tasks]
    apps += [app("weak", t, 5, 80) for t, _, _ in tasks]
    rows = board(apps)
    assert rows["original"].rank != rows["twin"].rank  # the point estimates still order them...
    assert overlap(rows["original"], rows["twin"])  # ...but within the noise
    assert rows["original"].band == rows["twin"].band == 1
    assert rows["weak"].band == 2 and not overlap(rows["twin"], rows["weak"])
    # byte-for-byte the same scores: the same overall, overlapping intervals, one band
    exact = board([*[app("original", t, s, e) for t, s, e in tasks], *[app("copy", t, s, e) for t, s, e in tasks],
                   *[app("weak", t, 5, 80) for t, _, _ in tasks]])
    assert exact["original"].overall == exact["copy"].overall and overlap(exact["original"], exact["copy"])
    assert exact["original"].band == exact["copy"].band == 1 and exact["weak"].band == 2


def test_models_far_apart_get_bands_of_their_own():
    apps = [app(m, t, s, e) for t in ("t1", "t2", "t3") for m, s, e in
            (("good", 60, 5), ("middling", 30, 40), ("poor", 3, 90))]
    rows = board(apps)
    assert [rows[m].band for m in ("good", "middling", "poor")] == [1, 2, 3]
    assert all(r.interval[0] < r.overall < r.interval[1] for r in rows.values())


def test_one_app_per_model_still_gets_the_run_noise():
    # one task: the bootstrap has nothing to resample, so only the rerun spread widens it
    apps = [app("a", "t1", 30, 20), app("b", "t1", 31, 21), app("c", "t1", 5, 90)]
    rows = board(apps)
    assert all(r.interval[1] - r.interval[0] > 0 for r in rows.values())
    assert rows["a"].interval[1] - rows["a"].interval[0] > 0.1  # a and b could swap: their z moves most
    assert rows["a"].band == rows["b"].band != rows["c"].band
    # with no spread measured the same leaderboard shows no noise at all: a and b come apart
    bare = board(apps, NONE_MEASURED)
    assert all(r.interval[0] == r.interval[1] for r in bare.values())
    assert bare["a"].band != bare["b"].band


def test_more_apps_narrow_the_run_noise():
    models = (("a", 30, 20), ("b", 25, 35), ("c", 10, 60))
    # every task alike: the bootstrap has nothing to move, only the reruns do
    few = board([app(m, "t1", s, e) for m, s, e in models])
    many = board([app(m, f"t{i}", s, e) for i in range(9) for m, s, e in models])
    width = {name: r["a"].interval[1] - r["a"].interval[0] for name, r in (("few", few), ("many", many))}
    assert 0 < width["many"] < width["few"] / 2  # a mean of 9 apps moves by s / √9


def test_bands_are_chains_of_overlap_from_the_top():
    overall = {"a": 1.0, "b": 0.7, "c": 0.35, "d": -0.8, "e": -0.9, "none": None}
    spans = {"a": (0.8, 1.2), "b": (0.5, 0.9), "c": (0.1, 0.6), "d": (-1.0, -0.6), "e": (-1.0, -0.8)}
    # c overlaps b but not a: the chain keeps it in band 1; d opens band 2, e joins it
    assert intervals.bands(overall, spans) == {"a": 1, "b": 1, "c": 1, "d": 2, "e": 2}
    touching = {"a": (0.5, 1.5), "b": (-0.5, 0.5)}
    assert intervals.bands({"a": 1.0, "b": 0.0}, touching) == {"a": 1, "b": 1}


def test_a_judge_without_a_measured_spread_takes_it_from_its_repeats():
    def judged(model, task, value, runs):
        raw = {"runs": [{"sample": i, "score": s} for i, s in enumerate(runs)]}
        return app(model, task, 10, 10, aesthetics=metrics.score("aesthetics", value, "test", raw=raw))
    apps = [judged("a", "t1", 80, [4, 4, 4, 4, 4]), judged("b", "t1", 60, [2, 3, 3, 3, 4])]
    found = intervals.noise(apps, {"aesthetics": 1.0, "states": 1.0, "wcb_media_quality": 1.0}, SPREAD)
    assert found.sources == {"aesthetics": "judge_repeats", "states": "measured"}
    # b's five runs have sd 0.707 (×20 on 0-100, /√5 for their mean); a's none: pooled √(mean of squares)
    assert found.spread["aesthetics"] == pytest.approx(((20 * 0.7071) ** 2 / 5 / 2) ** 0.5, abs=1e-3)
    unmeasured = intervals.noise([app("a", "t1", 1, 1, alignment_visual=metrics.score("alignment_visual", 50, "t"))],
                                 {"alignment_visual": 1.0}, SPREAD)
    assert unmeasured.spread == {"alignment_visual": 0.0} and unmeasured.sources == {"alignment_visual": "unmeasured"}


def test_the_shipped_spread_is_measured_and_names_table_metrics():
    shipped = intervals.shipped()
    assert shipped.runs >= 2 and shipped.metrics and "hack/bench-repeat" in shipped.measured
    assert set(shipped.metrics) <= set(metrics.names())
    assert all(m.sd >= 0 and m.moved <= m.apps for m in shipped.metrics.values())
