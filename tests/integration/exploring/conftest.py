"""Fixture apps and corpus apps (tests/corpus/explore) for the explorer, served over
loopback, instrumented by the instrument stage (real Istanbul) so coverage is real;
the explorer gets what a run gives it (code facts, the original files, library code)."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shutil

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.stages import exploring, instrumenting, serving

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"
CORPUS = HERE.parent.parent / "corpus" / "explore" / "apps" / "corpus"


@dataclasses.dataclass
class Served:
    base: str
    given: dict[str, dict]  # app name -> what the explorer is given (coverage map, facts, …)
    mirror_dir: pathlib.Path

    @property
    def coverage_maps(self) -> dict[str, dict]:
        return {app: g["coverage_map"] for app, g in self.given.items() if g["coverage_map"]}

    def explore(self, app: str, instrumented: bool = True, hermetic: bool = False, **overrides) -> Run:
        files: dict[str, bytes] = {}
        config = settings.Exploration(**{"max_steps": 12, "load_timeout_s": 5.0, **overrides})
        router = routing.Hermetic(self.base, cdn.Mirror(self.mirror_dir, fetch=False)) if hermetic else None
        given = self.given.get(app, {}) if instrumented else {}
        result = exploring.explore(f"{self.base}/{app}/index.html", config, files.__setitem__, hermetic=router,
                                   **{k: v for k, v in given.items() if v})
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


def _instrument(apps: list[pathlib.Path], site: pathlib.Path, meta: pathlib.Path) -> dict[str, dict]:
    """Instrument each app into site/<name>, moving its .iwc out of the served
    folder (as a run does); returns what the explorer is given per app."""
    given: dict[str, dict] = {}
    for app in apps:
        report = instrumenting.instrument(app, site / app.name, settings.Instrumentation())
        moved = meta / app.name
        if (site / app.name / instrumenting.IWC_DIR).is_dir():
            shutil.move(str(site / app.name / instrumenting.IWC_DIR), str(moved))

        def read(name: str) -> dict | None:
            return json.loads((moved / name).read_text()) if (moved / name).is_file() else None

        instrumented = report.mode == "instrumented"
        given[app.name] = {
            "coverage_map": read(instrumenting.COVERAGE_MAP) if instrumented else None,
            "facts": read(instrumenting.FACTS) if instrumented else None,
            "vendored": read(instrumenting.VENDORED) if instrumented else None,
            "sites": read(instrumenting.SITES) if instrumented else None,
            "originals": instrumenting.originals(moved) if instrumented else None,
        }
    return given


def _serve(tmp_path_factory, apps: list[pathlib.Path]):
    site = tmp_path_factory.mktemp("explore-site")
    given = _instrument(apps, site, tmp_path_factory.mktemp("explore-meta"))
    with serving.serve(site) as server:
        yield Served(server.url.rstrip("/"), given, tmp_path_factory.mktemp("cdn-mirror"))


@pytest.fixture(scope="session")
def served(tmp_path_factory) -> Served:
    yield from _serve(tmp_path_factory, sorted(p for p in FIXTURES.iterdir() if p.is_dir()))


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Served:
    """The corpus apps the behavioural tests explore."""
    names = ("snake-konami", "signup-wizard", "calculator", "space-shooter", "solar-clock")
    yield from _serve(tmp_path_factory, [CORPUS / name for name in names])
