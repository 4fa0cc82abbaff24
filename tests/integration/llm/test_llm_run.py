"""`iwc run --explorer llm --judge MODEL` end to end against the fake Messages API:
the LLM tester drives real Chromium, the judges score the stored evidence, usage is
accounted, and `iwc rescore` re-judges from the cache without a new request."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from fakes import anthropic_server, judge_evidence, runs
from iwcbench.pipeline import cli

pytestmark = pytest.mark.browser

REF = re.compile(r'- (button|textbox|checkbox|link) "?([^"\[]*)"? ?\[ref=(e\d+)\]')


def _last_user_text(body: dict) -> str:
    for message in reversed(body["messages"]):
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            return content
        parts = []
        for block in content:
            if block.get("type") == "text":
                parts.append(block["text"])
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                parts.append(inner if isinstance(inner, str) else json.dumps(inner))
        return "\n".join(parts)
    return ""


class ScriptedTester:
    """Plays the LLM tester: types a todo, submits it, clicks around, then finishes.
    Plays the guidance model and the judges too (judge_evidence.ScriptedJudge)."""

    def __init__(self) -> None:
        self.judge = judge_evidence.ScriptedJudge()
        self.steps = 0
        self.guidance = 0
        self.refs: dict[str, tuple[str, str]] = {}  # ref → (role, name), from every tree seen

    def __call__(self, body: dict):
        names = {t["name"] for t in body.get("tools", [])}
        if "click" in names:
            return self.explore(body)
        if "uncovered" in body.get("system", "") or "has not run yet" in body.get("system", ""):
            self.guidance += 1
            return anthropic_server.text("Try toggling an item's checkbox, then 'Clear completed'.")
        if judge_evidence.role_of(body) == "alignment":
            ids = re.findall(r"^(\S+) \[(?:functional|content|visual)\]:", _last_user_text(body) + "\n"
                             + json.dumps(body["messages"][0]["content"]), re.M)
            text = json.dumps(body["messages"][0]["content"])
            ids = ids or re.findall(r"\\n(\w+) \[(?:functional|content|visual)\]", text)
            verdicts = [{"criterion_id": cid, "satisfied": i % 2 == 0, "evidence": ["step 1"],
                         "analysis": "seen in step 1", "confidence": 0.7} for i, cid in enumerate(ids)]
            return anthropic_server.tool_use("submit_verdicts", {"verdicts": verdicts})
        return self.judge(body)

    def explore(self, body: dict):
        self.steps += 1
        for role, name, ref in REF.findall(_last_user_text(body)):
            self.refs[ref] = (role, name.strip())
        textbox = next((r for r, (role, _) in self.refs.items() if role == "textbox"), None)
        if self.steps == 1 and textbox:
            return anthropic_server.tool_use("type", {"ref": textbox, "text": "Buy milk",
                                                      "intent": "I add a todo to see the list grow."})
        if self.steps == 2 and textbox:
            return anthropic_server.tool_use("press_key", {"ref": textbox, "keys": "Enter",
                                                           "intent": "Submit it."})
        clickable = sorted(r for r, (role, _) in self.refs.items() if role in ("button", "link", "checkbox"))
        if self.steps <= 6 and clickable:
            ref = clickable[self.steps % len(clickable)]
            return anthropic_server.tool_use("click", {"ref": ref, "intent": "Try another control."})
        return anthropic_server.tool_use("finish", {
            "summary": "Adding todos works; filters switch views.",
            "interactions": "typed, submitted, clicked filters", "failures": "none seen",
            "intent": "done"})


def test_llm_tester_and_judges_end_to_end(tmp_path, fake_anthropic):
    apps = tmp_path / "apps"
    shutil.copytree(runs.ROOT / "examples/apps/aurora-7b/todomvc", apps / "aurora-7b" / "todomvc")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(next(line for line in (runs.ROOT / "examples/tasks.jsonl").read_text().splitlines()
                          if '"todomvc"' in line) + "\n")
    tester = ScriptedTester()
    fake_anthropic.handler = tester
    out = tmp_path / "out"
    code = cli.main(["run", "--tasks", str(tasks), "--apps", str(apps), "--out", str(out),
                     "--explorer", "llm", "--judge", "claude-test-judge", "--max-steps", "8",
                     "--offline-mirror", "--mirror-dir", str(tmp_path / "mirror")])
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
    usage = result["llm_usage"]
    assert usage["calls"] >= 17 and usage["input_tokens"] > 0
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
