"""Coverage per source file: each file's own percentages, and each function on the
lines its author wrote it on with how often it ran (the report's per-file table)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.exploring import coverage as istanbul


def test_each_file_has_its_own_percentages(coverage_map, hit):
    coverage = hit({k: v for k, v in coverage_map.items() if k != "never.js"}, "app.js",
                   s={0: 1, 1: 1}, f={1: 3}, b={0: [1, 0]})

    files = istanbul.per_file(coverage, coverage_map, {})

    assert set(files) == set(coverage_map)
    app, _ = files["app.js"]
    assert (app.statements, app.functions, app.branches) == (50.0, 50.0, 25.0)
    never, _ = files["never.js"]  # never loaded: nothing of it ran
    assert (never.statements, never.functions, never.branches) == (0.0, 0.0, 0.0)
    inline, runs = files["index.html#inline-1"]
    assert inline.functions is None and runs == ()


def test_functions_are_listed_on_their_source_lines_with_their_calls(coverage_map, hit):
    coverage = hit(coverage_map, "app.js", f={1: 3})
    source = "\n".join(f"line {n}" for n in range(1, 30))
    source = source.replace("line 11", '<button @click="title = \'Water the plants\'">Suggest</button>')

    _, runs = istanbul.per_file(coverage, coverage_map, {"app.js": source})["app.js"]

    assert [(r.name, r.line, r.end_line, r.calls) for r in runs] == [("fn0", 1, 3, 0), ("fn1", 11, 13, 3)]
    assert runs[0].text == "line 1"
    assert runs[1].text == '<button @click="title = \'Water the plants\'">Suggest</button>'  # a template line


def test_a_file_without_its_source_lists_its_functions_without_text(coverage_map):
    _, runs = istanbul.per_file({}, coverage_map, {})["never.js"]
    assert [r.text for r in runs] == ["", ""]
    assert all(r.calls == 0 for r in runs)


@pytest.mark.parametrize("width", [10, 500])
def test_long_lines_are_shortened(coverage_map, width):
    source = "x" * width
    _, runs = istanbul.per_file({}, coverage_map, {"app.js": source})["app.js"]
    assert len(runs[0].text) <= istanbul.FUNCTION_TEXT_CHARS + 1
