"""Runs of the whole pipeline (real Istanbul, real Chromium) shared by the tests here."""

from __future__ import annotations

import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local


@pytest.fixture(scope="session")
def bad_run(tmp_path_factory):
    """Every bad input of the fixture corpus, evaluated in one run: (RunResults, out)."""
    base = tmp_path_factory.mktemp("bad")
    src = runs.ROOT / "tests" / "fixtures" / "bad-apps"
    apps = base / "apps"
    shutil.copytree(src / "apps", apps)
    (apps / "mischief-1b" / "empty-folder").mkdir()  # git keeps no empty folders
    out = base / "out"
    run = local.execute(runs.quick_settings(src / "tasks.jsonl", apps, out, base / "mirror"))
    return run, out


@pytest.fixture(scope="session")
def example_run(tmp_path_factory):
    """The bundled example, as `hack/demo` runs it but with a smaller budget.
    The CDN mirror may fill itself from the npm registry (Chart.js)."""
    base = tmp_path_factory.mktemp("example")
    out = base / "out"
    config = runs.quick_settings(runs.ROOT / "examples/tasks.jsonl", runs.ROOT / "examples/apps",
                                 out, base / "mirror", fetch=True, max_steps=25, app_timeout_s=120)
    return local.execute(config), out
