"""The alignment agent: tools over the evidence with line numbers, verdicts → percentages."""

from __future__ import annotations

import pytest
from fakes.anthropic_server import tool_use
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, reader, sample_files

from iwcbench.pipeline.contracts import settings, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.judging import alignment, bundle
from iwcbench.pipeline.kits.llm import fences

ONLY = settings.Judging(dimensions=("alignment",))


def _client(fake):
    return llm.Client(llm.Config(model="claude-sonnet-test", base_url=fake.url), sleep=lambda s: None)


def test_sub_scores_are_the_share_of_satisfied_criteria(fake_anthropic):
    fake_anthropic.handler = ScriptedJudge(satisfied={"F1": True, "F2": False, "C1": True, "V1": True})
    scores = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), ONLY)
    assert scores["alignment_functional"].value == 50.0
    assert scores["alignment_content"].value == 100.0
    assert scores["alignment_visual"].value == 100.0
    assert scores["alignment_functional"].reason == "1 of 2 functional criteria satisfied"
    assert "step 2" in scores["alignment_content"].evidence
    assert scores["alignment_functional"].raw["tool_calls"] == 2


def test_search_and_read_results_carry_line_numbers(fake_anthropic):
    fake_anthropic.handler = ScriptedJudge()
    judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), ONLY)
    second, third = fake_anthropic.requests[1].body, fake_anthropic.requests[2].body
    search_result = second["messages"][-1]["content"][0]
    assert search_result["type"] == "tool_result"
    files = sample_files()

    def line_of(key, needle):  # snapshots are shown one tag per line
        shown = files[key].decode().replace("><", ">\n<").splitlines()
        return next(i for i, line in enumerate(shown, 1) if needle in line)

    n0 = line_of("dom/0000.html", "items left")
    assert f"dom/0000.html:{n0}: <p class='left'>0 items left</p>" in search_result["content"]
    assert "3 hit(s)" in search_result["content"]
    read_result = third["messages"][-1]["content"][0]["content"]
    assert "dom/0002.html page 1 of 1" in read_result
    n2 = line_of("dom/0002.html", "item left")
    assert f"{n2:5d}| <p class='left'>1 item left</p>" in read_result


def test_a_yes_without_runtime_evidence_counts_as_no(fake_anthropic):
    verdicts = [{"criterion_id": c.id, "satisfied": True, "evidence": [], "analysis": "the code has it",
                 "confidence": 0.9} for c in TODO_TASK.checklist]
    fake_anthropic.push(tool_use("submit_verdicts", {"verdicts": verdicts}))
    scores = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), ONLY)
    assert scores["alignment_functional"].value == 0.0
    notes = [v.get("note") for v in scores["alignment_functional"].raw["verdicts"]]
    assert notes == ["yes without runtime evidence counted as no"] * 2


def test_missing_verdicts_are_asked_again_then_left_unscored(fake_anthropic):
    partial = [{"criterion_id": "C1", "satisfied": True, "evidence": ["S1"], "analysis": "seen",
                "confidence": 0.7}]
    fake_anthropic.handler = lambda body: tool_use("submit_verdicts", {"verdicts": partial})
    scores = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic),
                               settings.Judging(dimensions=("alignment",), parse_retries=1))
    assert scores["alignment_content"].value == 100.0
    assert scores["alignment_functional"].value is None
    assert "no usable verdict for F1, F2" in scores["alignment_functional"].reason
    assert len(fake_anthropic.requests) == 2
    retry = fake_anthropic.requests[1].body["messages"][-1]["content"][0]
    assert retry["is_error"] and "no verdict for F1, F2, V1" in retry["content"]


def test_tool_budget_forces_the_verdicts(fake_anthropic):
    fake_anthropic.handler = lambda body: (
        tool_use("submit_verdicts", {"verdicts": []}) if body["tool_choice"]["type"] == "tool"
        else tool_use("view_graph", {"state": ""}))
    judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic),
                      settings.Judging(dimensions=("alignment",), alignment_max_tool_calls=3, parse_retries=0))
    choices = [r.body["tool_choice"] for r in fake_anthropic.requests]
    assert choices == [{"type": "any"}] * 3 + [{"type": "tool", "name": "submit_verdicts"}]
    assert [t["name"] for t in fake_anthropic.requests[-1].body["tools"]] == ["submit_verdicts"]


def test_task_without_checklist_is_unscored_with_the_way_out(fake_anthropic):
    bare = task.Task(id="t", prompt="anything")
    scores = judging.judge_app(bare, reader(sample_files()), _client(fake_anthropic), ONLY)
    assert {s.reason for s in scores.values()} == {"task has no checklist; run iwc checklist"}
    assert all(s.value is None for s in scores.values())
    assert fake_anthropic.requests == []


def test_tools_report_bad_input_as_errors_not_exceptions():
    ev = bundle.Bundle.load(reader(sample_files()), fences.new_nonce())
    tools = alignment.Tools(ev, page_lines=3, max_hits=2)
    assert tools.run("search", {"pattern": "(", "source": "dom"})[1] is True
    assert tools.run("read", {"source": "dom/9999.html", "page": 1})[1] is True
    assert tools.run("read", {"source": "trace", "page": 99})[1] is True
    text, err = tools.run("search", {"pattern": "task", "source": "dom"})
    assert not err and "more hits not shown" in text
    content, err = tools.run("view_screenshot", {"key": "shots/0002.png"})
    assert not err and content[1]["type"] == "image"
    assert "S1->S2" in tools.run("view_graph", {"state": "S2"})[0]
    paged, _ = tools.run("read", {"source": "trace", "page": 2})
    assert "page 2 of" in paged and "    4| " in paged


@pytest.mark.parametrize("cited,expected", [(["dom/0002.html:7"], True), (["the code"], False)])
def test_line_citations_count_as_runtime_evidence(cited, expected):
    assert bool(alignment._runtime_refs(cited, {"dom/0002.html"})) is expected
