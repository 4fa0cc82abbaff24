"""Snapshots of window.__coverage__ from several page loads combine without losing
or double-counting anything."""

from __future__ import annotations

import copy

from iwcbench.pipeline.stages.exploring import coverage as istanbul


def test_counts_restarting_after_navigation_keep_what_was_covered(file_coverage, hit):
    base = {"app.js": file_coverage("app.js", 3, 1, [2])}
    first_load = hit(base, "app.js", s={0: 5, 1: 2}, f={0: 1}, b={0: [1, 0]})
    after_reload = hit(base, "app.js", s={0: 1, 2: 1}, b={0: [0, 3]})

    merged = istanbul.merge(first_load, after_reload)

    assert merged["app.js"]["s"] == {"0": 5, "1": 2, "2": 1}
    assert merged["app.js"]["f"] == {"0": 1}
    assert merged["app.js"]["b"] == {"0": [1, 3]}


def test_files_only_in_the_snapshot_are_added_and_others_kept(file_coverage, hit):
    total = {"a.js": file_coverage("a.js", 1, 0, [])}
    snapshot = hit({"b.js": file_coverage("b.js", 2, 0, [])}, "b.js", s={1: 4})

    merged = istanbul.merge(total, snapshot)

    assert set(merged) == {"a.js", "b.js"}
    assert merged["b.js"]["s"] == {"0": 0, "1": 4}


def test_inputs_are_left_unchanged(file_coverage, hit):
    total = hit({"a.js": file_coverage("a.js", 2, 1, [2])}, "a.js", s={0: 1})
    snapshot = hit({"a.js": file_coverage("a.js", 2, 1, [2])}, "a.js", s={1: 7}, b={0: [0, 1]})
    before_total, before_snapshot = copy.deepcopy(total), copy.deepcopy(snapshot)

    istanbul.merge(total, snapshot)

    assert total == before_total
    assert snapshot == before_snapshot


def test_merging_into_nothing_gives_the_snapshot(file_coverage, hit):
    snapshot = hit({"a.js": file_coverage("a.js", 2, 0, [])}, "a.js", s={0: 2})
    assert istanbul.merge({}, snapshot) == snapshot
