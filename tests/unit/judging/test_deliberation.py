"""Three rounds per deliberated dimension: advocate, critic, five final judges."""

from __future__ import annotations

import json

import pytest
from fakes.anthropic_server import text, tool_use
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, reader, role_of, sample_files, verdict

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.judging import deliberation

ONLY = settings.Judging(dimensions=("usability",))


def _client(fake, **kw):
    return llm.Client(llm.Config(model="claude-sonnet-test", base_url=fake.url, **kw), sleep=lambda s: None)


def test_each_dimension_calls_advocate_critic_then_five_judges(fake_anthropic):
    fake_anthropic.handler = ScriptedJudge()
    scores = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic),
                               settings.Judging(dimensions=("aesthetics", "usability")))
    roles = [role_of(r.body) for r in fake_anthropic.requests]
    for dim in ("aesthetics", "usability"):
        mine = [r for r in roles if r.startswith(dim)]
        # the advocate and the critic (together), then the five final judges
        assert set(mine[:2]) == {f"{dim}.advocate", f"{dim}.critic"}
        assert mine[2:] == [f"{dim}.judge"] * 5
    # the five judges see the same fixed reports
    judge_bodies = [r.body for r in fake_anthropic.requests if role_of(r.body) == "usability.judge"]
    assert len({str(b["messages"]) for b in judge_bodies}) == 1
    assert "console error after ticking" in str(judge_bodies[0]["messages"])
    assert set(scores) == {"aesthetics", "usability"}


def test_score_is_the_trimmed_mean_times_twenty(fake_anthropic):
    fake_anthropic.handler = ScriptedJudge(bases={"usability": [5, 1, 3, 4, 2]})
    score = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), ONLY)["usability"]
    assert score.value == pytest.approx(60.0)  # drop 5 and 1, mean(2, 3, 4) × 20
    assert score.raw["judge_model"] == "claude-sonnet-test"
    assert score.raw["advocate"].startswith("Strength")
    assert len(score.raw["runs"]) == 5
    # cited references that exist are kept; an invented one is set apart
    assert set(score.evidence) == {"step 2", "S1", "shots/0002.png"}
    assert score.raw["unverified_citations"] == ["step 99"]


def test_adjustments_are_summed_and_clipped_to_the_scale():
    dim = judging.usability.DIMENSION

    def reply(base, deltas):
        return llm.Reply("m", (tool_use("submit_verdict", verdict("usability", base, deltas)).content[0],),
                         "tool_use", llm_accounting.Usage())

    assert deliberation.parse_verdict(reply(3, [0.5, -0.25, 0, 0, 0, 0, 1]), dim, 1.0)[0] == 4.25
    assert deliberation.parse_verdict(reply(5, [1, 1, 0, 0, 0, 0, 0]), dim, 1.0)[0] == 5.0
    assert deliberation.parse_verdict(reply(0, [-1, 0, 0, 0, 0, 0, 0]), dim, 1.0)[0] == 0.0
    with pytest.raises(deliberation.ParseError, match="outside"):
        deliberation.parse_verdict(reply(3, [2, 0, 0, 0, 0, 0, 0]), dim, 1.0)


def test_trimmed_mean_drops_one_highest_and_one_lowest():
    assert deliberation.trimmed_mean([5, 5, 1, 3, 1]) == pytest.approx(3.0)
    assert deliberation.trimmed_mean([2.5, 4.0, 3.0]) == pytest.approx(3.0)
    with pytest.raises(ValueError):
        deliberation.trimmed_mean([1, 2])


def test_an_unreadable_answer_is_sent_back_and_the_corrected_one_counts(fake_anthropic):
    scripted = ScriptedJudge(bases={"usability": [3, 3, 3, 3, 3]})
    bad = iter([tool_use("submit_verdict", {"base": 9}), text("I think it deserves a 4")])

    def handler(body):
        if role_of(body) == "usability.judge" and len(body["messages"]) == 1:
            follow = next(bad, None)
            if follow is not None:
                return follow
        return scripted(body)

    fake_anthropic.handler = handler
    score = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), ONLY)["usability"]
    assert score.value == pytest.approx(60.0)
    corrections = [r for r in fake_anthropic.requests if len(r.body["messages"]) == 3]
    assert len(corrections) == 2
    first = corrections[0].body["messages"][2]["content"][0]
    assert first["type"] == "tool_result" and first["is_error"] and "base must be" in first["content"]
    assert {r["attempts"] for r in score.raw["runs"]} == {1, 2}


def test_too_few_usable_runs_leave_the_dimension_unscored_not_zero(fake_anthropic):
    scripted = ScriptedJudge()
    judge_calls = {"n": 0}

    def handler(body):
        if role_of(body) == "usability.judge":
            judge_calls["n"] += 1
            if judge_calls["n"] > 2:  # runs 0 and 1 answer properly; runs 2..4 never do
                return text("no verdict today")
        return scripted(body)

    fake_anthropic.handler = handler
    judging_settings = settings.Judging(dimensions=("usability",), parse_retries=1)
    score = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic), judging_settings)["usability"]
    assert score.value is None
    assert "only 2 of 5 final-judge runs were usable" in score.reason
    assert "answered in prose instead of calling submit_verdict" in score.reason
    assert judge_calls["n"] == 2 + 3 * 2  # each bad run: first answer + one retry


def test_api_failure_of_the_advocate_is_unscored_with_the_reason(fake_anthropic):
    from fakes.anthropic_server import Fault
    scripted = ScriptedJudge()
    fake_anthropic.handler = lambda body: (Fault.server_error(503) if role_of(body).endswith("advocate")
                                           else scripted(body))
    client = _client(fake_anthropic, max_attempts=2)
    score = judging.judge_app(TODO_TASK, reader(sample_files()), client, ONLY)["usability"]
    assert score.value is None
    assert "advocate call failed" in score.reason and "503" in score.reason


def test_missing_trace_leaves_every_score_unscored(fake_anthropic):
    scores = judging.judge_app(TODO_TASK, reader({}), _client(fake_anthropic))
    assert set(scores) == set(judging.SCORE_NAMES)
    assert all(s.value is None and "no trace.json" in s.reason for s in scores.values())
    assert fake_anthropic.requests == []


def test_an_app_that_shows_nothing_gets_the_aesthetics_floor_without_a_call(fake_anthropic):
    files = sample_files()
    for key in [k for k in files if k.startswith("shots/")]:
        files[key] = files["shots/0001.png"]  # every screenshot blank
    score = judging.judge_app(TODO_TASK, reader(files), _client(fake_anthropic),
                              settings.Judging(dimensions=("aesthetics",)))["aesthetics"]
    assert score.value == 0.0
    assert score.reason.startswith("the app shows nothing: all 4 screenshots were blank")
    assert not [r for r in fake_anthropic.requests if role_of(r.body).startswith("aesthetics")]


def test_the_single_round_baseline_asks_the_final_judge_once_without_reports(fake_anthropic):
    fake_anthropic.handler = ScriptedJudge()
    score = judging.judge_app(TODO_TASK, reader(sample_files()), _client(fake_anthropic),
                              settings.Judging(dimensions=("usability",), protocol="single"))["usability"]
    roles = [role_of(r.body) for r in fake_anthropic.requests]
    assert roles == ["usability.judge"]
    body = json.dumps(fake_anthropic.requests[0].body)
    assert "advocate_report" not in body and "critic_report" not in body
    assert score.value is not None and score.reason.startswith("single-round judge score")
    assert score.raw["protocol"] == "judge×1 (single round)"
