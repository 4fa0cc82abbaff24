"""Instrumenting real fixture apps with the real Node tools (no browser)."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.node  # the real Node tools (hack/setup), no browser


def test_every_kind_of_script_is_instrumented_under_its_own_key(instrument, fixture_app):
    report, dest = instrument(fixture_app("counter"))

    assert report.framework == "static"
    assert report.mode == "instrumented"
    assert report.entry == "index.html"
    kinds = {f.path: f.kind for f in report.files}
    assert kinds == {
        "index.html#inline-1": "inline",
        "index.html#inline-2": "inline-module",
        "js/app.js": "external",
        "js/main.mjs": "module",
        "js/util.js": "module",
    }
    assert report.reason == "instrumented 5 scripts"
    assert report.skipped == ()
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())
    assert set(coverage_map) == set(kinds)
    for f in report.files:
        fc = coverage_map[f.path]
        assert fc["path"] == f.path
        assert len(fc["statementMap"]) == f.statements > 0
        assert len(fc["fnMap"]) == f.functions
        assert sum(len(arms) for arms in fc["b"].values()) == f.branches
    assert report.duration_s > 0


def test_inline_locations_are_lines_of_the_page(instrument, fixture_app):
    _, dest = instrument(fixture_app("counter"))
    original = (fixture_app("counter") / "index.html").read_text().splitlines()
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())
    sources = json.loads((dest / ".iwc/coverage-sources.json").read_text())

    render = next(fn for fn in coverage_map["index.html#inline-1"]["fnMap"].values() if fn["name"] == "render")
    line = render["decl"]["start"]["line"]
    assert "function render(value)" in original[line - 1]
    assert sources["index.html#inline-1"].splitlines()[line - 1] == original[line - 1]
    assert sources["js/util.js"] == (fixture_app("counter") / "js/util.js").read_text()


def test_the_page_outside_the_instrumented_blocks_is_byte_identical(instrument, fixture_app):
    src = fixture_app("counter")
    _, dest = instrument(src)
    before = (src / "index.html").read_bytes()
    after = (dest / "index.html").read_bytes()
    blocks = list(re.finditer(rb"<script>(.*?)</script>|<script type=\"module\">(.*?)</script>", before, re.S))
    assert len(blocks) == 2
    # Every byte between the two instrumented bodies is kept, in order.
    first, second = blocks[0].start(1), blocks[1].start(2)
    assert after.startswith(before[:first])
    assert after.endswith(before[blocks[1].end(2):])
    assert before[blocks[0].end(1):second] in after
    # Data blocks are untouched.
    for data in (b'<script type="importmap">{ "imports": { "util": "./js/util.js" } }</script>',
                 b'<script type="application/json" id="config">{ "step": 1, "label": "</scr" }</script>',
                 b'<script type="text/babel">const Never = () => <div>jsx is not run</div>;</script>'):
        assert data in after
    assert b"__coverage__" in after
    assert (dest / "style.css").read_bytes() == (src / "style.css").read_bytes()


def test_the_source_folder_is_never_modified(instrument, fixture_app, tree_digest):
    for name in ("counter", "broken", "vite-prebuilt"):
        before = tree_digest(fixture_app(name))
        instrument(fixture_app(name))
        assert tree_digest(fixture_app(name)) == before


def test_scripts_that_do_not_parse_make_a_black_box_with_the_parser_message(instrument, fixture_app, tree_digest):
    report, dest = instrument(fixture_app("broken"))

    assert report.mode == "black_box"
    assert report.reason.startswith("all 2 scripts failed to parse: ")
    assert "Unexpected token" in report.reason
    assert {s.path for s in report.skipped} == {"app.js", "index.html#inline-1"}
    assert report.entry == "index.html"
    assert tree_digest(dest) == {**tree_digest(fixture_app("broken")), **{
        k: v for k, v in tree_digest(dest).items() if k.startswith(".iwc/")}}


def test_a_prebuilt_build_framework_app_is_served_from_its_build_folder(instrument, fixture_app):
    report, dest = instrument(fixture_app("vite-prebuilt"))

    assert report.framework == "vite"
    assert report.mode == "instrumented"
    assert report.entry == "index.html"
    assert (dest / "index.html").read_text().count("/assets/index-4f2a9c.js") == 1
    assert not (dest / "src").exists()  # the served root is the build output
    assert [f.path for f in report.files] == ["assets/index-4f2a9c.js"]
    assert report.files[0].kind == "module"
    assert "prebuilt dist/" in report.reason


def test_a_build_framework_without_a_build_is_a_black_box(instrument, app):
    report, dest = instrument(app({
        "package.json": '{"dependencies": {"next": "14.2.0"}}',
        "pages/index.js": "export default function Home() { return null }",
    }))

    assert report.framework == "next"
    assert report.mode == "black_box"
    assert "framework next needs a build; build frameworks are not instrumented yet" in report.reason
    assert report.entry is None
    assert report.reason.startswith("no HTML page in the app")
    assert (dest / "pages/index.js").is_file()
    assert not (dest / ".iwc").exists()


def test_an_app_without_javascript_is_a_black_box(instrument, app):
    report, _ = instrument(app({"index.html": "<h1>Hi</h1><script type='application/ld+json'>{}</script>"}))
    assert report.mode == "black_box"
    assert report.reason == "no JavaScript in the app (no script files or inline <script> blocks)"
    assert report.entry == "index.html"
