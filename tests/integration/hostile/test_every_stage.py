"""The download flood and the console flood through every stage that opens a browser:
the explorer's Chromium, the UI-test agent's (the scripted agent on the fake Messages
API, through the real anthropic client), the quality stage's state renders, phone load,
Firefox and Lighthouse. One `iwc run` with HOME and the working folder empty folders of
its own: afterwards both are still empty, no downloaded file is anywhere under the
test's folder, and neither app ends as `error`."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from fakes import hostile, ui_agent
from fakes.anthropic_server import FakeAnthropic

pytestmark = [pytest.mark.browser, pytest.mark.slow]

APPS = ("download-flood", "console-flood")
UI_TEST = {"task": "Export the report with the Export all button.",
           "expected_result": "The page says the exports started.", "category": "Functional Testing"}


@pytest.fixture(scope="module")
def every_stage(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("every-stage")
    tmp, home, cwd = hostile.isolated_folders(base)
    model = base / "apps" / hostile.MODEL
    for name in APPS:
        shutil.copytree(hostile.CORPUS / "apps" / hostile.MODEL / name, model / name)
    tasks = base / "tasks.jsonl"
    rows = [json.loads(line) for line in (hostile.CORPUS / "tasks.jsonl").read_text().splitlines() if line.strip()]
    tasks.write_text("".join(json.dumps({**r, "ui_tests": [UI_TEST]}) + "\n" for r in rows if r["id"] in APPS))
    fake = FakeAnthropic().start()
    fake.handler = ui_agent.ScriptedAgent()
    try:
        env = {**hostile.isolated_env(tmp, home), "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "test-key-not-real"}
        out = base / "out"
        done = subprocess.run(
            [str(pathlib.Path(sys.executable).with_name("iwc")), "run", "--tasks", str(tasks),
             "--apps", str(base / "apps"), "--out", str(out), "--workers", "1", "--max-steps", "3",
             "--app-timeout", "120", "--uitest-model", "claude-ui-test", "--uitest-steps", "3",
             "--mirror-dir", str(base / "mirror"), "--offline-mirror"],
            env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    finally:
        fake.stop()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    results = json.loads((out / "results.json").read_text())
    return {"base": base, "out": out, "apps": {a["task_id"]: a for a in results["apps"]},
            "elsewhere": hostile.written_in(home, cwd), "tmp_left": sorted(os.listdir(tmp))}


def test_no_stage_writes_a_download_or_anything_else_outside_the_run(every_stage):
    assert every_stage["elsewhere"] == ()
    assert [str(p) for p in every_stage["base"].rglob("iwc-dl-*")] == []
    assert every_stage["tmp_left"] == []


def test_every_stage_ran_on_both_apps_and_none_ends_as_error(every_stage):
    for task_id in APPS:
        app = every_stage["apps"][task_id]
        assert app["outcome"] == "evaluated", app["reason"]
        evidence = every_stage["out"] / app["evidence"]
        tools = json.loads((evidence / "quality.json").read_text())["tools"]
        for tool in ("chromium-states", "chromium-phone", "chromium-desktop", "firefox", "lighthouse"):
            assert tool in tools and not tools[tool].get("error"), (task_id, tool, tools.get(tool))
        cases = json.loads((evidence / "uitests.json").read_text())["cases"]
        assert cases and cases[0]["steps"] >= 0 and cases[0]["trace"], cases
    flood = every_stage["apps"]["console-flood"]["scores"]
    assert "flooded its console" in flood["runtime_errors"]["reason"]
    assert flood["wcb_best_practices"]["value"] is not None, flood["wcb_best_practices"]
