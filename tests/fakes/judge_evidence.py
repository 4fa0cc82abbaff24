"""A small, realistic evidence set for one app (a to-do list) and a scripted judge.

``sample_files()`` returns store keys (relative to the app prefix) → bytes: trace,
graph, DOM snapshots and screenshots drawn with Pillow. ``ScriptedJudge`` answers
the fake Messages API the way each judging role would, so tests and the benchmark
can drive the real judging code end to end.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from PIL import Image, ImageDraw

from fakes.anthropic_server import Fault, Message, text, tool_use
from iwcbench.pipeline.contracts import artifacts, evidence, task

TODO_TASK = task.Task(
    id="todo-1",
    prompt="Make a to-do list where I can add tasks, tick them off and see how many are left.",
    checklist=(
        task.Criterion(id="F1", kind="functional", text="Tasks can be added"),
        task.Criterion(id="F2", kind="functional", text="Tasks can be marked done"),
        task.Criterion(id="C1", kind="content", text="Shows how many tasks are left"),
        task.Criterion(id="V1", kind="visual", text="Tasks are shown as a list"),
    ),
)


def png(draw_fn, size=(640, 400), background="white") -> bytes:
    img = Image.new("RGB", size, background)
    draw_fn(ImageDraw.Draw(img))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _page(draw: ImageDraw.ImageDraw, rows: int, accent: str) -> None:
    draw.rectangle((0, 0, 640, 50), fill=accent)
    draw.text((20, 18), "My tasks", fill="white")
    for i in range(rows):
        y = 80 + i * 45
        draw.rectangle((20, y, 620, y + 35), outline="#888888", width=2)
        draw.ellipse((30, y + 8, 48, y + 26), outline="black", width=2)
        draw.text((60, y + 12), f"task number {i + 1}", fill="black")


def sample_files(dom_extra: str = "", title: str = "To-do") -> dict[str, bytes]:
    doms = {
        "dom/0000.html": f"<html><head><title>{title}</title></head><body><h1>My tasks</h1>"
                         f"<form><input id='new' placeholder='Add task'><button>Add</button></form>"
                         f"<ul></ul><p class='left'>0 items left</p>{dom_extra}</body></html>",
        "dom/0002.html": f"<html><head><title>{title}</title></head><body><h1>My tasks</h1>"
                         "<form><input id='new' placeholder='Add task'><button>Add</button></form>"
                         "<ul><li><input type='checkbox'> buy milk</li></ul>"
                         f"<p class='left'>1 item left</p>{dom_extra}</body></html>",
        "dom/0003.html": f"<html><head><title>{title}</title></head><body><h1>My tasks</h1>"
                         "<ul><li class='done'><input type='checkbox' checked> buy milk</li></ul>"
                         f"<p class='left'>0 items left</p>{dom_extra}</body></html>",
    }
    shots = {
        "shots/0000.png": png(lambda d: _page(d, 0, "#3355aa")),
        "shots/0001.png": png(lambda d: None),  # blank: caught mid-render
        "shots/0002.png": png(lambda d: _page(d, 1, "#3355aa")),
        "shots/0003.png": png(lambda d: _page(d, 5, "#aa3355")),
    }
    url = "http://127.0.0.1:8000/index.html"
    steps = [
        evidence.Step(index=0, action=evidence.Action(kind="load"), url=url, dom="dom/0000.html",
                      screenshot="shots/0000.png"),
        evidence.Step(index=1, action=evidence.Action(kind="type", target="textbox 'Add task'", value="buy milk",
                                                      intent="add a task"), url=url, screenshot="shots/0001.png"),
        evidence.Step(index=2, action=evidence.Action(kind="click", target="button 'Add'"), url=url,
                      dom="dom/0002.html", screenshot="shots/0002.png", coverage_gain=12.5),
        evidence.Step(index=3, action=evidence.Action(kind="check", target="checkbox 'buy milk'"), url=url,
                      dom="dom/0003.html", screenshot="shots/0003.png", coverage_gain=4.0,
                      console_errors=("TypeError: cannot read 'x' of undefined",)),
    ]
    trace = evidence.Trace(explorer="heuristic", seed=0, max_steps=10, start_url=url, steps=tuple(steps),
                           stop_reason="budget")
    graph = evidence.StateGraph(
        nodes=(
            evidence.StateNode(id="S0", digest="a", first_step=0, steps=(0, 1), dom="dom/0000.html",
                               screenshot="shots/0000.png", title=title, url=url),
            evidence.StateNode(id="S1", digest="b", first_step=2, steps=(2,), dom="dom/0002.html",
                               screenshot="shots/0002.png", title=title, url=url),
            evidence.StateNode(id="S2", digest="c", first_step=3, steps=(3,), dom="dom/0003.html",
                               screenshot="shots/0003.png", title=title, url=url),
        ),
        edges=(
            evidence.StateEdge(source="S0", target="S0", action="type textbox 'Add task' 'buy milk'", steps=(1,)),
            evidence.StateEdge(source="S0", target="S1", action="click button 'Add'", steps=(2,)),
            evidence.StateEdge(source="S1", target="S2", action="check checkbox 'buy milk'", steps=(3,)),
        ),
    )
    files = {k: v.encode() for k, v in doms.items()}
    files.update(shots)
    files[artifacts.TRACE.key] = trace.model_dump_json().encode()
    files[artifacts.GRAPH.key] = graph.model_dump_json().encode()
    return files


def reader(files: dict[str, bytes]) -> artifacts.Reader:
    return artifacts.Reader(files.get)


ASPECTS = {
    "aesthetics": ["first_impression", "content_completeness", "layout_structure", "visual_detail",
                   "hierarchy_typography", "stylistic_consistency", "emotion_trust"],
    "usability": ["core_operations", "feedback", "controls_input", "flow_discoverability",
                  "reachability_recovery", "dead_ends_consistency", "stability"],
}


def verdict(dimension: str, base: int, deltas: list[float] | None = None) -> dict[str, Any]:
    deltas = deltas or [0.0] * 7
    return {
        "discarded_claims": [], "added_observations": [], "base": base, "base_reason": "overall",
        "adjustments": {a: {"delta": d, "reason": "seen in the evidence" if d else "no adjustment needed"}
                        for a, d in zip(ASPECTS[dimension], deltas)},
        "citations": ["step 2", "S1", "shots/0002.png", "step 99"],
        "summary": f"{dimension} verdict with base {base}",
    }


def role_of(body: dict[str, Any]) -> str:
    system = body.get("system", "")
    if isinstance(system, list):  # a system prompt packaged for prompt caching
        system = "".join(b.get("text", "") for b in system)
    for start, role in (("You review the source code", "wcb.functionality"), ("You look at the first screen", "wcb.visual"),
                        ("You check a generated web application's source code", "wcb.alignment")):
        if system.startswith(start):
            return role
    for role in ("advocate", "critic", "final judge"):
        if f"You are the {role}" in system:
            dim = "aesthetics" if "visual aesthetics" in system.split(".")[0] else "usability"
            return f"{dim}.{role.split()[-1]}"
    if "acceptance criteria" in system and "You check whether" in system:
        return "alignment"
    if "Three reviewers proposed" in system:
        return "checklist.merge"
    if "You write acceptance criteria" in system:
        return "checklist.propose"
    return "unknown"


class ScriptedJudge:
    """Answers each role; ``bases[dimension]`` is consumed one per final-judge call."""

    def __init__(self, bases: dict[str, list[int]] | None = None, satisfied: dict[str, bool] | None = None,
                 tokens: tuple[int, int] = (1500, 300), ratings: dict[str, int] | None = None) -> None:
        # WebCoderBench's static judges: the 0-10 rating each gives, and the criteria it finds met
        self.ratings = ratings or {"wcb.functionality": 7, "wcb.visual": 6}
        self.bases = {k: list(v) for k, v in (bases or {"aesthetics": [4, 3, 5, 2, 4],
                                                       "usability": [3, 3, 4, 1, 3]}).items()}
        self.satisfied = satisfied or {"F1": True, "F2": True, "C1": True, "V1": False}
        self.tokens = tokens
        self.roles: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Message | Fault:
        role = role_of(body)
        self.roles.append(role)
        inp, out = self.tokens
        if role.endswith(".advocate"):
            return text("Strength: the header is clear (shots/0000.png, top bar); adding works (step 2).",
                        input_tokens=inp, output_tokens=out)
        if role.endswith(".critic"):
            return text("Defect: a console error after ticking (step 3).", input_tokens=inp, output_tokens=out)
        if role.endswith(".judge"):
            dim = role.split(".")[0]
            base = self.bases[dim].pop(0) if self.bases[dim] else 3
            return tool_use("submit_verdict", verdict(dim, base), input_tokens=inp, output_tokens=out)
        if role == "alignment":
            return self.alignment(body)
        if role in self.ratings:
            return tool_use("submit_rating", {"problems": ["a scripted problem"], "rating": self.ratings[role],
                                              "summary": f"scripted {role}"}, input_tokens=inp, output_tokens=out)
        if role == "wcb.alignment":
            asked = body["messages"][0]["content"][0]["text"]
            block = asked.split("<criteria>", 1)[1].split("</criteria>", 1)[0]
            listed = re.findall(r"^(\w+): ", block, re.MULTILINE)
            return tool_use("submit_code_verdicts", {"verdicts": [
                {"id": cid, "met": self.satisfied.get(cid.upper(), False), "reason": "scripted"} for cid in listed]},
                input_tokens=inp, output_tokens=out)
        return Fault.bad_request(f"unexpected prompt: {body.get('system', '')[:80]}")

    def alignment(self, body: dict[str, Any]) -> Message:
        turns = sum(1 for m in body["messages"] if m["role"] == "assistant")
        inp, out = self.tokens
        if turns == 0:
            return tool_use("search", {"pattern": "items? left", "source": "dom"}, input_tokens=inp, output_tokens=out)
        if turns == 1:
            return tool_use("read", {"source": "dom/0002.html", "page": 1}, input_tokens=inp, output_tokens=out)
        verdicts = [{"criterion_id": cid, "satisfied": yes,
                     "evidence": ["step 2", "dom/0002.html:5"] if yes else [],
                     "analysis": "observed" if yes else "not observed", "confidence": 0.8}
                    for cid, yes in self.satisfied.items()]
        return tool_use("submit_verdicts", {"verdicts": verdicts}, input_tokens=inp, output_tokens=out)


def nonce_of(system: str) -> str:
    match = re.search(r"<<APP_DATA ([0-9a-f]{16}) ", system)
    assert match, "the system prompt names its fence"
    return match.group(1)


def dumps(data: Any) -> bytes:
    return json.dumps(data).encode()
