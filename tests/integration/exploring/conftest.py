"""Fixture apps for the explorer, served over loopback, instrumented by the instrument
stage (real Istanbul) so coverage is real."""

from __future__ import annotations

import dataclasses
import functools
import http.server
import json
import pathlib
import threading

import pytest

from iwcbench.pipeline import settings
from iwcbench.pipeline.stages import exploring, instrumenting

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@dataclasses.dataclass
class Served:
    base: str
    coverage_maps: dict[str, dict]  # app name -> Istanbul coverage map

    def explore(self, app: str, instrumented: bool = True, **overrides) -> Run:
        files: dict[str, bytes] = {}
        config = settings.Exploration(**{"max_steps": 12, "load_timeout_s": 5.0, **overrides})
        result = exploring.explore(
            f"{self.base}/{app}/index.html", config, files.__setitem__,
            coverage_map=self.coverage_maps.get(app) if instrumented else None)
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
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_port}", maps)
    finally:
        server.shutdown()
        server.server_close()
