"""Apps of the shape models write today — create-vite's react-ts, vue-ts and svelte-ts,
create-next-app (TypeScript, Tailwind, next/font), an Astro site whose logic is in its
components' <script> blocks — built with Istanbul: every component file of the app's
own is in the coverage map under its path in the project, its locations are lines of
the file as written (a template handler's: the template's line), and it is built the
same with the app's lockfile and without one (models often leave it out).

Each fixture is installed from the npm registry and built for real (slow: marked
``build``); the runs in tests/integration/run/test_component_apps_run.py explore them.
"""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages.instrumenting import building

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "frameworks"

pytestmark = [pytest.mark.build]

# every file of the app's own that the browser runs (server components, layouts and
# Astro's frontmatter run on the server: not in the map)
OWN = {
    "vue-ts": {"src/main.ts", "src/tasks.ts", "src/App.vue", "src/components/TaskForm.vue",
               "src/components/TaskList.vue", "src/components/TaskList.vue#template",
               "src/components/StatsView.vue"},
    "svelte-ts": {"src/main.ts", "src/lib/tasks.ts", "src/App.svelte", "src/lib/TaskForm.svelte",
                  "src/lib/TaskList.svelte", "src/lib/Stats.svelte"},
    "react-ts": {"src/main.tsx", "src/tasks.ts", "src/App.tsx", "src/components/TaskForm.tsx",
                 "src/components/TaskList.tsx", "src/components/Stats.tsx"},
    "astro-ts": {"src/lib/tasks.ts", "src/components/TaskForm.astro", "src/components/TaskList.astro",
                 "src/pages/stats.astro", "src/pages/stats.astro#script-2"},
    "next-ts": {"lib/tasks.ts", "components/TasksApp.tsx", "components/TaskForm.tsx",
                "components/TaskList.tsx", "components/Stats.tsx"},
}
FRAMEWORK = {"vue-ts": "vite", "svelte-ts": "vite", "react-ts": "vite", "astro-ts": "astro", "next-ts": "next"}
# (key, function name or None for an anonymous one, the text its line starts with)
PLACES = {
    "vue-ts": [("src/components/TaskForm.vue", "submit", "function submit()"),
               ("src/components/StatsView.vue", "confirmClear", "function confirmClear()"),
               ("src/components/TaskForm.vue", None, '<button type="button" @click="title = \'Water the plants\'">'),
               ("src/components/TaskList.vue", None, "toggle(id: number) {"),
               ("src/components/TaskList.vue#template", None, '<button type="button" @click="remove(task.id)">')],
    "svelte-ts": [("src/lib/TaskForm.svelte", "submit", "function submit(event: SubmitEvent) {"),
                  ("src/lib/Stats.svelte", "confirmClear", "function confirmClear() {"),
                  ("src/lib/TaskList.svelte", None,
                   '<button type="button" onclick={() => onremove(task.id)}>Delete</button>')],
    "react-ts": [("src/components/TaskForm.tsx", "submit", "function submit(event: FormEvent<HTMLFormElement>) {")],
    "astro-ts": [("src/components/TaskList.astro", "render", "function render() {"),
                 ("src/pages/stats.astro#script-2", "show", "function show() {"),
                 ("src/components/TaskForm.astro", None, "document.getElementById('suggest')!.addEventListener(")],
    "next-ts": [("components/Stats.tsx", "confirmClear", "function confirmClear() {")],
}


def _without_lockfile(tmp_path, name: str):
    app = tmp_path / name
    shutil.copytree(FIXTURES / name, app, ignore=shutil.ignore_patterns("package-lock.json"))
    return app


@pytest.mark.parametrize("name", list(OWN))
def test_every_component_file_is_counted_on_the_lines_it_was_written_on(built, name):
    result = built(name, FRAMEWORK[name])
    assert result.report.result == "instrumented", result.report.reason + "\n" + result.report.log_tail
    assert set(result.coverage_map) == OWN[name], result.skipped
    for key, initial in result.coverage_map.items():
        source = (FIXTURES / name / key.split("#")[0]).read_text()
        assert result.sources[key] == source  # the file as written, for plateau guidance
        assert initial["fnMap"] or initial["statementMap"], key
    for key, fn_name, text in PLACES[name]:
        lines = result.sources[key].splitlines()
        starts = [(fn["name"], lines[fn["loc"]["start"]["line"] - 1].strip())
                  for fn in result.coverage_map[key]["fnMap"].values()]
        assert any((fn_name is None or n == fn_name) and line.startswith(text) for n, line in starts), (key, starts)


@pytest.mark.parametrize("name", ["vue-ts", "svelte-ts", "astro-ts"])
def test_a_component_app_without_its_lockfile_is_counted_the_same(built, tmp_path, name):
    with_lock = built(name, FRAMEWORK[name])
    app = _without_lockfile(tmp_path, name)
    cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
    config = settings.Build(npm_cache_dir=cache)
    result = building.build(app, tmp_path / "work", FRAMEWORK[name], config)
    assert result.report.result == "instrumented", result.report.reason + "\n" + result.report.log_tail
    assert result.report.reason.startswith("missing lockfile: ")
    assert not with_lock.report.reason.startswith("missing lockfile")
    assert set(result.coverage_map) == set(with_lock.coverage_map) == OWN[name]
    for key in OWN[name]:
        assert result.coverage_map[key]["fnMap"] == with_lock.coverage_map[key]["fnMap"], key


def test_create_next_apps_tailwind_is_compiled_though_we_build_it_with_webpack(built):
    # create-next-app 16.4 gives Turbopack the Tailwind loader; our build is webpack's
    # (our loader is a webpack loader), and the page must not come out unstyled
    result = built("next-ts", "next")
    assert result.report.result == "instrumented", result.report.reason + "\n" + result.report.log_tail
    css = "".join(p.read_text() for p in result.site.rglob(".next/static/css/*.css"))
    assert css, "no CSS built"
    assert ".flex{display:flex}" in css and ".p-8{" in css  # the utilities page.tsx uses
    assert "@tailwind" not in css and "@theme" not in css
