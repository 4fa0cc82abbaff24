"""`iwc run` on apps of the shape models write today (create-vite's react-ts, vue-ts and
svelte-ts, create-next-app 16 with TypeScript, an Astro site with its logic in its
components' <script> blocks), each grown into a small task list: several components,
a second view, a form, and every function a click (or a typed word) away. Each is built
with Istanbul, explored for 30 steps by the heuristic explorer, and must have run
nearly all of its own functions, in every component file: the explorer is steered by,
and credited with, the counters in the components themselves.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.exploring import coverage as istanbul
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = [pytest.mark.build, pytest.mark.browser]

FIXTURES = runs.ROOT / "tests" / "fixtures" / "frameworks"
MODEL = "fixture-7b"
STEPS = 30
FUNCTIONS_FLOOR = 90.0  # % of the app's own functions run in STEPS steps (issue 38)
COMPONENTS = {  # the component files of each app, each of which must run its own functions
    "vue-ts": ("src/App.vue", "src/components/TaskForm.vue", "src/components/TaskList.vue",
               "src/components/TaskList.vue#template", "src/components/StatsView.vue"),
    "svelte-ts": ("src/App.svelte", "src/lib/TaskForm.svelte", "src/lib/TaskList.svelte", "src/lib/Stats.svelte"),
    "react-ts": ("src/App.tsx", "src/components/TaskForm.tsx", "src/components/TaskList.tsx",
                 "src/components/Stats.tsx"),
    "astro-ts": ("src/components/TaskForm.astro", "src/components/TaskList.astro", "src/pages/stats.astro",
                 "src/pages/stats.astro#script-2"),
    "next-ts": ("components/TasksApp.tsx", "components/TaskForm.tsx", "components/TaskList.tsx",
                "components/Stats.tsx"),
}


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """``explored(name)`` -> (the app's result, its evidence folder), one run per app."""
    done: dict = {}

    def run(name: str):
        if name not in done:
            base = tmp_path_factory.mktemp(name)
            shutil.copytree(FIXTURES / name, base / "apps" / MODEL / name)
            tasks = base / "tasks.jsonl"
            tasks.write_text(json.dumps({"id": name, "prompt": "A task list with a stats view."}) + "\n")
            config = runs.quick_settings(tasks, base / "apps", base / "out", base / "mirror", workers=1,
                                         max_steps=STEPS, app_timeout_s=300, stop_after_idle_steps=STEPS)
            cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
            config = config.model_copy(update={"build": config.build.model_copy(update={"npm_cache_dir": cache})})
            result = local.execute(config)
            app = result.apps[0]
            done[name] = (app, base / "out" / app.evidence)
        return done[name]

    return run


# The heuristic explorer does not follow Next.js's <Link> to the app's other route
# (/stats) within 100 steps, so Stats.tsx never runs there (77.8 % of the app's functions;
# docs/benchmarks.md): an explorer matter, kept here so that it shows when that changes.
NEXT_LINK = pytest.mark.xfail(strict=True, reason="the explorer does not follow <Link href=\"/stats\">")


@pytest.mark.parametrize("name", [pytest.param(n, marks=NEXT_LINK) if n == "next-ts" else n for n in COMPONENTS])
def test_the_explorer_runs_the_functions_of_every_component(explored, name):
    app, evidence = explored(name)
    assert app.outcome == "evaluated", app.reason
    assert app.instrumentation.build == "instrumented", app.instrumentation.reason
    coverage_map = json.loads((evidence / "coverage-map.json").read_text())
    counters = json.loads((evidence / "coverage.json").read_text())
    per_file = {key: istanbul.summarize({key: counters.get(key) or {}}, {key: coverage_map[key]}).functions
                for key in coverage_map}
    print(f"{name}: {app.exploration.steps} steps, functions {app.exploration.coverage.own_functions:.1f} %, "
          f"per file {per_file}")
    for key in COMPONENTS[name]:
        assert key in coverage_map, sorted(coverage_map)
        assert coverage_map[key]["fnMap"], key  # counters in the component itself
        assert per_file[key] and per_file[key] >= 50.0, (key, per_file)
    assert app.exploration.coverage.own_functions >= FUNCTIONS_FLOOR, per_file


def test_a_next_app_router_apps_components_are_counted_and_run_on_the_route_it_explores(explored):
    app, evidence = explored("next-ts")
    assert app.outcome == "evaluated", app.reason
    # create-next-app 16.4's cacheComponents: true cannot be exported: Next.js's own server
    assert "built for and served by Next.js's own server" in app.instrumentation.reason
    coverage_map = json.loads((evidence / "coverage-map.json").read_text())
    counters = json.loads((evidence / "coverage.json").read_text())
    assert set(COMPONENTS["next-ts"]) <= set(coverage_map)
    for key in ("components/TasksApp.tsx", "components/TaskForm.tsx", "components/TaskList.tsx"):
        ran = istanbul.summarize({key: counters.get(key) or {}}, {key: coverage_map[key]}).functions
        assert ran is not None and ran >= 75.0, (key, ran)
