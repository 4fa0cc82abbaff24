"""Fixture apps and corpus apps (tests/corpus/explore) for the explorer, served over
loopback, instrumented by the instrument stage (real Istanbul) so coverage is real;
the explorer gets what a run gives it: the instrument stage's bundle (coverage map,
sites, code facts, the original files, library code)."""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import tempfile

import pytest

from iwcbench.pipeline.contracts import instrumented as instrumented_mod, settings
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.stages import exploring, instrumenting, serving

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"
CORPUS = HERE.parent.parent / "corpus" / "explore" / "apps" / "corpus"


@dataclasses.dataclass
class Served:
    base: str
    given: dict[str, instrumented_mod.Instrumented]  # app name -> the instrument stage's bundle
    mirror_dir: pathlib.Path

    @property
    def coverage_maps(self) -> dict[str, dict]:
        return {app: g.coverage_map for app, g in self.given.items() if g.report.mode == "instrumented"
                and g.coverage_map}

    def explore(self, app: str, instrumented: bool = True, hermetic: bool = False, **overrides) -> Run:
        files: dict[str, bytes] = {}
        config = settings.Exploration(**{"max_steps": 12, "load_timeout_s": 5.0, **overrides})
        router = routing.Hermetic(self.base, cdn.Mirror(self.mirror_dir, fetch=False)) if hermetic else None
        given = self.given.get(app) if instrumented else None
        if given is not None and given.report.mode != "instrumented":
            given = None
        result = exploring.explore(f"{self.base}/{app}/index.html", config, files.__setitem__, given,
                                   exploring.Options(hermetic=router))
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


def _instrument(apps: list[pathlib.Path], site: pathlib.Path, meta: pathlib.Path
                ) -> dict[str, instrumented_mod.Instrumented]:
    """Instrument each app into site/<name>, moving its .iwc out of the served
    folder (as a run does); returns the bundle the explorer is given per app."""
    given: dict[str, instrumented_mod.Instrumented] = {}
    for app in apps:
        given[app.name] = instrumenting.instrument(app, site / app.name, settings.Instrumentation())
        if (site / app.name / instrumented_mod.FOLDER).is_dir():
            shutil.move(str(site / app.name / instrumented_mod.FOLDER), str(meta / app.name))
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


@pytest.fixture()
def own_tmp(monkeypatch):
    """TMPDIR a folder of the test's own, to see what a browser leaves there. Short:
    Chromium puts a Unix socket in TMPDIR, and those paths have a length limit."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="iwc-t-", dir="/tmp"))
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # Python caches the folder it chose
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
