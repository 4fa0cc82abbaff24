"""The UI-test agent's conversation is cacheable under the Messages API's documented
prompt-caching rules, checked on the request sequence itself (the bodies the agent
sends), not on a stand-in's token count.

The rules (Anthropic's prompt-caching documentation): the prompt is tools, then system,
then the messages' content blocks; a ``cache_control`` breakpoint writes the prefix up
to and including its block; a later request reads an entry only when every block up to
it is byte-identical (the marker is not content), found at the breakpoint or up to 20
blocks before it; at most 4 breakpoints; a prefix below the model's minimum (1,024
tokens for Sonnet 4.5) is never written; another ``tool_choice`` or thinking setting
invalidates the messages' entries (tools and system stay).
"""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from fakes import anthropic_cache
from fakes.anthropic_server import text, tool_use
from PIL import Image, ImageDraw

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.exploring import observing, policy, uitest_policy

LOOKBACK, MAX_BREAKPOINTS, MINIMUM = 20, 4, 1024  # the documented figures (Sonnet 4.5's minimum)
MODEL = "claude-sonnet-4-5"


# ---------------------------------------------------------------------------- the rules

def _layout(body: dict) -> tuple[list[str], list[int], list[int]]:
    """(the hash of the prefix ending at each block, the tokens up to each block, the
    breakpoints' block positions), blocks in the API's order: tools, system, messages.
    A message block's hash covers the request's tool_choice and thinking, which the API
    caches message blocks under."""
    blocks = anthropic_cache.blocks_of(body)
    hashes, tokens, marks = [], [], []
    h, total = hashlib.sha256(body["model"].encode()), 0
    for i, block in enumerate(blocks):
        h = h.copy()
        h.update(block.fingerprint.encode())
        hashes.append(h.hexdigest())
        total += block.tokens
        tokens.append(total)
        if block.ttl is not None:
            marks.append(i)
    return hashes, tokens, marks


def rule_breaks(bodies: list[dict], minimum: int = MINIMUM) -> list[str]:
    """What in this request sequence breaks the documented rules so that a request does
    not read the previous one's cached prefix, or writes nothing worth reading."""
    problems: list[str] = []
    written: set[str] = set()  # prefixes that some earlier request wrote
    previous: tuple[list[str], list[int], list[int], dict] | None = None
    for n, body in enumerate(bodies):
        hashes, tokens, marks = _layout(body)
        if len(marks) > MAX_BREAKPOINTS:
            problems.append(f"request {n}: {len(marks)} breakpoints")
        if not marks:
            problems.append(f"request {n}: no breakpoint")
            continue
        if tokens[marks[-1]] < minimum <= tokens[-1]:
            problems.append(f"request {n}: the prefix it marks holds {tokens[marks[-1]]} tokens, below "
                            f"{minimum}, of a {tokens[-1]}-token prompt: nothing written")
        if previous is not None:
            p_hashes, p_tokens, p_marks, p_body = previous
            same_mode = all(p_body.get(k) == body.get(k) for k in ("tool_choice", "thinking"))
            end = p_marks[-1]
            if p_tokens[end] >= minimum and same_mode:
                if hashes[:end + 1] != p_hashes[:end + 1]:
                    first = next(i for i, (a, b) in enumerate(zip(hashes, p_hashes)) if a != b)
                    problems.append(f"request {n}: block {first} differs from what request {n - 1} sent, "
                                    f"before its last breakpoint (block {end})")
                elif not any(end <= m <= end + LOOKBACK for m in marks):
                    problems.append(f"request {n}: no breakpoint within {LOOKBACK} blocks after block {end}, "
                                    f"where request {n - 1} wrote (breakpoints at {marks})")
        # what this request reads: the latest earlier write within a breakpoint's look-back
        reads = [p for m in marks for p in range(m, max(-1, m - LOOKBACK - 1), -1) if hashes[p] in written]
        if n and not reads:
            problems.append(f"request {n}: reads nothing written before")
        written.update(hashes[m] for m in marks if tokens[m] >= minimum)
        previous = (hashes, tokens, marks, body)
    return problems


# ---------------------------------------------------------------------------- the agent

def _png(step: int) -> bytes:
    img = Image.new("RGB", (1280, 800), (250, 250, 250))
    ImageDraw.Draw(img).rectangle((40, 40, 400, 60 + 10 * step), fill=(20, 90, 200))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


class Shots:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.latest: str | None = None

    def add(self, step: int) -> str:
        self.latest = f"shots/{step:04d}.png"
        self.files[self.latest] = _png(step)
        return self.latest

    def newest(self):
        return self.latest

    def read(self, key):
        return self.files.get(key)


def _tree(notes: int, links: int = 0) -> str:
    return ('- heading "Notes"\n- textbox "New note" [ref=e1]\n- button "Add" [ref=e2]\n- list\n'
            + "".join(f'  - listitem\n    - text: note number {i} of the list\n' for i in range(notes))
            + "".join(f'- link "Section {i}" [ref=l{i}]\n' for i in range(links)) + f'- text "{notes} notes"')


def _obs(step: int, notes: int, links: int = 0) -> observing.Observation:
    cands = (observing.Candidate(ref="e1", selector="#text", tag="input", role="textbox", name="New note",
                                 kinds=("type",)),
             observing.Candidate(ref="e2", selector="#add", tag="button", role="button", name="Add",
                                 kinds=("click",)))
    return observing.Observation(step=step, url="http://127.0.0.1:9/", title="Notes", doc=1.0, state=str(notes),
                                 visual=f"v{notes}-{links}", candidates=cands, tree=_tree(notes, links),
                                 keyboard=False, canvases=0, scrollable=False, budget_left=16 - step)


def _converse(fake, replies: list, max_steps: int = 15, links_at: int | None = None) -> uitest_policy.UITestPolicy:
    """Drive one test case: the agent is answered with ``replies`` in order; every action
    adds a note (and, from step ``links_at`` on, a page that changed a lot: 40 links more);
    at ``max_steps`` the loop ends and the verdict is asked for."""
    fake.count_tokens = True
    fake.push(*replies)
    shots = Shots()
    shots.add(0)
    client = llm.Client(llm.Config(model=MODEL), sleep=lambda s: None)
    agent = uitest_policy.UITestPolicy(client, "Add three notes.", "Three notes are listed.", shots=shots,
                                       screenshot_px=1024)
    agent.begin(policy.Context(start_url="http://127.0.0.1:9/", app_origin="http://127.0.0.1:9", seed=0,
                               max_steps=max_steps, instrumented=False, step_timeout_s=10, plateau_steps=3))

    def page(step: int) -> observing.Observation:
        return _obs(step, step - 1, 40 if links_at is not None and step > links_at else 0)

    for step in range(1, max_steps + 1):
        action = agent.choose(page(step))
        if action is None or action.kind == "finish":
            return agent
        agent.observe(evidence.Step(index=step, action=action, url="http://127.0.0.1:9/", screenshot=shots.add(step)),
                      page(step + 1))
    agent.conclude("step budget used up")
    return agent


def _click(intent: str = "add one", **kw):
    return tool_use("click", {"ref": "e2", "intent": intent}, **kw)


def _bodies(fake) -> list[dict]:
    return [r.body for r in fake.requests]


def test_twelve_steps_then_a_verdict_each_request_reads_the_whole_previous_prefix(fake_anthropic):
    agent = _converse(fake_anthropic, [*[_click() for _ in range(12)],
                                       tool_use("verdict", {"verdict": "YES", "justification": "listed",
                                                            "evidence_steps": [12]})])
    bodies = _bodies(fake_anthropic)
    assert agent.verdict is not None and len(bodies) == 13
    assert rule_breaks(bodies) == []
    # the stand-in, which caches by the same rules, agrees: each step reads everything the
    # step before wrote or read, and what it pays in full is its screenshot and caption only
    usage = [e.usage for e in agent.client.ledger.entries]
    for before, after in zip(usage, usage[1:]):
        assert after.cache_read_input_tokens == before.cache_read_input_tokens + before.cache_creation_input_tokens
    shot = anthropic_cache.image_tokens(bodies[-1]["messages"][-1]["content"][-1])
    assert shot == 1024 * 640 // 750  # the screenshot, scaled to 1024 px
    assert all(shot <= u.input_tokens <= shot + 10 for u in usage)


def test_re_asks_parallel_calls_a_page_that_changed_a_lot_and_the_step_cap_keep_the_prefix(fake_anthropic):
    replies = [_click(preface="I will add a note first."),
               text("The page looks fine."),  # no tool: asked again
               _click(), tool_use("hover", {"ref": "e1", "intent": "and this"}),
               _click("add two"),
               tool_use("verdict", {"verdict": "MAYBE", "justification": "?", "evidence_steps": [1]}),  # refused
               _click(), _click(), _click(),  # steps 4 to 6: then the step cap
               tool_use("verdict", {"verdict": "PARTIAL", "justification": "two of three",
                                    "evidence_steps": [3]})]
    # the parallel call is one reply of two tool uses: merge them
    merged = replies[2]
    merged.content = [*merged.content, *replies.pop(3).content]
    agent = _converse(fake_anthropic, replies, max_steps=6, links_at=3)
    bodies = _bodies(fake_anthropic)
    assert agent.verdict is not None and agent.concluded and agent.reasks == 2
    modes = [json.dumps(b.get("tool_choice")) for b in bodies]
    assert modes.count(modes[-1]) == 1, "only the last call, which forces the verdict, changes tool_choice"
    assert rule_breaks(bodies) == []


def test_no_turn_is_rewritten_once_sent(fake_anthropic):
    """Append-only: each request's messages start with every message of the one before,
    byte for byte, except that the last one drops its tail (caption + screenshot)."""
    _converse(fake_anthropic, [*[_click() for _ in range(4)],
                               tool_use("verdict", {"verdict": "NO", "justification": "none",
                                                    "evidence_steps": [4]})])
    bodies = [anthropic_cache._strip(b["messages"]) for b in _bodies(fake_anthropic)]
    for sent, again in zip(bodies, bodies[1:]):
        assert again[:len(sent) - 1] == sent[:-1]
        assert again[len(sent) - 1]["content"] == sent[-1]["content"][:-2]
        assert [b["type"] for b in sent[-1]["content"][-2:]] == ["text", "image"]
        assert sum(b.get("type") == "image" for m in again for b in m["content"]) == 1


@pytest.mark.parametrize("bad", ["rewritten", "far", "many"])
def test_the_rules_catch_what_would_make_a_step_miss(fake_anthropic, bad):
    """The checker itself: a turn rewritten before the previous breakpoint, a breakpoint
    more than 20 blocks past the last write, more than 4 breakpoints."""
    _converse(fake_anthropic, [_click(), _click(),
                               tool_use("verdict", {"verdict": "NO", "justification": "x", "evidence_steps": [2]})])
    bodies = json.loads(json.dumps(_bodies(fake_anthropic)))
    last = bodies[-1]["messages"]
    if bad == "rewritten":
        last[0]["content"][0]["text"] += " (rewritten)"
    elif bad == "far":
        for message in last[1:]:
            for block in message["content"]:
                block.pop("cache_control", None)
        last[-1]["content"][-3:-2] = [{"type": "text", "text": f"line {i}"} for i in range(LOOKBACK + 1)]
        last[-1]["content"][-3]["cache_control"] = {"type": "ephemeral"}
    else:
        for block in last[0]["content"]:
            block["cache_control"] = {"type": "ephemeral"}
    assert rule_breaks(bodies)
