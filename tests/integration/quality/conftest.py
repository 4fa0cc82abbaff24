"""The WebCoderBench rule suite with its real tools: the Node server (linters, jscpd,
Babel, nspell), Debian's Chromium (renders, phone, Lighthouse) and Firefox ESR."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.quality import tooling

FIXTURES = runs.ROOT / "tests" / "fixtures" / "quality-apps"


@pytest.fixture(scope="session")
def tools():
    """One set of quality tools for the tests that ask them directly, closed at the end."""
    with tooling.Tools() as opened:
        yield opened


@pytest.fixture(scope="session")
def quality_run(tmp_path_factory):
    """The two fixture apps (a polished and a sloppy notes page) through `iwc run` with
    every rule metric, once for every test here: (RunResults, out folder)."""
    base: pathlib.Path = tmp_path_factory.mktemp("quality")
    shutil.copytree(FIXTURES / "apps", base / "apps")
    out = base / "out"
    config = runs.quick_settings(FIXTURES / "tasks.jsonl", base / "apps", out, base / "mirror",
                                 quality={"max_states": 4}, max_steps=6)
    return local.execute(config), out


@pytest.fixture(scope="session")
def quality_run_elsewhere(tmp_path_factory):
    """The polished and the sloppy app again, explored another way: the random clicker
    with another seed and a third of the steps (RunResults, out folder)."""
    base: pathlib.Path = tmp_path_factory.mktemp("quality-elsewhere")
    shutil.copytree(FIXTURES / "apps", base / "apps")
    out = base / "out"
    config = runs.quick_settings(FIXTURES / "tasks.jsonl", base / "apps", out, base / "mirror",
                                 quality={"max_states": 4}, max_steps=2, policy="random", seed=7)
    config = config.model_copy(update={"models": ("polished-1b", "sloppy-1b")})
    return local.execute(config), out
