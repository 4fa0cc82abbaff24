"""Agreement with human votes, overall and by Δz band (IWC-Bench Table 4), on a vote set
worked out by hand: ties, missing apps and a model absent from the results."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import analyses
from iwcbench.pipeline.stages.analysing import agreement

OVERALL = {("m1", "t1"): 1.0, ("m2", "t1"): 0.9, ("m3", "t1"): -0.5,
           ("m1", "t2"): 0.0, ("m2", "t2"): 1.2,
           ("m1", "t3"): 0.3, ("m2", "t3"): 0.3,
           ("m1", "t4"): 2.5, ("m2", "t4"): -0.1,
           ("m2", "t5"): None}


def vote(task, a, b, winner):
    return analyses.PairVote(task=task, model_a=a, model_b=b, winner=winner)


VOTES = [
    vote("t1", "m1", "m2", "m1"),  # benchmark agrees, Δz 0.1
    vote("t1", "m2", "m3", "m3"),  # benchmark prefers m2: disagrees, Δz 1.4
    vote("t2", "m1", "m2", "m2"),  # agrees, Δz 1.2
    vote("t3", "m1", "m2", "m1"),  # benchmark tie
    vote("t1", "m1", "m3", "tie"),  # human tie
    vote("t4", "m1", "m2", "m1"),  # agrees, Δz 2.6
    vote("t5", "m1", "m2", "m1"),  # m1 has no app for t5, m2 no overall: unmatched
    vote("t4", "m1", "m4", "m4"),  # m4 is not in the results: unmatched
]


def test_overall_agreement_and_what_is_counted_apart():
    found = agreement.agreement(VOTES, OVERALL, bootstrap=500)
    assert (found.pairs, found.compared, found.agree, found.rate) == (8, 4, 3, 0.75)
    assert (found.human_ties, found.benchmark_ties, found.unmatched) == (1, 1, 2)
    lo, hi = found.interval
    assert 0.0 <= lo <= 0.75 <= hi <= 1.0
    assert found.disagreements == ({"task": "t1", "human": "m3", "benchmark": "m2", "dz": 1.4},)


def test_bands_within_and_cumulative():
    bands = {b.lower: b for b in agreement.agreement(VOTES, OVERALL, bootstrap=0).bands}
    assert list(bands) == list(analyses.DZ_BANDS) and bands[2.0].upper is None
    assert (bands[0.0].n, bands[0.0].agree) == (1, 1)
    assert (bands[1.0].n, bands[1.0].agree, bands[1.0].rate) == (2, 1, 0.5)
    assert (bands[2.0].n, bands[2.0].agree) == (1, 1)
    assert sum(b.n for b in bands.values()) == 4
    # cumulative: every decisive pair with Δz at or above the band's lower bound
    assert [(b.cumulative_n, b.cumulative_agree) for b in bands.values()] == [
        (4, 3), (3, 2), (3, 2), (3, 2), (3, 2), (1, 1), (1, 1)]
    assert bands[0.25].cumulative_rate == pytest.approx(2 / 3, abs=1e-4)
    assert bands[0.5].rate is None  # an empty band has no rate, not 0


def test_ratings_become_preferences_within_a_task():
    ratings = [analyses.RatingVote(task="t1", model="m1", score=5), analyses.RatingVote(task="t1", model="m2", score=3),
               analyses.RatingVote(task="t1", model="m3", score=2), analyses.RatingVote(task="t1", model="m3", score=4)]
    pairs = agreement.pairs_from(ratings)
    assert [(p.model_a, p.model_b, p.winner) for p in pairs] == [
        ("m1", "m2", "m1"), ("m1", "m3", "m1"), ("m2", "m3", "tie")]  # m3's two ratings average to 3
    found = agreement.agreement(pairs, OVERALL, bootstrap=0)
    assert (found.compared, found.agree, found.human_ties) == (2, 2, 1)


def test_a_bad_vote_names_its_problem():
    with pytest.raises(ValueError, match="winner must be"):
        vote("t1", "m1", "m2", "m9")
