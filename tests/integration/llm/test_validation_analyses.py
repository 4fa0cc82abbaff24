"""The validation analyses on real runs against the fake Messages API: the coverage-
guidance ablation (`--no-guidance` then `iwc compare`), the single-round judging
baseline (`iwc rescore --judge-protocol single` then `iwc compare`), each shown in the
report of the run it is stored with."""

from __future__ import annotations

import json

import pytest

from fakes.llm_tester import ScriptedTester, todomvc_input
from iwcbench.pipeline import cli

pytestmark = pytest.mark.browser


def _run(tmp_path, fake_anthropic, name: str, *extra: str):
    apps, tasks = todomvc_input(tmp_path)
    tester = ScriptedTester()
    fake_anthropic.handler = tester
    out = tmp_path / name
    assert cli.main(["run", "--tasks", str(tasks), "--apps", str(apps), "--out", str(out),
                     "--explorer", "llm", "--judge", "claude-test-judge", "--max-steps", "8",
                     "--settings", '{"exploration": {"plateau_steps": 1}}',
                     "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror"), *extra]) == 0
    return out, tasks, tester


def test_guidance_ablation_and_single_round_baseline(tmp_path, fake_anthropic, capsys):
    guided, tasks, with_guidance = _run(tmp_path, fake_anthropic, "guided")
    unguided, _, without = _run(tmp_path, fake_anthropic, "unguided", "--no-guidance")
    assert with_guidance.guidance >= 1, "a plateau after one idle step asks for guidance"
    assert without.guidance == 0, "--no-guidance never shows the tester uncovered code"
    config = json.loads((unguided / "results.json").read_text())["run"]["configuration"]
    assert config["exploration"]["guidance"] is False

    capsys.readouterr()
    assert cli.main(["compare", str(unguided), str(guided), "--labels", "unguided", "guided"]) == 0
    stored = json.loads((guided / "analyses" / "comparison.json").read_text())
    coverage = next(m for m in stored["metrics"] if m["metric"] == "coverage_functions")
    assert len(coverage["pairs"]) == 1 and sum(coverage["histogram"]["b"]) == 1
    report = (guided / "report" / "index.html").read_text()
    assert "guided against unguided" in report and "<svg" in report

    single = tmp_path / "single"
    assert cli.main(["rescore", str(guided), "--tasks", str(tasks), "--judge", "claude-test-judge",
                     "--judge-protocol", "single", "--out", str(single)]) == 0
    result = json.loads((single / "apps/aurora-7b/todomvc/result.json").read_text())
    assert result["scores"]["aesthetics"]["raw"]["protocol"] == "judge×1 (single round)"
    assert cli.main(["compare", str(single), str(guided), "--labels", "single", "deliberative"]) == 0
    stored = json.loads((guided / "analyses" / "comparison.json").read_text())
    aesthetics = next(m for m in stored["metrics"] if m["metric"] == "aesthetics")
    assert aesthetics["a"]["n"] == aesthetics["b"]["n"] == 1
    run = json.loads((single / "results.json").read_text())
    assert run["judge_scores"]["aesthetics"]["n"] == 1 and run["run"]["configuration"]["judging"]["protocol"] == "single"
