"""A scripted LLM tester for the fake Messages API: types a todo, submits it, clicks
around, then finishes; answers guidance and judging requests too. Shared by the LLM
integration tests."""

from __future__ import annotations

import json
import pathlib
import re
import shutil

from fakes import anthropic_server, judge_evidence, runs


def todomvc_input(folder: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """(apps, tasks.jsonl) holding the example's aurora-7b TodoMVC app and its task."""
    apps = folder / "apps"
    if not apps.exists():
        shutil.copytree(runs.ROOT / "examples/apps/aurora-7b/todomvc", apps / "aurora-7b" / "todomvc")
    tasks = folder / "tasks.jsonl"
    tasks.write_text(next(line for line in (runs.ROOT / "examples/tasks.jsonl").read_text().splitlines()
                          if '"todomvc"' in line) + "\n")
    return apps, tasks

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
