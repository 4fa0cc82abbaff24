"""Instrumented apps report their counters on window.__coverage__ in real Chromium."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.stages.exploring import coverage as istanbul

pytestmark = pytest.mark.browser

READ = "() => JSON.parse(JSON.stringify(window.__coverage__ || {}))"


def _covered_functions(coverage: dict, key: str, coverage_map: dict) -> set[str]:
    # (the page holds counters only: the names are in the coverage map)
    return {fn["name"] for fid, fn in coverage_map[key]["fnMap"].items() if coverage[key]["f"].get(fid, 0) > 0}


def test_classic_inline_and_module_scripts_all_count_and_clicks_raise_coverage(
        instrument, fixture_app, serving, page):
    report, dest = instrument(fixture_app("counter"))
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)

    with serving(dest) as base:
        page.goto(f"{base}/{report.entry}")
        page.wait_for_function("() => window.moduleReady === true && window.mainStarted === '0 clicks'")
        loaded = page.evaluate(READ)
        assert set(loaded) == set(coverage_map)  # the CSP page ran every kind of script
        before = istanbul.summarize(loaded, coverage_map)

        page.click("#inc")
        page.wait_for_function("() => document.title === '1 click'")
        total = istanbul.merge(loaded, page.evaluate(READ))
        after_click = istanbul.summarize(total, coverage_map)

        # Counts restart on reload; merging keeps what the first load covered.
        page.reload()
        page.wait_for_function("() => window.moduleReady === true")
        page.click("#reset")
        total = istanbul.merge(total, page.evaluate(READ))
        after_reload = istanbul.summarize(total, coverage_map)

    assert errors == []
    assert 0 < before.statements < after_click.statements < after_reload.statements < 100
    assert before.functions < after_click.functions
    assert before.branches < after_click.branches
    assert "add" in _covered_functions(total, "js/app.js", coverage_map)
    assert "reset" in _covered_functions(total, "js/app.js", coverage_map)
    assert "render" in _covered_functions(total, "index.html#inline-1", coverage_map)
    assert "describe" in _covered_functions(total, "js/util.js", coverage_map)
    assert "unused" not in _covered_functions(total, "js/util.js", coverage_map)
    left = istanbul.uncovered(total, coverage_map, json.loads((dest / ".iwc/coverage-sources.json").read_text()), limit=5)
    assert {"file": "js/util.js", "name": "unused"} in [{"file": i["file"], "name": i["name"]} for i in left]


def test_a_prebuilt_bundle_reports_coverage_from_the_served_build(instrument, fixture_app, serving, page):
    report, dest = instrument(fixture_app("vite-prebuilt"))
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())

    with serving(dest) as base:
        page.goto(f"{base}/{report.entry}")
        page.wait_for_function("() => document.getElementById('app').textContent === 'hello from the build'")
        summary = istanbul.summarize(page.evaluate(READ), coverage_map)

    assert summary.statements == 100.0
    assert summary.branches == 50.0  # the `n ? … : "?"` arm that never ran
