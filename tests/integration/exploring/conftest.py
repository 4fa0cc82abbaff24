"""Fixture apps for the explorer, served over loopback; their external scripts are
instrumented with the project's Istanbul (pipeline/js) so coverage is real."""

from __future__ import annotations

import dataclasses
import functools
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import threading

import pytest

from iwcbench.pipeline import settings
from iwcbench.pipeline.stages import exploring

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"
NODE_MODULES = HERE.parents[2] / "pipeline" / "js" / "node_modules"


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
    for script in sorted(site.glob("*/*.js")):
        app = script.parent.name
        original = script.with_suffix(".orig.js")
        script.rename(original)
        name = f"{app}/{script.name}"
        done = subprocess.run(
            ["node", str(HERE / "instrument.js"), str(original), str(script), name],
            capture_output=True, text=True, check=True, timeout=60,
            env={**os.environ, "NODE_PATH": str(NODE_MODULES)})
        original.unlink()
        maps.setdefault(app, {})[name] = json.loads(done.stdout)
    return maps


@pytest.fixture(scope="session")
def served(tmp_path_factory) -> Served:
    site = tmp_path_factory.mktemp("explore-site")
    shutil.copytree(FIXTURES, site, dirs_exist_ok=True)
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
