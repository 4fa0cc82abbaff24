"""Vite, Next.js, CRA and Astro apps built with Istanbul count their own code in Chromium.

Each fixture is installed from the npm registry and built for real (slow: marked
``build``), served by our own static server, and used the way a person would: add a
task, tick it, open the other view. Coverage must come from the app's own source files,
keyed by their paths in the project, with locations on the original lines.
"""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.stages.exploring import coverage as istanbul
from iwcbench.pipeline.stages import serving

pytestmark = [pytest.mark.build, pytest.mark.browser]

READ = "() => JSON.parse(JSON.stringify(window.__coverage__ || {}))"
OWN_SOURCES = {
    "vite": {"src/App.jsx", "src/main.jsx", "src/tasks.js"},
    "cra": {"src/App.js", "src/index.js", "src/tasks.js"},
    "next": {"components/TasksApp.jsx", "components/tasks.js"},
    # the pages' <script> blocks too (js/components.cjs), with counters in a page's inline script
    "astro": {"src/scripts/app.js", "src/scripts/tasks.js", "src/pages/index.astro", "src/pages/stats.astro"},
}
TASKS_FILE = {"vite": "src/tasks.js", "cra": "src/tasks.js", "next": "components/tasks.js",
              "astro": "src/scripts/tasks.js"}


def use_react_app(page, base: str) -> None:
    page.goto(base)
    page.get_by_label("New task").fill("Buy milk")
    page.get_by_role("button", name="Add").click()
    page.get_by_role("checkbox").check()
    page.get_by_role("button", name="Stats").click()
    page.get_by_text("1 tasks: 1 done, 0 open").wait_for()


def use_astro_app(page, base: str) -> dict:
    page.goto(base)
    page.get_by_label("New task").fill("Buy milk")
    page.get_by_role("button", name="Add").click()
    page.get_by_role("checkbox").check()
    first_page = page.evaluate(READ)  # counters restart with the next page load
    page.get_by_role("link", name="Stats").click()
    page.get_by_text("1 tasks: 1 done, 0 open").wait_for()
    return first_page


@pytest.mark.parametrize("framework", ["vite", "next", "cra", "astro"])
def test_a_framework_app_is_built_with_istanbul_and_its_own_code_is_covered(built, page, framework):
    result = built(framework)
    assert result.report.result == "instrumented", result.report.reason + "\n" + result.report.log_tail
    assert set(result.coverage_map) == OWN_SOURCES[framework]  # no dependency, no framework code
    tasks = TASKS_FILE[framework]
    original = (result.site.parents[0] / tasks).read_text()
    assert result.sources[tasks] == original
    add_task = next(f for f in result.coverage_map[tasks]["fnMap"].values() if f["name"] == "addTask")
    assert original.splitlines()[add_task["loc"]["start"]["line"] - 1].startswith("export function addTask")

    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    with serving.serve(result.site) as served:
        if framework == "astro":
            coverage = istanbul.merge(use_astro_app(page, served.url), page.evaluate(READ))
        else:
            use_react_app(page, served.url)
            coverage = page.evaluate(READ)
    assert errors == []
    assert set(coverage) <= set(result.coverage_map)
    summary = istanbul.summarize(coverage, result.coverage_map)
    assert 30 < summary.statements < 100, summary
    fc = coverage[tasks]
    covered = {fn["name"] for fid, fn in fc["fnMap"].items() if fc["f"][fid] > 0}
    assert {"addTask", "toggleTask", "summary"} <= covered
    assert "removeTask" not in covered  # nobody deleted a task


# Where each bundler's source maps name the original tasks file: relative to the map
# (Vite, Astro), webpack://_N_E/./ (Next.js), relative to src/ (CRA's own convention).
MAP_SOURCE = {"vite": "../../src/tasks.js", "astro": "../../src/scripts/tasks.js",
              "next": "webpack://_N_E/./components/tasks.js", "cra": "tasks.js"}


@pytest.mark.parametrize("framework", ["vite", "next", "cra", "astro"])
def test_the_built_bundles_carry_source_maps_to_the_original_files(built, framework):
    result = built(framework)
    maps = [json.loads(p.read_text()) for p in result.site.rglob("*.js.map")]
    entries = [(src, text) for m in maps for src, text in zip(m.get("sources", []), m.get("sourcesContent") or [])]
    original = (result.site.parent / TASKS_FILE[framework]).read_text()
    mapped = [text for src, text in entries if src == MAP_SOURCE[framework]]
    assert mapped, sorted(src for src, _ in entries if "node_modules" not in src)
    assert mapped[0] == original  # the map carries the file as written, not instrumented code


def test_a_next_app_with_google_fonts_builds_offline_with_the_fonts_own_files_from_npm(built):
    # create-next-app's layout: next/font/google fetches Inter while building, and the build
    # has no network; Inter's own files come from its @fontsource package, fetched before
    # the build (stages/instrumenting/fonts.py), and the reason says so
    result = built("next")
    assert result.report.result == "instrumented", result.report.reason + "\n" + result.report.log_tail
    assert "next/font/google: the build has no network, so Inter from @fontsource/inter@" in \
        result.report.reason, result.report.reason
    css = "".join(p.read_text() for p in result.site.rglob("*.css"))
    assert "@font-face" in css and "Inter" in css
    fonts = [p for p in result.site.rglob("*") if p.suffix in (".ttf", ".woff2")]
    assert fonts and all(p.stat().st_size > 10_000 for p in fonts)  # a real font file, not a stub
    assert all(p.read_bytes()[:4] == b"wOF2" for p in fonts)  # Google's woff2, not the local TrueType stand-in
    assert not (result.site.parent / ".iwc-next-fonts.log").exists()
