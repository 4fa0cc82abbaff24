"""The assisted explorer against the fake Messages API (no browser: observations built
by hand): the heuristic chooses until its coverage stalls, then the LLM tester takes a
turn of three steps, with one guidance call first; the heuristic remembers the tester's
steps; the tester's steps per app are capped; a tester that finishes is not asked again."""

from __future__ import annotations

from fakes.anthropic_server import text, tool_use

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.exploring import assisted, heuristic, llm_policy, observing, policy

MAP = {"app.js": {"path": "app.js", "fnMap": {"0": {"name": "bonus", "decl": {"start": {"line": 3, "column": 9},
                                                                               "end": {"line": 3, "column": 14}},
                                                     "loc": {"start": {"line": 3, "column": 0},
                                                             "end": {"line": 3, "column": 40}}, "line": 3}},
                  "statementMap": {"0": {"start": {"line": 3, "column": 18}, "end": {"line": 3, "column": 38}}},
                  "branchMap": {}, "s": {"0": 0}, "f": {"0": 0}, "b": {}}}


def _obs(step: int) -> observing.Observation:
    cands = (observing.Candidate(ref="e1", selector="#more", tag="button", role="button", name="Add one",
                                 kinds=("click",)),
             observing.Candidate(ref="e2", selector="#other", tag="button", role="button", name="Other",
                                 kinds=("click",)))
    tree = '- button "Add one" [ref=e1]\n- button "Other" [ref=e2]'
    return observing.Observation(step=step, url="http://127.0.0.1:9/index.html", title="Count", doc=1.0,
                                 state="s", visual="v", candidates=cands, tree=tree, keyboard=False, canvases=0,
                                 scrollable=False, budget_left=60 - step,
                                 coverage=evidence.CoverageSummary(statements=50.0))


def _context() -> policy.Context:
    return policy.Context(start_url="http://127.0.0.1:9/index.html", app_origin="http://127.0.0.1:9", seed=0,
                          max_steps=60, instrumented=True, step_timeout_s=10, plateau_steps=3,
                          coverage=lambda: MAP, coverage_map=MAP)


def _explore(fake, steps: int, cap: int, gains: dict[int, float] | None = None):
    client = llm.Client(llm.Config(model="claude-sonnet-test"), sleep=lambda s: None)
    tester = llm_policy.LLMPolicy(client, uncovered=lambda: "function bonus() { win() }  // app.js:3")
    chooser = assisted.AssistedPolicy(tester, max_steps=cap)
    chooser.begin(_context())
    taken = []
    for i in range(steps):
        obs = _obs(i)
        action = chooser.choose(obs)
        assert action is not None
        taken.append((i, chooser.choice().how if chooser.choice() else None, action))
        chooser.observe(evidence.Step(index=i + 1, action=action, url=obs.url, coverage_gain=(gains or {}).get(i, 0.0)),
                        _obs(i + 1))
    return chooser, taken


def _fake_tester(fake, finish_at: int | None = None):
    asked = []

    def handler(body):
        if body["system"] == llm_policy.GUIDANCE_SYSTEM:
            return text("Click Add one five hundred times.")
        asked.append(body)
        if finish_at is not None and len(asked) == finish_at:
            return tool_use("finish", {"summary": "nothing else to try"})
        return tool_use("click", {"ref": "e1", "intent": "push the counter on"})

    fake.handler = handler
    return asked


def test_the_tester_takes_turns_of_three_where_coverage_stalls_up_to_its_cap(fake_anthropic):
    asked = _fake_tester(fake_anthropic)
    chooser, taken = _explore(fake_anthropic, 60, cap=5, gains={0: 10.0})
    by_tester = [i for i, how, _ in taken if how == "llm"]
    # stalled after the gain at step 1: more than STALL_STEPS steps later, three tester steps;
    # the next turn waits STALL_STEPS steps from the end of that one, and takes the last two of five
    assert by_tester[:3] == [by_tester[0], by_tester[0] + 1, by_tester[0] + 2]
    assert by_tester[0] > heuristic.STALL_STEPS
    assert len(by_tester) == 5 and by_tester[3] - by_tester[2] > heuristic.STALL_STEPS
    assert all(a.intent == "push the counter on" and a.selector == "#more" for i, how, a in taken if how == "llm")
    assert len(asked) == 5 and chooser.tester.guidance_calls == 2
    guidance = [r for r in fake_anthropic.requests if r.body["system"] == llm_policy.GUIDANCE_SYSTEM]
    assert len(guidance) == 2 and "bonus" in str(guidance[0].body["messages"])
    second_turn = str(asked[3]["messages"][-1]["content"])
    assert "steps were taken by another tester" in second_turn and "five hundred times" in second_turn
    # the heuristic counts the tester's clicks as tried there
    assert sum(n for (_, sig), n in chooser.heuristic.memory.tried.items() if "#more" in sig) >= 5
    assert all(how != "llm" for i, how, _ in taken if i not in by_tester)
    assert chooser.summary().startswith("The LLM tester took 5 of the steps, in 2 turns")


def test_a_tester_that_finishes_hands_back_and_is_not_asked_again(fake_anthropic):
    asked = _fake_tester(fake_anthropic, finish_at=2)
    chooser, taken = _explore(fake_anthropic, 60, cap=12, gains={0: 10.0})
    assert [how for _, how, _ in taken].count("llm") == 1
    assert len(asked) == 2 and all(a.kind != "finish" for _, _, a in taken)
    assert "nothing else to try" in chooser.summary()


def test_without_a_stall_the_tester_is_never_asked(fake_anthropic):
    asked = _fake_tester(fake_anthropic)
    chooser, taken = _explore(fake_anthropic, 30, cap=12, gains={i: 1.0 for i in range(30)})
    assert not asked and not fake_anthropic.requests and chooser.summary() is None
    assert all(how != "llm" for _, how, _ in taken)
