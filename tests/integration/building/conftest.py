"""Building the framework fixtures for real: one build per fixture per session, one
shared npm cache (the first run downloads; later runs and apps install from it)."""

from __future__ import annotations

import os
import pathlib
import time

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import instrumenting
from iwcbench.pipeline.stages.instrumenting import building

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "frameworks"
CACHE_ENV = "IWC_TEST_NPM_CACHE"  # a test run may point the shared cache elsewhere


def npm_cache() -> pathlib.Path:
    return pathlib.Path(os.environ.get(CACHE_ENV) or building.default_cache_dir())


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """``built(name, framework=None, **build_settings)`` -> building.Built, built once."""
    done: dict[tuple, building.Built] = {}

    def build(name: str, framework: str | None = None, **overrides) -> building.Built:
        key = (name, framework, tuple(sorted(overrides.items())))
        if key not in done:
            src = FIXTURES / name
            work = tmp_path_factory.mktemp(name.replace("/", "-"))
            config = settings.Build(npm_cache_dir=str(npm_cache()), **overrides)
            done[key] = building.build(src, work, framework or name, config)
        return done[key]

    return build


@pytest.fixture()
def page():
    """A fresh Chromium page (Debian's Chromium through the browser kit's launcher)."""
    import playwright.sync_api as pw

    from iwcbench.pipeline.kits import browser

    with pw.sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            tab = chromium.new_context().new_page()
            tab.set_default_timeout(15_000)
            yield tab
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def instrumented(tmp_path_factory):
    """``instrumented(name)`` -> (Instrumented, site folder, seconds): the fixture built
    once per module the way ``iwc run`` instruments it (a server build: the site folder
    with its marker, the app's copy beside it)."""
    done: dict[str, tuple] = {}

    def make(name: str):
        if name not in done:
            site = tmp_path_factory.mktemp(name) / "site"
            started = time.monotonic()
            bundle = instrumenting.instrument(FIXTURES / name, site, settings.Instrumentation(),
                                              settings.Build(npm_cache_dir=str(npm_cache())))
            done[name] = (bundle, site, round(time.monotonic() - started, 1))
        return done[name]

    return make
