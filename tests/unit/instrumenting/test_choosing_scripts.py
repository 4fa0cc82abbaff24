"""Which files go to Istanbul, and which are left alone with a reason."""

from __future__ import annotations

import json

from iwcbench.pipeline.stages.instrumenting import surveying


def _scripts(root, limit=1000):
    pages, scripts, skipped = surveying.survey(root, limit)
    return pages, {s["path"]: (s["skip"], s["soft"]) for s in scripts}, skipped


def test_app_scripts_are_candidates_and_node_modules_are_not(app):
    root = app({
        "index.html": "<script src=app.js></script>",
        "app.js": "go()", "lib/util.mjs": "export const a = 1",
        "node_modules/react/index.js": "module.exports = 1",
        "style.css": "p{}",
    })
    pages, scripts, skipped = _scripts(root)
    assert pages == ["index.html"]
    assert scripts == {"app.js": (None, False), "lib/util.mjs": (None, False)}
    assert skipped == []


def test_pages_without_scripts_need_no_parsing(app):
    pages, _, _ = _scripts(app({"index.html": "<SCRIPT>a()</SCRIPT>", "about.html": "<p>plain</p>"}))
    assert pages == ["index.html"]


def test_vendor_configs_tests_and_server_code_are_set_aside(app):
    root = app({
        "package.json": json.dumps({"main": "server.js"}),
        "server.js": "app.listen(3000)",
        "api.js": "const fs = require('fs')",
        "db.mjs": "import { readFile } from 'node:fs/promises'",
        "vendor/chart.min.js": "!function(){}()",
        "tailwind.config.js": "export default {}",
        "app.test.js": "test('x', () => {})",
        "big.js": "x".rjust(2000, " "),
    })
    _, scripts, _ = _scripts(root, limit=1000)
    assert scripts["server.js"][1] and "Node code" in scripts["server.js"][0]
    assert scripts["api.js"][1] and "Node code" in scripts["api.js"][0]
    assert scripts["db.mjs"][1]
    assert scripts["tailwind.config.js"] == ("build tool configuration, not app code", True)
    assert scripts["app.test.js"] == ("test file, not app code", True)
    # Hard skips: not even a page loading them brings them back.
    assert scripts["vendor/chart.min.js"] == ("minified library: vendor code, not the app's own", False)
    assert scripts["big.js"] == ("2000 bytes (over 1000)", False)


def test_an_oversized_page_is_reported(app):
    pages, _, skipped = _scripts(app({"index.html": "<script>a()</script>" + " " * 2000}))
    assert pages == []
    assert [s.path for s in skipped] == ["index.html"]
    assert "over 1000" in skipped[0].reason
