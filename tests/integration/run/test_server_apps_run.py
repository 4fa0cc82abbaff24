"""`iwc run` on a Next.js and an Astro app that need their server (a page rendered per
request, a route handler; output "server" with @astrojs/node): each is built for its
framework's server with Istanbul, served by that server, explored and scored with its
own code's coverage, not charged start_failed."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = [pytest.mark.build, pytest.mark.browser]

FIXTURES = runs.ROOT / "tests" / "fixtures" / "frameworks"
MODEL = "fixture-7b"
APPS = {"greeter-next": "next-ssr", "greeter-astro": "astro-ssr"}
OWN = {"greeter-next": {"components/Counter.jsx", "components/counting.js"},
       "greeter-astro": {"src/scripts/counter.js"}}
LABEL = {"greeter-next": "Next.js's own server", "greeter-astro": "the @astrojs/node adapter"}


@pytest.fixture(scope="module")
def server_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("server-apps")
    for task_id, fixture in APPS.items():
        shutil.copytree(FIXTURES / fixture, base / "apps" / MODEL / task_id)
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": t, "prompt": "A greeter with a counter the server doubles."}) + "\n"
                             for t in APPS))
    config = runs.quick_settings(tasks, base / "apps", base / "out", base / "mirror", workers=1, max_steps=10)
    cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
    config = config.model_copy(update={"build": config.build.model_copy(update={"npm_cache_dir": cache})})
    return local.execute(config), base / "out"


@pytest.mark.parametrize("task_id", list(APPS))
def test_an_app_that_needs_its_server_is_evaluated_with_its_own_coverage(server_run, task_id):
    run, out = server_run
    app = next(a for a in run.apps if a.task_id == task_id)
    assert app.outcome == "evaluated", app.reason
    assert app.instrumentation.build == "instrumented"
    assert f"built for and served by {LABEL[task_id]}, because" in app.instrumentation.reason
    assert app.exploration.coverage.statements > 0, app.exploration  # credited: the counters' places were found
    coverage_map = json.loads((out / app.evidence / "coverage-map.json").read_text())
    assert OWN[task_id] <= set(coverage_map)
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert trace["load_error"] is None
    print(f"{task_id}: {app.outcome}, {app.exploration.steps} steps, statements "
          f"{app.exploration.coverage.statements:.1f} %, timings {app.timings}")
