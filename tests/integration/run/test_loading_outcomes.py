"""How a run records apps by how they load: an app whose instrumented build hangs is
evaluated on its original build in black box (never start_failed for our fault); a
page that shows nothing is a blank page; the load times of both builds are kept."""

from __future__ import annotations

import json
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local

pytestmark = pytest.mark.browser

FIXTURES = runs.ROOT / "tests" / "integration" / "exploring" / "fixtures"


@pytest.fixture(scope="module")
def loading_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("loading")
    apps = base / "apps" / "model-a"
    for name in ("self-defending", "blank", "late-render"):
        shutil.copytree(FIXTURES / name, apps / name)
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": name, "prompt": f"the {name} app"}) + "\n"
                             for name in ("self-defending", "blank", "late-render")))
    out = base / "out"
    run = local.execute(runs.quick_settings(tasks, base / "apps", out, base / "mirror", workers=1, max_steps=4))
    return {a.task_id: a for a in run.apps}, out


def test_an_app_whose_instrumented_build_hangs_is_evaluated_on_the_original(loading_run):
    apps, out = loading_run
    app = apps["self-defending"]
    assert app.outcome == "black_box", app.reason
    assert app.reason.startswith("explored without coverage: instrumented build failed to load: ")
    report = json.loads((out / app.evidence / "instrument.json").read_text())
    assert report["mode"] == "black_box" and report["reason"].startswith("instrumented build failed to load: ")
    assert app.exploration.steps >= 1
    assert app.scores["coverage_functions"].value is None  # unscored, never 0


def test_an_empty_start_page_is_a_blank_page(loading_run):
    apps, _ = loading_run
    app = apps["blank"]
    assert app.outcome == "start_failed"
    assert app.reason == "blank page: index.html is empty (0 bytes)"


def test_a_page_that_renders_late_is_explored_and_its_load_times_are_kept(loading_run):
    apps, out = loading_run
    app = apps["late-render"]
    assert app.outcome == "evaluated", app.reason
    report = json.loads((out / app.evidence / "instrument.json").read_text())
    trace = json.loads((out / app.evidence / "trace.json").read_text())
    assert report["load_time_s"] and report["original_load_time_s"], (report, trace["stop_reason"], trace["start_url"])
    assert report["load_time_s"] > 0 and report["original_load_time_s"] > 0
