"""`iwc run --explorer llm --judge MODEL` end to end against the fake Messages API:
the LLM tester drives real Chromium, the judges score the stored evidence, usage is
accounted, and `iwc rescore` re-judges from the cache without a new request."""

from __future__ import annotations

import json

import pytest

from fakes.llm_tester import ScriptedTester, todomvc_input
from iwcbench.pipeline import cli

pytestmark = pytest.mark.browser

def test_llm_tester_and_judges_end_to_end(tmp_path, fake_anthropic):
    apps, tasks = todomvc_input(tmp_path)
    tester = ScriptedTester()
    fake_anthropic.handler = tester
    out = tmp_path / "out"
    code = cli.main(["run", "--tasks", str(tasks), "--apps", str(apps), "--out", str(out),
                     "--explorer", "llm", "--judge", "claude-test-judge", "--max-steps", "8",
                     "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror"), "--no-quality"])
    assert code == 0
    result = json.loads((out / "apps/aurora-7b/todomvc/result.json").read_text())
    assert result["outcome"] == "evaluated", result["reason"]
    trace = json.loads((out / "apps/aurora-7b/todomvc/trace.json").read_text())
    assert trace["explorer"] == "llm"
    assert trace["steps"][1]["action"]["intent"] == "I add a todo to see the list grow."
    assert trace["summary"] and "Adding todos works" in trace["summary"]
    assert trace["steps"][-1]["coverage"]["statements"] > trace["steps"][0]["coverage"]["statements"]
    for name in ("aesthetics", "usability", "alignment_functional"):
        score = result["scores"][name]
        assert score["value"] is not None and 0 <= score["value"] <= 100, (name, score)
    # ScriptedJudge: aesthetics bases 4,3,5,2,4 → drop 5 and 2 → mean 11/3 × 20
    assert result["scores"]["aesthetics"]["value"] == pytest.approx(11 / 3 * 20, abs=0.01)
    # WebCoderBench's static judges read the app's stored sources (ScriptedJudge: ratings 7
    # and 6; of the checklist, f1, f2 and c1 met)
    wcb = {n: result["scores"][n]["value"] for n in result["scores"] if n.startswith("wcb_")}
    assert wcb == {"wcb_functionality": 70.0, "wcb_visual_experience": 60.0,
                   "wcb_functional_alignment": pytest.approx(100 / 3, abs=0.01),
                   "wcb_content_alignment": 50.0, "wcb_visual_alignment": 0.0}
    usage = result["llm_usage"]
    assert usage["calls"] >= 17 + 5 and usage["input_tokens"] > 0
    # the prompts sent again (the five final judges', the tester's history) came from the prompt cache
    assert usage["cache_read_input_tokens"] > usage["cache_creation_input_tokens"] > 0
    assert usage["purposes"]["usability.judge"]["cache_read_input_tokens"] > 0
    run = json.loads((out / "results.json").read_text())
    assert run["llm_usage"]["calls"] == usage["calls"]
    assert "aesthetics" in run["weights"]  # IWC weights once judged dimensions exist

    before = len(fake_anthropic.requests)
    assert cli.main(["rescore", str(out), "--tasks", str(tasks), "--judge", "claude-test-judge"]) == 0
    assert len(fake_anthropic.requests) == before, "re-scoring the same evidence must come from the cache"
    rescored = json.loads((out / "apps/aurora-7b/todomvc/result.json").read_text())
    assert rescored["scores"]["aesthetics"]["value"] == result["scores"]["aesthetics"]["value"]
    assert rescored["scores"]["wcb_functionality"]["value"] == 70.0
