"""The quality tools' server is held to a memory cap between apps: past it, the server is
stopped once an app's jobs are over, and the next app's jobs start a fresh one and get
the same answers; under it, the same server goes on serving app after app."""

from __future__ import annotations

import logging

import pytest

from iwcbench.pipeline.contracts import quality as records
from iwcbench.pipeline.stages.quality import sources, tooling

pytestmark = pytest.mark.node  # the real server.mjs and its static tools (hack/setup)

CODE = "// adds\nfunction add(a, b) {\n  return a + b;\n}\nadd(1, 2);\n"
APP = "http://127.0.0.1:1"


def _units() -> list[dict]:
    kept = records.AppSources(files=(records.SourceFile(path="app.js", language="js", text=CODE),))
    return [u.job() for u in sources.units(kept)]


def _answer(tools: tooling.Tools) -> dict:
    tools.admit(APP)
    answer = tools.static_tools(_units(), ["helo"], 60)
    assert isinstance(answer, dict), answer
    return {k: v for k, v in answer.items() if k != "versions"}  # (versions carry each step's ms)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_server_past_its_cap_is_restarted_between_apps_and_the_next_app_is_answered(caplog):
    caplog.set_level(logging.INFO, logger=tooling.__name__)
    with tooling.Tools(cap_mib=1) as tools:  # any running Node holds more than 1 MiB
        first = _answer(tools)
        pid = tools._server.service.pid if tools._server else None
        assert pid is not None and f"--max-old-space-size={tooling.HEAP_CAP_MIB}" in tools._server.service.argv
        tools.app_done()
        assert tools.restarts == 1 and tools._server is None and not _alive(pid)
        assert "past the cap of 1 MiB" in caplog.text
        assert _answer(tools) == first  # the second app: a fresh server, the same answer
        assert tools._server is not None and tools._server.service.pid not in (None, pid)


def test_a_server_under_its_cap_serves_the_next_app():
    with tooling.Tools() as tools:
        first = _answer(tools)
        pid = tools._server.service.pid if tools._server else None
        tools.app_done()
        assert tools.restarts == 0 and _answer(tools) == first
        assert tools._server is not None and tools._server.service.pid == pid

