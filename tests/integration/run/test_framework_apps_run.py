"""`iwc run` on a Vite, a Next.js, a CRA and an Astro app: each is built with Istanbul,
explored, scored with its own code's coverage, and the report says how it was built."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = [pytest.mark.build, pytest.mark.browser]

FIXTURES = runs.ROOT / "tests" / "fixtures" / "frameworks"
FRAMEWORKS = ("vite", "next", "cra", "astro")
MODEL = "fixture-7b"


@pytest.fixture(scope="module")
def framework_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("frameworks")
    apps = base / "apps" / MODEL
    for name in FRAMEWORKS:
        shutil.copytree(FIXTURES / name, apps / f"tasks-{name}")
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"tasks-{n}", "prompt": "A task list with a stats view."}) + "\n"
                             for n in FRAMEWORKS))
    config = runs.quick_settings(tasks, base / "apps", base / "out", base / "mirror", workers=1, max_steps=10)
    cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
    config = config.model_copy(update={"build": config.build.model_copy(update={"npm_cache_dir": cache})})
    return local.execute(config), base / "out"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_each_framework_app_is_built_explored_and_scored_with_its_own_coverage(framework_run, framework):
    run, out = framework_run
    app = next(a for a in run.apps if a.task_id == f"tasks-{framework}")
    assert app.outcome == "evaluated", app.reason
    assert app.instrumentation.framework == framework
    assert app.instrumentation.build == "instrumented" and app.instrumentation.build_s > 0
    assert app.exploration.coverage.statements > 0
    coverage_map = json.loads((out / app.evidence / "coverage-map.json").read_text())
    assert coverage_map and not any("node_modules" in key or key.startswith("/") for key in coverage_map)
    covered = json.loads((out / app.evidence / "coverage.json").read_text())
    assert set(covered) & set(coverage_map)  # the page's counters are the app's own files
    report = json.loads((out / app.evidence / "instrument.json").read_text())
    assert report["build"]["result"] == "instrumented" and report["mode"] == "instrumented"


def test_the_report_shows_framework_build_time_and_result(framework_run):
    run, out = framework_run
    index = (out / "report" / "index.html").read_text()
    for framework in FRAMEWORKS:
        assert f"{framework}<br><span class=\"faint\">built with Istanbul · " in index
    page = next(pathlib.Path(out / "report").rglob("*tasks-next*.html")).read_text()
    assert "built with Istanbul in " in page
