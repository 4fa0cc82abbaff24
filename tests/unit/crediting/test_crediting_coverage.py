"""Coverage is credited only where V8 saw the code run: counters the page set by hand,
sites in a copy the page evaluated, and a counter whose increment the app spelled out
a second time are not credited; code that ran is."""

from __future__ import annotations

from iwcbench.pipeline.stages.exploring import crediting

# One file: function 0 spans [10, 50) and ran; function 1 spans [60, 100) and did
# not; statement 0 sits in f0, statement 1 in f1, branch 0's arms in f0 at 20 and 40,
# where the block [35, 45) holding arm 1 never ran.
SITES = {"app.js": {"sha256": "genuine", "s": {"0": [15], "1": [65]}, "f": {"0": [12], "1": [62]},
                    "b": {"0": [[20], [40]]}}}
V8 = [{"functionName": "", "ranges": [{"startOffset": 0, "endOffset": 120, "count": 1}]},
      {"functionName": "a", "ranges": [{"startOffset": 10, "endOffset": 50, "count": 3},
                                       {"startOffset": 35, "endOffset": 45, "count": 0}]},
      {"functionName": "b", "ranges": [{"startOffset": 60, "endOffset": 100, "count": 0}]}]
FORGED = {"app.js": {"s": {"0": 1, "1": 1}, "f": {"0": 1, "1": 1}, "b": {"0": [1, 1]}}}


def test_counts_come_from_the_innermost_range():
    assert crediting.counts_at(V8, [5, 12, 40, 62, 110, 130]) == {5: 1, 12: 3, 40: 0, 62: 0, 110: 1, 130: 0}


def test_only_counters_v8_saw_run_are_confirmed():
    confirmed = crediting.confirmations(SITES, [("genuine", V8)])
    assert confirmed == {("app.js", "s", "0", -1), ("app.js", "f", "0", -1), ("app.js", "b", "0", 0)}


def test_forged_counters_are_not_credited():
    confirmed = crediting.confirmations(SITES, [("genuine", V8)])
    credited = crediting.credit(FORGED, confirmed)
    assert credited["app.js"]["s"] == {"0": 1, "1": 0}
    assert credited["app.js"]["f"] == {"0": 1, "1": 0}
    assert credited["app.js"]["b"] == {"0": [1, 0]}
    assert FORGED["app.js"]["f"] == {"0": 1, "1": 1}  # the input is untouched


def test_a_copy_with_another_hash_proves_nothing():
    everything = [{"functionName": "", "ranges": [{"startOffset": 0, "endOffset": 120, "count": 1}]}]
    assert crediting.confirmations(SITES, [("modified-copy", everything)]) == set()


def test_a_counter_the_app_spelled_out_twice_needs_both_sites_to_run():
    sites = {"app.js": {"sha256": "genuine", "s": {}, "f": {"1": [62, 15]}, "b": {}}}
    assert crediting.confirmations(sites, [("genuine", V8)]) == set()  # 15 ran, 62 did not


def test_identical_copies_add_up():
    second = [{"functionName": "b", "ranges": [{"startOffset": 60, "endOffset": 100, "count": 1}]}]
    confirmed = crediting.confirmations(SITES, [("genuine", V8), ("genuine", second)])
    assert ("app.js", "f", "1", -1) in confirmed


def test_claims_list_what_istanbul_counts():
    assert crediting.claims({"a": {"s": {"0": 2, "1": 0}, "f": {}, "b": {"0": [0, 1]}}}) == {
        ("a", "s", "0", -1): 2, ("a", "b", "0", 1): 1}


def test_keys_without_sites_are_not_credited():
    credited = crediting.credit({"other.js": {"s": {"0": 5}, "f": {"0": 1}, "b": {}}}, set())
    assert credited["other.js"]["s"] == {"0": 0} and credited["other.js"]["f"] == {"0": 0}
