"""A scripted stand-in for every LLM role of a run, for the fake Messages API: the tester
(valid actions on the refs it was shown, for as many steps as the budget allows), the
coverage-plateau guidance, the advocate / critic / final judges, the alignment agent,
and WebGen-Bench's UI-test agent (a few actions on the page's refs — how many depends
only on the test case's text — then a verdict citing the last step) and appearance judge.

Its choices depend only on what the requests carry, so two runs over the same pages
send the same requests: the benchmark compares runs by what they cost, not by what the
"model" happened to do. Replies are short (tens of tokens), as an arbitrary valid
reply is; real replies are longer, which only adds output tokens.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from fakes import anthropic_server, judge_evidence

REF = re.compile(r'^\s*([+-])?\s*- (\w+)(?: "([^"]*)")?[^\[\n]*\[ref=(e\d+)\]', re.M)
STEP = re.compile(r"^Step (\d+) \(steps left", re.M)
CRITERION = re.compile(r"(?:^|\\n|\n)(\w+) \[(?:functional|content|visual)\]:")
TEXTS = ("Buy milk", "", "a much longer entry that checks how the layout copes with long text",
         "42", "<b>bold?</b>", "Écoute ça")
PAGE_STEP = re.compile(r"^Page after step (\d+)", re.M)
TEST = re.compile(r"<test>\n(.*?)\n</test>", re.S)
VERDICTS = ("YES", "PARTIAL", "NO")
KEYS = ("ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight", "Enter", "Space")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(_text_of(block.get("content")) if isinstance(block.get("content"), list)
                         else str(block.get("content", "")))
    return "\n".join(parts)


class ScriptedModel:
    """Answers the fake Messages API as each role would (a handler: body → Message)."""

    def __init__(self) -> None:
        self.judge = judge_evidence.ScriptedJudge()
        self.counts: dict[str, int] = {}

    def __call__(self, body: dict[str, Any]):
        names = {t.get("name") for t in body.get("tools") or ()}
        system = body.get("system", "")
        system = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
        if "verdict" in names:
            return self._count("uitest", self.uitester(body))
        if "rate_appearance" in names:
            return self._count("appearance", anthropic_server.tool_use(
                "rate_appearance", {"score": 4, "justification": "A tidy layout with consistent spacing."}))
        if "click" in names:
            return self._count("tester", self.tester(body))
        if "has not run yet" in system:
            return self._count("guidance", anthropic_server.text(
                "Try the controls that are not used yet: open the second tab, submit the form empty, "
                "then toggle the first item twice."))
        role = judge_evidence.role_of(body)
        if role == "alignment":
            return self._count("alignment", self.alignment(body))
        return self._count(role, self.judge(body))

    def _count(self, role: str, reply):
        self.counts[role] = self.counts.get(role, 0) + 1
        return reply

    # ------------------------------------------------------------------ tester

    def tester(self, body: dict[str, Any]):
        """An action on the current page. It depends on the step number and the page's
        refs only — not on how much history the request kept — so that two runs that
        trim the tester's history differently still explore alike."""
        messages = body["messages"]
        last = _text_of(messages[-1]["content"])
        found = STEP.search(last)
        step = int(found.group(1)) if found else 0
        refs: dict[str, tuple[str, str]] = {}
        for message in messages:
            if message["role"] != "user":
                continue
            text = _text_of(message["content"])
            lines = REF.findall(text)
            if "accessibility tree" in text or "full tree" in text:
                refs = {}
            # removals first, then additions: a changed line keeps its ref
            for sign, role, name, ref in lines:
                if sign == "-":
                    refs.pop(ref, None)
            for sign, role, name, ref in lines:
                if sign != "-":
                    refs[ref] = (role, name)
        if "listens to the keyboard" in last and step % 3 == 2:
            return anthropic_server.tool_use("press_key", {"keys": KEYS[step % len(KEYS)],
                                                           "intent": "steer with the keyboard"})
        if not refs:
            return anthropic_server.tool_use("scroll", {"dx": 0, "dy": 400, "intent": "look for controls"})
        ordered = sorted(refs.items(), key=lambda kv: int(kv[0][1:]))
        ref, (role, name) = ordered[(step * 7) % len(ordered)]
        if role in ("textbox", "searchbox", "spinbutton"):
            if step % 2:
                return anthropic_server.tool_use("press_key", {"ref": ref, "keys": "Enter",
                                                               "intent": f"submit {name or 'the field'}"})
            return anthropic_server.tool_use("type", {"ref": ref, "text": TEXTS[step % len(TEXTS)],
                                                      "intent": f"fill {name or 'the field'}"})
        if role == "combobox":
            return anthropic_server.tool_use("select", {"ref": ref, "option": "2", "intent": "pick another option"})
        if role in ("checkbox", "radio", "switch"):
            return anthropic_server.tool_use("check", {"ref": ref, "intent": f"toggle {name}"})
        return anthropic_server.tool_use("click", {"ref": ref, "intent": f"see what {role} {name!r} does"})

    # ------------------------------------------------------------------ UI-test agent

    def uitester(self, body: dict[str, Any]):
        """3 to 10 actions (by the test case's text) on the refs it was shown, chosen by the
        action's number; then a verdict (by the text too) citing the last step it saw.
        The verdict comes at once when the request forces it."""
        messages = body["messages"]
        test = TEST.search(_text_of(messages[0]["content"]))
        seed = zlib.crc32((test.group(1) if test else "").encode())
        done = sum(1 for m in messages if m["role"] == "assistant" for b in m["content"]
                   if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") != "verdict")
        steps = [int(s) for m in messages if m["role"] == "user" for s in PAGE_STEP.findall(_text_of(m["content"]))]
        forced = (body.get("tool_choice") or {}).get("name") == "verdict"
        refs = _refs(messages, resets=("Accessibility tree:\n", "full tree:\n"))
        if forced or done >= 3 + seed % 8 or not refs:
            return anthropic_server.tool_use("verdict", {
                "verdict": VERDICTS[seed // 8 % 3], "justification": "The page after the last step shows it.",
                "evidence_steps": [max(steps, default=0)]})
        ordered = sorted(refs.items(), key=lambda kv: int(kv[0][1:]))
        ref, (role, name) = ordered[(done * 7 + seed) % len(ordered)]
        if role in ("textbox", "searchbox", "spinbutton"):
            return anthropic_server.tool_use("type", {"ref": ref, "text": TEXTS[done % len(TEXTS)],
                                                      "intent": f"fill {name or 'the field'}"})
        if role in ("checkbox", "radio", "switch"):
            return anthropic_server.tool_use("check", {"ref": ref, "intent": f"toggle {name}"})
        return anthropic_server.tool_use("click", {"ref": ref, "intent": f"try {role} {name!r}"})

    # ------------------------------------------------------------------ alignment

    def alignment(self, body: dict[str, Any]):
        turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turns == 0:
            return anthropic_server.tool_use("search", {"pattern": "button|input", "source": "dom"})
        if turns == 1:
            return anthropic_server.tool_use("read", {"source": "trace", "page": 1})
        opening = json.dumps(body["messages"][0]["content"])
        ids = CRITERION.findall(opening)
        verdicts = [{"criterion_id": cid, "satisfied": i % 2 == 0, "evidence": ["step 1"],
                     "analysis": "seen in step 1" if i % 2 == 0 else "not observed", "confidence": 0.7}
                    for i, cid in enumerate(ids)]
        return anthropic_server.tool_use("submit_verdicts", {"verdicts": verdicts})


def _refs(messages: list[dict[str, Any]], resets: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """The refs on the page as the user turns showed it: a full tree (a turn holding one
    of ``resets``) starts over, a diff's '-' lines remove and its other lines add."""
    refs: dict[str, tuple[str, str]] = {}
    for message in messages:
        if message["role"] != "user":
            continue
        text = _text_of(message["content"])
        if any(r in text for r in resets):
            refs = {}
        lines = REF.findall(text)
        for sign, role, name, ref in lines:
            if sign == "-":
                refs.pop(ref, None)
        for sign, role, name, ref in lines:
            if sign != "-":
                refs[ref] = (role, name)
    return refs
