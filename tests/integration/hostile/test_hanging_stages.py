"""``app_timeout_s`` is a hard deadline, whichever stage an app hangs: five copies of one
notes page (tests/fixtures/hanging-apps) each freeze their main thread for good in one
stage only — the explorer's clicks, Lighthouse (its emulated phone), Firefox, the
quality stage's phone load, the UI-test agent's note (the scripted agent on the fake
Messages API, through the real anthropic client). One `iwc run` with every stage on:
no app runs past its deadline plus teardown, none ends as ``error``, the stage that
hung says it was cut short, while the others scored, and a page that hung a tool's
browser (its main thread stopped answering) scores 0 on what that tool measures."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from fakes import runs, ui_agent
from fakes.anthropic_server import FakeAnthropic

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CORPUS = runs.ROOT / "tests" / "fixtures" / "hanging-apps"
APP_TIMEOUT_S = 60
TEARDOWN_S = 8  # closing what the stage left open, writing the evidence
STAGES = ("explore", "lighthouse", "firefox", "phone", "uitest")


@pytest.fixture(scope="module")
def hanging(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("hanging")
    shutil.copytree(CORPUS / "apps", base / "apps")
    fake = FakeAnthropic().start()
    fake.handler = ui_agent.ScriptedAgent()
    try:
        out = base / "out"
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "test-key-not-real"}
        done = subprocess.run(
            [str(pathlib.Path(sys.executable).with_name("iwc")), "run", "--tasks", str(CORPUS / "tasks.jsonl"),
             "--apps", str(base / "apps"), "--out", str(out), "--workers", "1", "--max-steps", "12",
             "--app-timeout", str(APP_TIMEOUT_S), "--uitest-model", "claude-ui-test", "--uitest-steps", "4",
             "--mirror-dir", str(base / "mirror"), "--offline-mirror"],
            env={**os.environ, **env}, capture_output=True, text=True, timeout=1200)
    finally:
        fake.stop()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    results = json.loads((out / "results.json").read_text())
    return {"out": out, "apps": {a["task_id"]: a for a in results["apps"]}}


def test_no_app_runs_past_its_deadline_whichever_stage_hangs(hanging):
    late = {}
    for stage in STAGES:
        app = hanging["apps"][stage]
        assert app["outcome"] == "evaluated", (stage, app["outcome"], app["reason"])
        timings = app["timings"]
        spent = timings.get("total", 0.0) - timings.get("instrument", 0.0)
        if spent > APP_TIMEOUT_S + TEARDOWN_S:
            late[stage] = timings
    assert late == {}


def _scores(hanging, stage: str) -> dict:
    return hanging["apps"][stage]["scores"]


def test_the_stage_that_hung_says_so_and_the_others_scored(hanging):
    # the page hung under Lighthouse (its main thread stopped answering, a fresh page did):
    # the page's doing, so its three metrics score 0 with the reason; Firefox and the phone scored
    lighthouse = _scores(hanging, "lighthouse")
    for name in ("wcb_performance", "wcb_accessibility", "wcb_best_practices"):
        assert lighthouse[name]["value"] == 0.0 and "hung under Lighthouse" in lighthouse[name]["reason"], \
            lighthouse[name]
    assert lighthouse["wcb_cross_browser"]["value"] is not None and lighthouse["wcb_mobile"]["value"] is not None
    # Firefox hung: cross-browser says so; Lighthouse scored
    firefox = _scores(hanging, "firefox")
    assert firefox["wcb_performance"]["value"] is not None, firefox["wcb_performance"]
    assert "firefox" in firefox["wcb_cross_browser"]["reason"].lower(), firefox["wcb_cross_browser"]
    # the page hung on the phone: mobile scores 0 with the reason; Lighthouse and Firefox scored
    phone = _scores(hanging, "phone")
    assert phone["wcb_mobile"]["value"] == 0.0 and "hung on the phone" in phone["wcb_mobile"]["reason"], \
        phone["wcb_mobile"]
    assert phone["wcb_performance"]["value"] is not None and phone["wcb_cross_browser"]["value"] is not None
    # the explorer's clicks hung: the exploration ended with a reason, the quality stage still ran
    explore = hanging["apps"]["explore"]
    trace = json.loads((hanging["out"] / explore["evidence"] / "trace.json").read_text())
    assert trace["stop_reason"], trace["stop_reason"]
    performance = _scores(hanging, "explore")["wcb_performance"]
    assert performance["value"] is not None or "time limit" in performance["reason"], performance
    # the UI-test agent's note hung the page: the case has a verdict or a reason, never a crash
    cases = json.loads((hanging["out"] / hanging["apps"]["uitest"]["evidence"] / "uitests.json").read_text())["cases"]
    assert len(cases) == 1 and (cases[0]["verdict"] is not None or cases[0]["reason"]), cases
    # the apps that never hung in exploring were explored in full
    assert all(hanging["apps"][s]["exploration"]["steps"] > 1 for s in STAGES), \
        {s: hanging["apps"][s]["exploration"] for s in STAGES}
