"""Which files are the app's own code, and how pages split into code units."""

from __future__ import annotations

import pathlib

from iwcbench.pipeline.stages.judging import webcoder
from iwcbench.pipeline.stages.quality import sources

PAGE = """<!doctype html>
<html>
<head>
<style>
body { margin: 0; }
</style>
</head>
<body>
<script>
let x = 1;
console.log(x);
</script>
<script src="app.js"></script>
</body>
</html>
"""


def test_dependencies_libraries_and_minified_files_are_not_the_apps(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "app.js").write_text("function go() {}\n")
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "jquery-3.7.1.js").write_text(
        "/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */\n"
        + "(function (global) { 'use strict'; })(this);\n" * 10)
    (tmp_path / "js" / "packed.js").write_text("x" * 2000)
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("module.exports = 1;\n")
    (tmp_path / "latin1.css").write_bytes("a { content: '\xe9'; }".encode("latin-1"))
    secret = tmp_path.parent / f"{tmp_path.name}-secret.js"
    secret.write_text("const key = 'not the app';\n")
    (tmp_path / "linked.js").symlink_to(secret)  # a link is never read, wherever it points
    kept = sources.keep(tmp_path)
    assert [f.path for f in kept.files] == ["index.html", "app.js"]
    assert {s.path: s.reason for s in kept.skipped} == {
        "js/jquery-3.7.1.js": "a library, not the app's own code: library banner (jQuery v3.7.1 | (c) OpenJS "
                              "Foundation and other contributors)",  # the label: 60 characters
        "js/packed.js": "minified", "latin1.css": "not UTF-8 text"}


# The app's own files, named as libraries are: kept, because their content says whose they are.
OWN_NAMED_LIKE_LIBRARIES = {
    "chart.js": "// draws the sales chart of this dashboard\nfunction drawChart(canvas, rows) {\n  return rows.length;\n}\n",
    "all.js": "// every page's shared helpers\nexport function $(sel) {\n  return document.querySelector(sel);\n}\n",
    "three.js": "// step three of the sign-up wizard\nfunction stepThree() {\n  show('#plan');\n}\n",
    "reset.css": "/* our reset: no margins */\n* { margin: 0; padding: 0; }\n",
    "animate.css": "/* the hero's fade-in */\n@keyframes fade { from { opacity: 0; } to { opacity: 1; } }\n",
    "bundle.min.js": "var total = 0;\n",
}
LIBRARY_COPIES = {
    "chart.js": "/*!\n * Chart.js v4.4.1\n * https://www.chartjs.org\n * (c) 2023 Chart.js Contributors\n"
                " * Released under the MIT License\n */\nvar Chart = function () {};\n",
    "reset.css": "/* http://meyerweb.com/eric/tools/css/reset/\n   v2.0 | 20110126\n   License: none (public domain)\n*/\n"
                 "html, body { margin: 0; }\n",
    "animate.css": '@charset "UTF-8";\n/*!\n * animate.css - https://animate.style/\n * Version - 4.1.1\n'
                   " * Licensed under the MIT license - http://opensource.org/licenses/MIT\n */\n:root { --d: 1s; }\n",
    "three.js": "/**\n * @license\n * Copyright 2010-2023 Three.js Authors\n * SPDX-License-Identifier: MIT\n */\n"
                "const REVISION = '160';\n",
}


def test_what_is_vendored_is_decided_by_content_never_by_name(tmp_path):
    own, copies = tmp_path / "own", tmp_path / "copies"
    for folder, files in ((own, OWN_NAMED_LIKE_LIBRARIES), (copies, LIBRARY_COPIES)):
        folder.mkdir()
        (folder / "index.html").write_text(PAGE)
        for name, text in files.items():
            (folder / name).write_text(text)
    kept = sources.keep(own)
    assert {f.path for f in kept.files} == {"index.html", *OWN_NAMED_LIKE_LIBRARIES} and not kept.skipped
    copied = sources.keep(copies)
    assert [f.path for f in copied.files] == ["index.html"]
    assert all(s.reason.startswith("a library, not the app's own code: library banner") for s in copied.skipped)
    assert {s.path for s in copied.skipped} == set(LIBRARY_COPIES)


def test_a_source_map_says_whose_code_a_file_is(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.ts").write_text("export const answer: number = 42;\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "app.js").write_text("export const answer = 42;\n//# sourceMappingURL=app.js.map\n")
    (tmp_path / "dist" / "app.js.map").write_text('{"version":3,"sources":["../src/app.ts"],"mappings":""}')
    (tmp_path / "dist" / "lib.js").write_text("var l = 1;\n//# sourceMappingURL=data:application/json;base64,"
                                              "eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbIi4uL25vZGVfbW9kdWxlcy9sZWZ0cGFkL2luZGV4LmpzIl19\n")
    (tmp_path / "src" / "env.d.ts").write_text("/// <reference types=\"vite/client\" />\n")
    kept = sources.keep(tmp_path)
    assert [f.path for f in kept.files] == ["index.html", "src/app.ts"]
    reasons = {s.path: s.reason for s in kept.skipped}
    assert reasons["dist/app.js"] == "built from the app's own sources (src/app.ts)"
    assert reasons["dist/lib.js"] == "a library, not the app's own code: its source map points into node_modules"
    assert reasons["src/env.d.ts"].startswith("type declarations only")


def test_the_source_budget_keeps_pages_first(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "big.js").write_text("let a = 1;\n" * 200)
    kept = sources.keep(tmp_path, max_bytes=len(PAGE) + 10)
    assert [f.path for f in kept.files] == ["index.html"]
    assert kept.skipped[0].reason.startswith("past the")


def test_inline_blocks_are_units_with_the_pages_line_numbers(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    units = sources.units(sources.keep(tmp_path))
    by_name = {u.name: u for u in units}
    assert list(by_name) == ["index.html", "index.html#style-1", "index.html#script-1"]
    script = by_name["index.html#script-1"]
    assert script.language == "js" and script.first_line == 9
    # line n of the block is line first_line + n - 1 of the page
    assert PAGE.splitlines()[script.first_line + 2 - 1 - 1] == "let x = 1;"
    skeleton = by_name["index.html"].skeleton
    assert "margin" not in skeleton and "console" not in skeleton
    assert skeleton.count("\n") == PAGE.count("\n")  # blanked, not removed: lines stay where they were


FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "sources"


def test_a_vite_typescript_apps_logic_is_kept_for_the_judges_and_the_code_metrics():
    kept = sources.keep(FIXTURES / "vite-ts")
    assert {f.path: f.language for f in kept.files} == {
        "index.html": "html", "public/chart.js": "js", "src/ledger.ts": "ts", "src/main.ts": "ts",
        "src/style.css": "css"}
    assert {s.path for s in kept.skipped} == {"dist/assets/index-4f2a.js", "src/vendor/tinybus.js"}
    # the static judges read exactly these files (stages/judging/webcoder.code_text)
    code, left_out = webcoder.code_text(kept, "n0nce")
    assert not left_out and "class Ledger" in code and "balances(): Balance" in code and "loadRates" in code
    units = {u.name: u for u in sources.units(kept)}
    assert units["src/ledger.ts"].language == "ts" and units["src/ledger.ts"].module
    assert units["src/main.ts"].job()["language"] == "ts"


def test_a_vue_apps_components_split_into_typescript_scss_and_their_template():
    kept = sources.keep(FIXTURES / "vue-sfc")
    assert {f.path: f.language for f in kept.files} == {
        "index.html": "html", "src/App.vue": "vue", "src/main.js": "js", "src/reset.css": "css",
        "src/components/BookList.vue": "vue"}
    code, _ = webcoder.code_text(kept, "n0nce")
    assert "function addBook(): void" in code and "pagesLeft()" in code
    units = {u.name: u for u in sources.units(kept)}
    script, style = units["src/App.vue#script-1"], units["src/App.vue#style-1"]
    assert (script.language, script.module, script.component) == ("ts", True, True)
    assert style.language == "scss" and "$accent" in style.text
    app = (FIXTURES / "vue-sfc" / "src" / "App.vue").read_text().splitlines()
    assert app[script.first_line - 1].startswith("<script setup") and "restoreShelf" not in units["src/App.vue"].skeleton
    assert units["src/components/BookList.vue#script-1"].language == "js"
    assert units["src/main.js"].module  # import statements: a module, not a classic script


def test_an_astro_files_frontmatter_is_typescript(tmp_path):
    (tmp_path / "index.astro").write_text("---\nconst title: string = 'Hi';\n---\n<h1>{title}</h1>\n"
                                          "<script>\n  const n: number = 1;\n</script>\n")
    units = {u.name: u for u in sources.units(sources.keep(tmp_path))}
    front = units["index.astro#frontmatter"]
    assert (front.language, front.first_line, front.text) == ("ts", 2, "const title: string = 'Hi';\n")
    assert units["index.astro#script-1"].language == "ts" and units["index.astro#script-1"].first_line == 5
