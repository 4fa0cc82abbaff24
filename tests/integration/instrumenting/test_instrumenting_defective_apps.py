"""Whatever an app holds, instrumenting returns a report with a reason."""

from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.node  # the real Node tools (hack/setup), no browser


def test_binary_junk_and_broken_html_are_reported_not_raised(instrument, app):
    junk = bytes(range(256)) * 40
    report, dest = instrument(app({
        "index.html": b"<html><body><script>var ok = 1;</script><div <<<>>> <script src=app.js>" + junk,
        "app.js": junk,
        "data.bin": junk,
    }))

    assert report.mode == "instrumented"
    assert [f.path for f in report.files] == ["index.html#inline-1"]
    assert [s.path for s in report.skipped] == ["app.js"]
    assert report.skipped[0].reason.startswith("could not parse: ")
    assert (dest / "data.bin").read_bytes() == junk
    assert (dest / "app.js").read_bytes() == junk


def test_a_page_that_is_not_utf8_keeps_its_bytes(instrument, app):
    page = ('<html><head><meta charset="iso-8859-1"></head><body><p>Caf\xe9 cr\xe8me</p>'
            '<script>var label = "d\xe9j\xe0 vu"; function show() { return label; }</script>'
            '<p>Gr\xfc\xdfe</p></body></html>').encode("latin-1")
    report, dest = instrument(app({"index.html": page, "app.js": 'var s = "\xe9t\xe9";'.encode("latin-1")}))

    assert report.mode == "instrumented"
    after = (dest / "index.html").read_bytes()
    assert after.startswith(page[:page.index(b"<script>") + len(b"<script>")])
    assert after.endswith(page[page.index(b"</script>"):])
    assert b'"d\xe9j\xe0 vu"' in after
    assert b'"\xe9t\xe9"' in (dest / "app.js").read_bytes()


def test_files_over_the_size_cap_are_left_alone(instrument, app):
    big = "var x = 1;\n" * 200
    report, dest = instrument(app({"index.html": "<script src=big.js></script><script>small()</script>",
                                   "big.js": big}), max_file_bytes=1000)

    assert [f.path for f in report.files] == ["index.html#inline-1"]
    [skip] = report.skipped
    assert skip.path == "big.js" and "over 1000" in skip.reason
    assert (dest / "big.js").read_text() == big


def test_a_node_process_past_its_deadline_leaves_the_app_as_it_came(instrument, app, tree_digest):
    src = app({"index.html": "<script src=a.js></script>", "a.js": "function a() { return 1 }\n" * 3000})
    report, dest = instrument(src, timeout_s=0.01)

    assert report.mode == "black_box"
    assert report.reason == "Node process timed out after 0.01 s"
    assert tree_digest(dest) == tree_digest(src)


def test_no_start_page_is_a_reason_and_scripts_are_still_counted(instrument, app):
    report, _ = instrument(app({"a.html": "<script>a()</script>", "b.html": "<script>b()</script>"}))

    assert report.entry is None
    assert report.reason.startswith("no index.html and 2 HTML pages at the root to choose from (a.html, b.html); ")
    assert report.mode == "instrumented"
    assert {f.path for f in report.files} == {"a.html#inline-1", "b.html#inline-1"}


def test_a_node_server_is_not_counted_but_a_page_can_claim_its_code(instrument, app):
    report, _ = instrument(app({
        "package.json": json.dumps({"main": "server.js", "dependencies": {"express": "4"}}),
        "server.js": "const express = require('express'); express().listen(3000);",
        "public/index.html": "<script src='shared.js'></script>",
        "public/shared.js": "if (typeof module !== 'undefined') module.exports = {}; window.shared = 1;",
    }))

    assert report.framework == "node"
    assert report.entry == "public/index.html"
    assert [f.path for f in report.files] == ["public/shared.js"]
    assert [s.path for s in report.skipped] == ["server.js"]


def test_an_unterminated_inline_script_is_instrumented_to_the_end(instrument, app):
    report, dest = instrument(app({"index.html": "<body><script>function late() { return 2 }"}))
    assert [f.path for f in report.files] == ["index.html#inline-1"]
    assert (dest / "index.html").read_text().startswith("<body><script>function cov_")


def test_nomodule_fallbacks_are_not_counted(instrument, app):
    report, _ = instrument(app({
        "index.html": "<script type=module src=modern.js></script><script nomodule src=legacy.js></script>",
        "modern.js": "export const a = 1;",
        "legacy.js": "var a = 1;",
    }))
    assert [f.path for f in report.files] == ["modern.js"]
    assert [(s.path, s.reason) for s in report.skipped] == [
        ("legacy.js", "nomodule script: modern browsers do not run it")]


def test_an_empty_app_folder_is_reported(instrument, tmp_path):
    empty = tmp_path / "empty"
    os.mkdir(empty)
    report, _ = instrument(empty)
    assert report.mode == "black_box"
    assert report.entry is None
    assert report.reason.startswith("no HTML page in the app (no index.html); no JavaScript in the app")


def test_a_single_broken_script_is_named_with_the_parser_message(instrument, app):
    report, _ = instrument(app({"index.html": "<script src=app.js></script>", "app.js": "function reset( {"}))
    assert report.mode == "black_box"
    assert report.reason.startswith("the only script failed to parse: app.js: Unexpected token")
