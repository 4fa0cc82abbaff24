"""The cluster path builds and serves a framework app the way ``iwc run`` does: an app
pod's three containers, run here as their commands (``iwc app instrument``, the
``iwc app serve`` sidecar as its own process, ``iwc app explore``), on a SvelteKit app
whose form actions run in its own server. The pod's evidence names the same files, the
same files only the server runs, and counts that server code from the sidecar's server,
as ``iwc run`` counts it.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest

from fakes import runs
from iwcbench.pipeline import cli
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.exploring import coverage as istanbul
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = [pytest.mark.build, pytest.mark.browser]

FIXTURES = runs.ROOT / "tests" / "fixtures" / "frameworks"
APP, MODEL, TASK = "sveltekit", "fixture-7b", "tasks"
STEPS = 20
SERVER_SIDE = {"src/lib/server/tasks.ts", "src/routes/+page.server.ts", "src/routes/stats/+page.server.ts"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _evidence(folder: pathlib.Path) -> tuple[dict, dict, dict]:
    """(coverage map, counters, instrument.json) of one app's evidence folder."""
    return tuple(json.loads((folder / name).read_text())
                 for name in ("coverage-map.json", "coverage.json", "instrument.json"))


def test_an_app_pod_builds_serves_and_counts_a_server_app_as_iwc_run_does(tmp_path):
    apps = tmp_path / "apps"
    shutil.copytree(FIXTURES / APP, apps / MODEL / TASK)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": TASK, "prompt": "A task list with a stats view."}) + "\n")
    config = runs.quick_settings(tasks, apps, tmp_path / "out", tmp_path / "mirror", workers=1,
                                 max_steps=STEPS, app_timeout_s=300, stop_after_idle_steps=STEPS)
    cache = os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir())
    config = config.model_copy(update={"build": config.build.model_copy(update={"npm_cache_dir": cache})})
    local_result = local.execute(config).apps[0]
    assert local_result.outcome == "evaluated", local_result.reason
    local_map, _, local_report = _evidence(tmp_path / "out" / local_result.evidence)

    # the pod: init container, sidecar, explorer, sharing one work folder
    work, store = tmp_path / "work", tmp_path / "store"
    evaluation = config.evaluation().model_dump_json()
    assert cli.main(["app", "instrument", "--apps", str(apps), "--model", MODEL, "--task", TASK, "--tasks",
                     str(tasks), "--work", str(work), "--store", str(store), "--settings", evaluation]) == 0
    port = _free_port()
    iwc = pathlib.Path(sys.executable).with_name("iwc")
    sidecar = subprocess.Popen([str(iwc), "app", "serve", "--root", str(work / "site"), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        code = cli.main(["app", "explore", "--work", str(work), "--url", f"http://127.0.0.1:{port}/",
                         "--store", str(store), "--tasks", str(tasks), "--model", MODEL, "--task", TASK,
                         "--settings", evaluation])
    finally:
        sidecar.terminate()
        _, errors = sidecar.communicate(timeout=30)
    assert code == 0, errors.decode(errors="replace")[-2000:]
    results = list(store.rglob("result.json"))
    assert len(results) == 1
    pod_result = json.loads(results[0].read_text())
    assert pod_result["outcome"] == "evaluated", pod_result["reason"]
    pod_map, pod_counters, pod_report = _evidence(results[0].parent)

    assert set(pod_map) == set(local_map)
    assert {k for k, fc in pod_map.items() if fc.get("side") == "server"} == SERVER_SIDE
    assert {k for k, fc in local_map.items() if fc.get("side") == "server"} == SERVER_SIDE
    assert pod_report["build"]["result"] == local_report["build"]["result"] == "instrumented"
    assert pod_report["build"]["reason"].split("; ")[-2:] == local_report["build"]["reason"].split("; ")[-2:]
    ran = {key: istanbul.summarize({key: pod_counters.get(key) or {}}, {key: pod_map[key]}).functions
           for key in SERVER_SIDE}
    assert all(share for share in ran.values()), ran  # the sidecar's server counted its form actions
