"""Fixture apps for the explorer, served over loopback, instrumented by the instrument
stage (real Istanbul) so coverage is real."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.stages import exploring, instrumenting, serving

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"


@dataclasses.dataclass
class Served:
    base: str
    coverage_maps: dict[str, dict]  # app name -> Istanbul coverage map
    mirror_dir: pathlib.Path
    site: pathlib.Path

    def explore(self, app: str, instrumented: bool = True, hermetic: bool = False, **overrides) -> Run:
        files: dict[str, bytes] = {}
        config = settings.Exploration(**{"max_steps": 12, "load_timeout_s": 5.0, **overrides})
        router = routing.Hermetic(self.base, cdn.Mirror(self.mirror_dir, fetch=False)) if hermetic else None
        result = exploring.explore(
            f"{self.base}/{app}/index.html", config, files.__setitem__,
            coverage_map=self.coverage_maps.get(app) if instrumented else None, hermetic=router,
            sites=_sites(self.site / app))
        return Run(result, files)


@dataclasses.dataclass
class Run:
    result: exploring.Exploration
    files: dict[str, bytes]

    @property
    def steps(self):
        return self.result.trace.steps

    def labels(self) -> list[str]:
        return [s.action.label() for s in self.steps]


def _sites(app: pathlib.Path) -> dict:
    """Where each counter sits in the served code: coverage is credited where V8 saw it run."""
    path = app / ".iwc" / "sites.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def _instrument(site: pathlib.Path) -> dict[str, dict]:
    maps: dict[str, dict] = {}
    for app in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        report = instrumenting.instrument(app, site / app.name, settings.Instrumentation())
        if report.mode == "instrumented":
            maps[app.name] = json.loads((site / app.name / ".iwc" / "coverage-map.json").read_text())
    return maps


@pytest.fixture(scope="session")
def served(tmp_path_factory) -> Served:
    site = tmp_path_factory.mktemp("explore-site")
    maps = _instrument(site)
    with serving.serve(site) as server:
        yield Served(server.url.rstrip("/"), maps, tmp_path_factory.mktemp("cdn-mirror"), site)
