"""The UI-test agent policy against the fake Messages API (no browser: observations are
built by hand the way observe.mjs reports them, screenshots are a few bytes)."""

from __future__ import annotations

from fakes.anthropic_server import Fault, text, tool_use
from fakes.ui_agent import last_tool_result

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.exploring import observing, policy, uitest_policy

PNG = b"\x89PNG\r\n\x1a\n" + b"0" * 32
TEST, EXPECTED = "Add a note 'Buy milk'.", "The note is listed."


class Shots:
    def __init__(self) -> None:
        self.files = {"shots/0000.png": PNG}
        self.latest = "shots/0000.png"

    def newest(self):
        return self.latest

    def read(self, key):
        return self.files.get(key)


def _obs(step: int, notes: int = 0, visual: str = "v0") -> observing.Observation:
    cands = (observing.Candidate(ref="e1", selector="#text", tag="input", role="textbox", name="New note",
                                 kinds=("type",)),
             observing.Candidate(ref="e2", selector="#add", tag="button", role="button", name="Add",
                                 kinds=("click",)))
    tree = '- textbox "New note" [ref=e1]\n- button "Add" [ref=e2]\n' + "".join(
        f"- listitem\n  - text: note {i}\n" for i in range(notes))
    return observing.Observation(step=step, url="http://127.0.0.1:9/index.html", title="Notes", doc=1.0,
                                 state=str(notes), visual=visual, candidates=cands, tree=tree, keyboard=False,
                                 canvases=0, scrollable=False, budget_left=16 - step)


def _agent(shots=None, retries: int = 2) -> uitest_policy.UITestPolicy:
    client = llm.Client(llm.Config(model="claude-ui-test"), sleep=lambda s: None)
    agent = uitest_policy.UITestPolicy(client, TEST, EXPECTED, shots=shots or Shots(), parse_retries=retries)
    agent.begin(policy.Context(start_url="http://127.0.0.1:9/index.html", app_origin="http://127.0.0.1:9", seed=0,
                               max_steps=15, instrumented=False, step_timeout_s=10, plateau_steps=3))
    return agent


def _step(index: int, action: evidence.Action, ok: bool = True, error: str | None = None, shot=None):
    return evidence.Step(index=index, action=action, ok=ok, error=error, url="http://127.0.0.1:9/index.html",
                         screenshot=shot)


def test_the_test_case_a_screenshot_and_the_tree_reach_the_agent(fake_anthropic):
    fake_anthropic.push(tool_use("type", {"ref": "e1", "text": "Buy milk", "intent": "enter it"}))
    action = _agent().choose(_obs(1))
    assert action == evidence.Action(kind="type", selector="#text", target='textbox "New note"', value="Buy milk",
                                     intent="enter it")
    body = fake_anthropic.requests[0].body
    sent = fake_anthropic.requests[0].all_text()
    assert TEST in sent and EXPECTED in sent and "[ref=e2]" in sent
    assert "127.0.0.1:9" not in sent, "the loopback origin changes every run: it stays out of the prompt"
    images = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
    assert {t["name"] for t in body["tools"]} >= {"click", "type", "verdict"} and "finish" not in {
        t["name"] for t in body["tools"]}


def test_a_ref_that_does_not_exist_is_a_failing_step_whose_error_is_fed_back(fake_anthropic):
    fake_anthropic.push(tool_use("click", {"ref": "e99", "intent": "the add button"}),
                        tool_use("verdict", {"verdict": "NO", "justification": "nothing", "evidence_steps": [1]}))
    agent = _agent()
    first = agent.choose(_obs(1))
    assert first.kind == "click" and first.selector is None and "e99" in first.target
    agent.observe(_step(1, first, ok=False, error=f"no element to click: {first.target}"), _obs(1))
    finish = agent.choose(_obs(2))
    assert finish.kind == "finish" and agent.verdict.verdict == "NO"
    fed_back = last_tool_result(fake_anthropic.requests[1].body)
    assert "step 1: the action failed" in fed_back and "'e99', which is not on this page" in fed_back
    assert agent.performed == []  # a failed action is not part of a replay


def test_unusable_replies_are_asked_again_a_bounded_number_of_times(fake_anthropic):
    fake_anthropic.push(text("Looks fine."), text("Still fine."), text("Fine."), text("never sent"))
    agent = _agent(retries=2)
    assert agent.choose(_obs(1)) is None
    assert len(fake_anthropic.requests) == 3
    assert agent.verdict is None and agent.reasks == 2
    assert agent.problem.startswith("unscored: the agent gave no usable reply after 2 re-asks")
    assert "Call exactly one tool" in fake_anthropic.requests[1].all_text()


def test_a_verdict_citing_a_step_that_did_not_happen_is_asked_again(fake_anthropic):
    fake_anthropic.push(tool_use("verdict", {"verdict": "YES", "justification": "ok", "evidence_steps": [7]}),
                        tool_use("verdict", {"verdict": "MAYBE", "justification": "ok", "evidence_steps": []}),
                        tool_use("verdict", {"verdict": "YES", "justification": "listed", "evidence_steps": [0]}))
    agent = _agent()
    assert agent.choose(_obs(1)).kind == "finish"
    assert agent.verdict.verdict == "YES" and agent.reasks == 2
    assert "step 7, which did not happen" in last_tool_result(fake_anthropic.requests[1].body)
    assert "verdict" in last_tool_result(fake_anthropic.requests[2].body)
    assert agent.evidence_shots() == ("shots/0000.png",)


def test_a_text_verdict_line_is_accepted(fake_anthropic):
    fake_anthropic.push(text("Verdict: PARTIAL\nEvidence: step 0\nThe list is there but empty."))
    agent = _agent()
    assert agent.choose(_obs(1)).kind == "finish" and agent.verdict.verdict == "PARTIAL"


def test_at_the_step_cap_the_verdict_is_demanded_and_only_the_newest_screenshot_is_sent(fake_anthropic):
    shots = Shots()
    fake_anthropic.push(tool_use("click", {"ref": "e2", "intent": "add"}),
                        tool_use("verdict", {"verdict": "YES", "justification": "note 0 is listed",
                                             "evidence_steps": [1]}))
    agent = _agent(shots)
    action = agent.choose(_obs(1))
    shots.files["shots/0001.png"] = PNG + b"1"
    shots.latest = "shots/0001.png"
    agent.observe(_step(1, action, shot="shots/0001.png"), _obs(1, notes=1, visual="v1"))
    agent.conclude("budget of 1 steps used")
    final = fake_anthropic.requests[1].body
    assert final["tool_choice"] == {"type": "tool", "name": "verdict"}
    images = [b for m in final["messages"] if m["role"] == "user" for b in m["content"] if b.get("type") == "image"]
    assert len(images) == 1
    assert agent.verdict.verdict == "YES" and agent.concluded
    assert agent.evidence_shots() == ("shots/0001.png",)
    assert [s.name for s in agent.performed] == ["Add"]


def test_an_unavailable_llm_leaves_the_case_unscored(fake_anthropic):
    fake_anthropic.push(Fault.bad_request("no"))
    agent = _agent()
    assert agent.choose(_obs(1)) is None
    assert agent.verdict is None and agent.problem.startswith("the LLM was unavailable")
