"""What the UI-test agent's prompts cost: a growing prefix the API's prompt cache serves
(the system prompt, the test case, the earlier steps), the accessibility tree as an
exact diff after the first turn, screenshots scaled down to what the model reads.
Against the fake Messages API, which accounts prompt caching by the API's rules."""

from __future__ import annotations

import base64
import io
import re

from fakes.anthropic_server import tool_use
from PIL import Image, ImageDraw

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import caching as llm_caching
from iwcbench.pipeline.stages.exploring import llm_policy, observing, policy, uitest_policy

TEST, EXPECTED = "Add the notes 'a', 'b' and 'c'.", "Three notes are listed."


def _png(width: int, height: int, shade: int = 0) -> bytes:
    img = Image.new("RGB", (width, height), (250, 250, 250))
    ImageDraw.Draw(img).rectangle((40, 40, width // 2, 120 + shade), fill=(20, 90, 200))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


class Shots:
    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.files: dict[str, bytes] = {}
        self.latest: str | None = None

    def add(self, step: int) -> str:
        key = f"shots/{step:04d}.png"
        self.files[key], self.latest = _png(*self.size, shade=step), key
        return key

    def newest(self):
        return self.latest

    def read(self, key):
        return self.files.get(key)


def _tree(notes: int) -> str:
    # list items without names repeat the same line: only positions tell them apart
    return ('- textbox "New note" [ref=e1]\n- button "Add" [ref=e2]\n- list\n'
            + "".join(f"  - listitem\n    - text: {chr(97 + i)}\n" for i in range(notes)) + f'- text "{notes} notes"')


def _obs(step: int, notes: int) -> observing.Observation:
    cands = (observing.Candidate(ref="e1", selector="#text", tag="input", role="textbox", name="New note",
                                 kinds=("type",)),
             observing.Candidate(ref="e2", selector="#add", tag="button", role="button", name="Add",
                                 kinds=("click",)))
    return observing.Observation(step=step, url="http://127.0.0.1:9/", title="Notes", doc=1.0, state=str(notes),
                                 visual=f"v{notes}", candidates=cands, tree=_tree(notes), keyboard=False,
                                 canvases=0, scrollable=False, budget_left=16 - step)


def _run(fake, steps: int, model: str = "claude-ui-test", screenshot_px: int | None = 512,
         size: tuple[int, int] = (640, 400)):
    """The agent clicks Add ``steps`` times (one note more each time), then gives its verdict."""
    fake.count_tokens = True
    fake.push(*[tool_use("click", {"ref": "e2", "intent": "add"}) for _ in range(steps)],
              tool_use("verdict", {"verdict": "YES", "justification": "listed", "evidence_steps": [steps]}))
    shots = Shots(size)
    shots.add(0)
    client = llm.Client(llm.Config(model=model), sleep=lambda s: None)
    agent = uitest_policy.UITestPolicy(client, TEST, EXPECTED, shots=shots, screenshot_px=screenshot_px)
    agent.begin(policy.Context(start_url="http://127.0.0.1:9/", app_origin="http://127.0.0.1:9", seed=0,
                               max_steps=15, instrumented=False, step_timeout_s=10, plateau_steps=3))
    for step in range(1, steps + 2):
        action = agent.choose(_obs(step, step - 1))
        if action.kind == "finish":
            break
        agent.observe(evidence.Step(index=step, action=action, url="http://127.0.0.1:9/", screenshot=shots.add(step)),
                      _obs(step + 1, step))
    assert agent.verdict is not None and agent.verdict.verdict == "YES"
    return agent, fake.requests


def _images(body) -> list[dict]:
    return [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "image"]


def _apply(before: str, diff: str) -> str:
    """The tree after a unified diff of changed lines only (what the model is told)."""
    old, out, at = before.splitlines(), [], 0
    for hunk in re.split(r"^(?=@@ )", diff, flags=re.M):
        if not hunk.strip():
            continue
        head, *lines = hunk.splitlines()
        start, count = re.match(r"@@ -(\d+)(?:,(\d+))?", head).groups()
        start, count = int(start), 1 if count is None else int(count)
        keep_to = start if count == 0 else start - 1  # "-5,0" inserts after line 5
        out += old[at:keep_to]
        at = keep_to + count
        out += [line[1:] for line in lines if line.startswith("+")]
    return "\n".join(out + old[at:])


def test_the_tree_diff_gives_back_the_new_tree_exactly_even_where_lines_repeat():
    pairs = [(_tree(0), _tree(1)), (_tree(1), _tree(3)), (_tree(3), _tree(2)), (_tree(2), _tree(0)),
             ("- a\n- a\n- b", "- a\n- b\n- a\n- a")]
    for before, after in pairs:
        diff = llm_policy.tree_diff(before, after)
        assert diff.startswith("@@ ")
        assert _apply(before, diff) == after, (before, after, diff)


def test_after_the_first_turn_only_the_change_to_the_tree_is_sent(fake_anthropic):
    _, requests = _run(fake_anthropic, steps=3)
    first, later = requests[0].body["messages"][-1]["content"], requests[2].body["messages"][-1]["content"]
    first_text = "\n".join(b.get("text", "") for b in first if b.get("type") == "text")
    later_text = "\n".join(b.get("text", "") for b in later if b.get("type") == "text")
    assert "Accessibility tree:" in first_text and '[ref=e2]' in first_text
    assert "Changes to the tree" in later_text and '[ref=e2]' not in later_text
    shown = later_text.split("<<APP_DATA ", 1)[1].split("\n", 1)[1].rsplit("\n<<END_APP_DATA ", 1)[0]
    assert _apply(_tree(1), shown) == _tree(2)


def test_screenshots_are_scaled_to_the_longest_side_asked_for_with_their_aspect_kept(fake_anthropic):
    _, requests = _run(fake_anthropic, steps=1, screenshot_px=1024, size=(1280, 800))
    for request in requests:
        (image,) = _images(request.body)
        with Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))) as img:
            assert img.size == (1024, 640)
    fake_anthropic.reset()
    _, requests = _run(fake_anthropic, steps=1, screenshot_px=None, size=(1280, 800))
    with Image.open(io.BytesIO(base64.b64decode(_images(requests[0].body)[0]["source"]["data"]))) as img:
        assert img.size == (1280, 800)


def test_each_step_reads_the_earlier_ones_from_the_prompt_cache(fake_anthropic):
    agent, requests = _run(fake_anthropic, steps=6)
    entries = [e for e in agent.client.ledger.entries if e.purpose == "uitest.step"]
    assert len(entries) == 7
    reads = [e.usage.cache_read_input_tokens for e in entries]
    prompts = [e.usage.prompt_tokens for e in entries]
    # the tools and the system prompt from the first call on; then the test case and the
    # earlier steps as well, a longer prefix each step
    assert reads[1] > 0 and all(b > a for a, b in zip(reads[1:], reads[2:])), reads
    # what is paid in full (or written) is only what is new: this step's screenshot and
    # text, and the previous turn, whose screenshot became a line of text
    screenshot = 512 * 320 // 750
    assert all(p - r <= screenshot + 300 for p, r in zip(prompts[2:], reads[2:])), (reads, prompts)
    # the prefix is byte-stable: each step reads back every token the step before wrote,
    # and a screenshot (replaced by text next turn) is never written to the cache
    writes = [e.usage.cache_creation_input_tokens for e in entries]
    assert all(r == r0 + w0 for r0, w0, r in zip(reads[1:], writes[1:], reads[2:])), (reads, writes)
    assert all(w < screenshot for w in writes[1:]), writes
    for request in requests:
        body = request.body
        assert llm_caching.breakpoints(body) <= llm_caching.MAX_BREAKPOINTS
        assert "cache_control" in body["system"][-1]
        *turn, caption, shot = body["messages"][-1]["content"]
        if shot.get("type") == "image":  # the entry ends before the screenshot and its caption
            assert "cache_control" not in shot and "cache_control" not in caption
            assert "cache_control" in turn[-1]
        else:
            assert "cache_control" in shot
        assert len(_images(body)) == 1, "only the newest screenshot is in a request"


def test_the_prefix_the_next_step_reads_is_what_this_step_sent(fake_anthropic):
    _, requests = _run(fake_anthropic, steps=4)
    for this, following in zip(requests, requests[1:]):
        sent, again = [llm_caching.unpacked(r.body)["messages"] for r in (this, following)]
        # every turn sent comes back unchanged, except that the last one no longer carries
        # its screenshot (the caption and the picture: the call's tail)
        assert again[:len(sent) - 1] == sent[:-1]
        assert again[len(sent) - 1]["content"] == sent[-1]["content"][:-2]
        assert sent[-1]["content"][-1]["type"] == "image"


def test_below_the_models_minimum_nothing_is_written_and_nothing_breaks(fake_anthropic):
    agent, _ = _run(fake_anthropic, steps=2, model="claude-opus-4-5")  # 4,096 tokens at least
    first = agent.client.ledger.entries[0].usage
    assert first.cache_creation_input_tokens == 0 and first.cache_read_input_tokens == 0
    assert agent.verdict.verdict == "YES"
