"""What is still uncovered, with enough source to act on."""

from __future__ import annotations

from iwcbench.pipeline.stages.exploring import coverage as istanbul

SOURCE = "\n".join(f"line {n}" for n in range(1, 30))


def test_uncovered_functions_come_with_their_lines_and_source(file_coverage, hit):
    cmap = {"app.js": file_coverage("app.js", statements=0, functions=2, arms=[])}
    coverage = hit(cmap, "app.js", f={0: 1})

    items = istanbul.uncovered(coverage, cmap, {"app.js": SOURCE}, limit=10)

    assert items == [{
        "file": "app.js", "kind": "function", "name": "fn1", "start_line": 11, "end_line": 13,
        "snippet": "line 11\nline 12\nline 13",
    }]


def test_statements_inside_an_uncovered_function_are_not_repeated(file_coverage, hit):
    cmap = {"app.js": file_coverage("app.js", statements=12, functions=2, arms=[])}
    # Function 1 (lines 11-13) never ran; statements 0-9 (lines 1-10) ran.
    coverage = hit(cmap, "app.js", f={0: 1}, s={i: 1 for i in range(10)})

    items = istanbul.uncovered(coverage, cmap, {"app.js": SOURCE}, limit=10)

    assert [(i["kind"], i["start_line"]) for i in items] == [("function", 11)]


def test_loaded_files_come_first_and_the_limit_holds(file_coverage, hit):
    cmap = {
        "never.js": file_coverage("never.js", statements=3, functions=0, arms=[]),
        "app.js": file_coverage("app.js", statements=3, functions=0, arms=[]),
    }
    coverage = hit({"app.js": cmap["app.js"]}, "app.js", s={0: 1})

    items = istanbul.uncovered(coverage, cmap, {}, limit=3)

    assert [(i["file"], i["start_line"]) for i in items] == [("app.js", 2), ("app.js", 3), ("never.js", 1)]
    assert all(i["snippet"] == "" for i in items)  # no source known


def test_long_bodies_are_shortened():
    cmap = {"big.js": {"statementMap": {}, "fnMap": {"0": {"name": "big", "loc": {
        "start": {"line": 1, "column": 0}, "end": {"line": 25, "column": 1}}}}, "branchMap": {},
        "s": {}, "f": {"0": 0}, "b": {}}}
    [item] = istanbul.uncovered({}, cmap, {"big.js": SOURCE}, limit=5)
    assert item["snippet"].splitlines()[:2] == ["line 1", "line 2"]
    assert item["snippet"].endswith("…")
    assert len(item["snippet"].splitlines()) <= istanbul.SNIPPET_LINES + 1


def test_everything_covered_leaves_nothing(file_coverage, hit):
    cmap = {"app.js": file_coverage("app.js", statements=2, functions=1, arms=[])}
    coverage = hit(cmap, "app.js", s={0: 1, 1: 1}, f={0: 1})
    assert istanbul.uncovered(coverage, cmap, {"app.js": SOURCE}, limit=5) == []
