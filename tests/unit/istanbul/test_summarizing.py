"""Percentages are over every instrumented file, loaded or not."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.exploring import coverage as istanbul


def test_nothing_run_is_zero_percent(coverage_map):
    summary = istanbul.summarize({}, coverage_map)
    assert (summary.statements, summary.functions, summary.branches) == (0.0, 0.0, 0.0)


def test_files_never_loaded_count_as_uncovered(coverage_map, hit):
    # The page loaded app.js and the inline block, never never.js.
    coverage = {k: v for k, v in coverage_map.items() if k != "never.js"}
    coverage = hit(coverage, "app.js", s={0: 1, 1: 1, 2: 1, 3: 1}, f={0: 1, 1: 1}, b={0: [1, 1], 1: [1, 0]})
    coverage = hit(coverage, "index.html#inline-1", s={0: 1, 1: 1})

    summary = istanbul.summarize(coverage, coverage_map)

    assert summary.statements == pytest.approx(100 * 6 / 10)
    assert summary.functions == pytest.approx(100 * 2 / 4)
    assert summary.branches == pytest.approx(100 * 3 / 6)  # each arm counts


def test_a_metric_with_nothing_to_cover_is_none():
    only_statements = {"a.js": {"statementMap": {"0": {}}, "fnMap": {}, "branchMap": {}, "s": {"0": 0}, "f": {}, "b": {}}}
    summary = istanbul.summarize({"a.js": {"s": {"0": 3}, "f": {}, "b": {}}}, only_statements)
    assert summary.statements == 100.0
    assert summary.functions is None
    assert summary.branches is None


def test_an_empty_map_measures_nothing():
    summary = istanbul.summarize({"stray.js": {"s": {"0": 1}}}, {})
    assert (summary.statements, summary.functions, summary.branches) == (None, None, None)


def test_coverage_rises_as_more_is_run(coverage_map, hit):
    once = hit({"app.js": coverage_map["app.js"]}, "app.js", s={0: 1})
    twice = istanbul.merge(once, hit({"app.js": coverage_map["app.js"]}, "app.js", s={1: 1}))
    assert istanbul.summarize(twice, coverage_map).statements > istanbul.summarize(once, coverage_map).statements
