"""`iwc run` on a Next.js app that needs its server (a page rendered per request, a
route handler): it is built for Next.js's server with Istanbul, served by that server,
explored and scored with its own code's coverage, not charged start_failed."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = [pytest.mark.build, pytest.mark.browser]

FIXTURE = runs.ROOT / "tests" / "fixtures" / "frameworks" / "next-ssr"
MODEL = "fixture-7b"


@pytest.fixture(scope="module")
def server_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("server-apps")
    shutil.copytree(FIXTURE, base / "apps" / MODEL / "greeter-next")
    tasks = base / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "greeter-next", "prompt": "A greeter with a counter the server doubles."})
                     + "\n")
    config = runs.quick_settings(tasks, base / "apps", base / "out", base / "mirror", workers=1, max_steps=10)
    cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
    config = config.model_copy(update={"build": config.build.model_copy(update={"npm_cache_dir": cache})})
    return local.execute(config), base / "out"


def test_a_next_app_that_needs_its_server_is_evaluated_with_its_own_coverage(server_run):
    run, out = server_run
    app = run.apps[0]
    assert app.outcome == "evaluated", app.reason
    assert app.instrumentation.build == "instrumented"
    assert "built for and served by Next.js's own server, because" in app.instrumentation.reason
    assert app.exploration.coverage.statements > 0, app.exploration
    coverage_map = json.loads((out / app.evidence / "coverage-map.json").read_text())
    assert {"components/Counter.jsx", "components/counting.js"} <= set(coverage_map)
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert trace["load_error"] is None
    print(f"greeter-next: {app.outcome}, {app.exploration.steps} steps, statements "
          f"{app.exploration.coverage.statements:.1f} %, timings {app.timings}")
