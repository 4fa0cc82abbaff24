"""A scripted GUI agent and appearance judge for the fake Messages API.

``ScriptedAgent`` answers the UI-test agent's requests the way a careful tester would
on the notes fixture apps (tests/integration/uitesting/fixtures): it reads the pages it
is shown, types "Buy milk" into the note box, clicks Add, and decides from what the page
then says — YES when the note and "1 note" appear, PARTIAL when only the note does, NO
when there is nothing to add a note with. ``mode`` makes it misbehave:

    "mumble"   never calls a tool (text without a verdict line): the case ends unscored
    "bad-ref"  first clicks a ref that is on no page, then carries on
    "text"     gives its verdict as a "Verdict: YES" line instead of the tool

It also answers the appearance judge (``rate_appearance``) with ``appearance``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fakes.anthropic_server import Message, text, tool_use

REF = re.compile(r'- (textbox|button|link|checkbox) "([^"]*)"[^\n]*?\[ref=(e\d+)\]')
ACTIONS = {"click", "type", "select", "check", "hover", "drag", "press_key", "scroll", "go_back", "wait"}


def strings(node: Any) -> list[str]:
    """Every string a request carried in its messages (text, tool results)."""
    out: list[str] = []
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, list):
        for item in node:
            out.extend(strings(item))
    elif isinstance(node, dict) and node.get("type") != "image":
        for key in ("text", "content"):
            if key in node:
                out.extend(strings(node[key]))
    return out


def tool_names(body: dict) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


def actions_taken(body: dict) -> list[dict]:
    uses = []
    for message in body["messages"]:
        if message["role"] == "assistant":
            uses += [b for b in message["content"] if b.get("type") == "tool_use" and b["name"] in ACTIONS]
    return uses


class ScriptedAgent:
    def __init__(self, mode: str = "normal", appearance: int = 4) -> None:
        self.mode = mode
        self.appearance = appearance
        self.calls = 0
        self.requests: list[dict] = []

    def __call__(self, body: dict) -> Message:
        names = tool_names(body)
        if "rate_appearance" in names:
            return tool_use("rate_appearance", {"score": self.appearance,
                                                "justification": "A clean white page with a navy heading."})
        if "verdict" not in names:
            return text("no script for this request")
        self.calls += 1
        self.requests.append(body)
        return self.agent(body)

    def agent(self, body: dict) -> Message:
        seen = "\n".join(strings(body["messages"]))
        if self.mode == "mumble":
            return text("The page looks fine to me, I think it works.")
        refs = {name: ref for role, name, ref in REF.findall(seen) if role in ("textbox", "button")}
        textbox = next((ref for role, _, ref in REF.findall(seen) if role == "textbox"), None)
        add = refs.get("Add")
        done = actions_taken(body)
        forced = (body.get("tool_choice") or {}).get("name") == "verdict"
        if self.mode == "bad-ref" and not done:
            return tool_use("click", {"ref": "e999", "intent": "Click the Add button I remember."})
        typed = any(u["name"] == "type" for u in done)
        clicked = any(u["name"] == "click" and u["input"].get("ref") == add for u in done)
        if not forced and textbox and add:
            if not typed:
                return tool_use("type", {"ref": textbox, "text": "Buy milk", "intent": "Enter the note text."})
            if not clicked:
                return tool_use("click", {"ref": add, "intent": "Add the note."})
        step = len(done)
        if "text: Buy milk" in seen and "text: 1 note" in seen:
            verdict, why = "YES", "The note 'Buy milk' is listed and the counter says 1 note."
        elif "text: Buy milk" in seen:
            verdict, why = "PARTIAL", "The note is listed but the counter still says 0 notes."
        else:
            verdict, why = "NO", "There is no way to add a note on this page."
        if self.mode == "text":
            return text(f"Verdict: {verdict}\nEvidence: step {step}\n{why}")
        return tool_use("verdict", {"verdict": verdict, "justification": why, "evidence_steps": [step]})


def last_tool_result(body: dict) -> str:
    """The newest tool result the request carries, as text."""
    for message in reversed(body["messages"]):
        if message["role"] != "user" or not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                content = block.get("content")
                return content if isinstance(content, str) else json.dumps(content)
    return ""
