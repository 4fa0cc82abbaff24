"""The LLM tester policy against the fake Messages API (no browser: observations are
built by hand the way observe.mjs reports them)."""

from __future__ import annotations

from fakes.anthropic_server import text, tool_use

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import caching as llm_caching
from iwcbench.pipeline.stages.exploring import llm_policy, observing, policy

UNCOVERED = "function secretExport() { download(csv) }  // app.js:120-140"


def _obs(step: int, items: int, gain_cov: float = 10.0) -> observing.Observation:
    cands = [observing.Candidate(ref="e1", selector="#new", tag="input", role="textbox", name="Add task",
                                 kinds=("type",)),
             observing.Candidate(ref="e2", selector="#add", tag="button", role="button", name="Add",
                                 kinds=("click",))]
    cands += [observing.Candidate(ref=f"e{10 + i}", selector=f"li:nth-child({i + 1}) input", tag="input",
                                  role="checkbox", name=f"task {i}", kinds=("check",)) for i in range(items)]
    tree = "\n".join(['- heading "My tasks"', '- textbox "Add task" [ref=e1]', '- button "Add" [ref=e2]',
                      "- list"] + [f'  - checkbox "task {i}" [ref=e{10 + i}]' for i in range(items)]
                     + [f'- text "{items} items left"'])
    return observing.Observation(step=step, url="http://127.0.0.1:9/index.html", title="To-do", doc=1.0,
                                 state=str(items), visual=str(items), candidates=tuple(cands), tree=tree,
                                 keyboard=False, canvases=0, scrollable=False, budget_left=100 - step,
                                 coverage=evidence.CoverageSummary(statements=gain_cov))


def _step(index: int, gain: float = 0.0, **kw) -> evidence.Step:
    return evidence.Step(index=index, action=evidence.Action(kind="click"), url="http://x/", coverage_gain=gain, **kw)


def _context(instrumented: bool = True, plateau: int = 3) -> policy.Context:
    return policy.Context(start_url="http://127.0.0.1:9/index.html", app_origin="http://127.0.0.1:9", seed=0,
                          max_steps=100, instrumented=instrumented, step_timeout_s=10, plateau_steps=plateau)


def _policy(fake, **kw) -> llm_policy.LLMPolicy:
    client = llm.Client(llm.Config(model="claude-sonnet-test"), sleep=lambda s: None)
    return llm_policy.LLMPolicy(client, **kw)


def _user_text(request) -> str:
    return str(request.body["messages"][-1]["content"])


def test_full_tree_first_then_only_the_diff(fake_anthropic):
    fake_anthropic.push(tool_use("click", {"ref": "e2", "intent": "add an empty task"}),
                        tool_use("check", {"ref": "e10", "intent": "tick the new task"}))
    p = _policy(fake_anthropic)
    p.begin(_context())
    first = p.choose(_obs(0, 0))
    assert first == evidence.Action(kind="click", selector="#add", target='button "Add"', intent="add an empty task")
    p.observe(_step(1, gain=5.0, console_errors=("TypeError: x",)), _obs(1, 1))
    second = p.choose(_obs(1, 1))
    assert second.kind == "check" and second.selector == "li:nth-child(1) input" and second.intent == "tick the new task"
    full, diff = _user_text(fake_anthropic.requests[0]), _user_text(fake_anthropic.requests[1])
    assert 'heading \\"My tasks\\"' in full or 'heading "My tasks"' in full
    assert "My tasks" not in diff  # unchanged lines are not sent again
    assert '+  - checkbox "task 0" [ref=e10]' in diff.replace('\\"', '"')
    assert '-- text "0 items left"' in diff.replace('\\"', '"')
    # the previous action's outcome comes back as its tool result, errors included
    result = fake_anthropic.requests[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "TypeError: x" in result["content"]


def test_plateau_asks_for_guidance_from_uncovered_code_and_injects_it(fake_anthropic):
    calls = []

    def handler(body):
        if body["system"] == llm_policy.GUIDANCE_SYSTEM:
            return text("Try the Export button after adding two tasks.")
        return tool_use("click", {"ref": "e2", "intent": "add"})

    fake_anthropic.handler = handler
    p = _policy(fake_anthropic, uncovered=lambda: calls.append(1) or UNCOVERED)
    p.begin(_context(plateau=3))
    for i in range(3):
        p.choose(_obs(i, 0))
        p.observe(_step(i + 1, gain=0.0), _obs(i + 1, 0))
    assert len(calls) == 1 and p.guidance_calls == 1
    guidance_req = [r for r in fake_anthropic.requests if r.body["system"] == llm_policy.GUIDANCE_SYSTEM]
    assert len(guidance_req) == 1 and "secretExport" in str(guidance_req[0].body["messages"])
    p.choose(_obs(3, 0))
    last = _user_text(fake_anthropic.requests[-1])
    assert "Try the Export button" in last
    # the tester itself never sees source code
    tester = [r for r in fake_anthropic.requests if r.body["system"] == llm_policy.SYSTEM]
    assert all("secretExport" not in str(r.body) for r in tester)


def test_gain_resets_the_plateau_and_black_box_apps_get_no_guidance(fake_anthropic):
    fake_anthropic.handler = lambda body: tool_use("wait", {"ms": 200, "intent": "let it settle"})
    p = _policy(fake_anthropic, uncovered=lambda: UNCOVERED)
    p.begin(_context(plateau=3))
    for i, gain in enumerate([0, 0, 1.5, 0, 0]):
        p.choose(_obs(i, 0))
        p.observe(_step(i + 1, gain=gain), _obs(i + 1, 0))
    assert p.guidance_calls == 0
    box = _policy(fake_anthropic, uncovered=lambda: UNCOVERED)
    box.begin(_context(instrumented=False, plateau=1))
    for i in range(4):
        assert box.choose(_obs(i, 0)) == evidence.Action(kind="wait", value="200", intent="let it settle")
        box.observe(_step(i + 1), _obs(i + 1, 0))
    assert box.guidance_calls == 0
    assert "coverage" not in _user_text(fake_anthropic.requests[-1]).lower()


def test_unknown_ref_is_sent_back_then_finish_carries_the_summary(fake_anthropic):
    fake_anthropic.push(tool_use("click", {"ref": "e99", "intent": "?"}),
                        tool_use("finish", {"summary": "Adding works; ticking raises a TypeError."}))
    p = _policy(fake_anthropic)
    p.begin(_context())
    action = p.choose(_obs(0, 0))
    assert action == evidence.Action(kind="finish", intent=None)
    assert p.summary() == "Adding works; ticking raises a TypeError."
    retry = fake_anthropic.requests[1].body["messages"][-1]["content"][0]
    assert retry["is_error"] and "no element with ref 'e99'" in retry["content"]


def test_api_failure_ends_the_exploration_with_the_reason(fake_anthropic):
    from fakes.anthropic_server import Fault
    fake_anthropic.push(Fault.bad_request("too long"))
    p = _policy(fake_anthropic)
    p.begin(_context())
    assert p.choose(_obs(0, 0)) is None
    assert "LLM tester was unavailable" in p.summary()


def test_old_turns_are_dropped_and_the_full_tree_is_shown_again(fake_anthropic):
    fake_anthropic.handler = lambda body: tool_use("scroll", {"dx": 0, "dy": 300, "intent": "look below"})
    p = _policy(fake_anthropic, max_turns_kept=2, trim_slack=0)
    p.begin(_context())
    for i in range(6):
        p.choose(_obs(i, i))
        p.observe(_step(i + 1, gain=1.0), _obs(i + 1, i + 1))
    body = fake_anthropic.requests[-1].body
    assert len(body["messages"]) <= 5
    assert body["messages"][0]["role"] == "user"
    assert "omitted" in str(body["messages"][0]["content"])
    # the first kept user turn has no orphaned tool results
    assert all(b["type"] != "tool_result" for b in body["messages"][0]["content"])


def test_history_is_trimmed_in_steps_so_that_each_request_extends_the_last(fake_anthropic):
    """Between two trims every request starts with the whole previous request (the part
    the prompt cache serves); a trim drops the oldest turns at once, keeping at least
    max_turns_kept of them."""
    fake_anthropic.handler = lambda body: tool_use("scroll", {"dx": 0, "dy": 300, "intent": "look below"})
    p = _policy(fake_anthropic, max_turns_kept=4, trim_slack=3)
    p.begin(_context())
    for i in range(16):
        p.choose(_obs(i, i))
        p.observe(_step(i + 1, gain=1.0), _obs(i + 1, i + 1))
    sent = [llm_caching.unpacked(r.body)["messages"] for r in fake_anthropic.requests]
    extends = [later[:len(earlier)] == earlier for earlier, later in zip(sent, sent[1:])]
    trims = extends.count(False)
    assert trims == 2  # after 7 turns kept, back to 4, then after 7 again: 2 trims in 16 steps
    assert all(4 * 2 - 1 <= len(m) <= 7 * 2 + 1 for m in sent[8:])


def test_a_run_ended_by_the_budget_or_the_clock_still_asks_for_the_final_summary(fake_anthropic):
    fake_anthropic.push(tool_use("click", {"ref": "e2", "intent": "add"}),
                        tool_use("finish", {"summary": "Adding works; nothing else was reached."}))
    p = _policy(fake_anthropic)
    p.begin(_context())
    p.choose(_obs(0, 0))
    p.observe(_step(1, gain=5.0), _obs(1, 1))
    p.end("time limit 300 s")
    assert p.summary() == "Adding works; nothing else was reached."
    last = fake_anthropic.requests[-1].body
    assert last["tool_choice"] == {"type": "tool", "name": "finish"}
    content = last["messages"][-1]["content"]
    assert content[0]["type"] == "tool_result"  # the last action's outcome is answered first
    assert "time limit 300 s" in str(content[-1])
    p.end("again")  # once only
    assert len(fake_anthropic.requests) == 2


def test_no_final_summary_call_when_the_tester_finished_or_never_started(fake_anthropic):
    fake_anthropic.push(tool_use("finish", {"summary": "done"}))
    p = _policy(fake_anthropic)
    p.begin(_context())
    p.choose(_obs(0, 0))
    p.end("the explorer declared testing complete")
    assert p.summary() == "done" and len(fake_anthropic.requests) == 1
    idle = _policy(fake_anthropic)
    idle.end("budget of 100 steps used")
    assert idle.summary() is None and len(fake_anthropic.requests) == 1
