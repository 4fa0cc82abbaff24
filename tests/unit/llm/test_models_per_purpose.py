"""A model per purpose, on any provider: the judges' calls reach the model their
settings field names (a stage never knows which), and a model that cannot be called is
an error naming its field before any app is evaluated."""

from __future__ import annotations

import pytest

from fakes import runs
from fakes.anthropic_server import text
from fakes.openai_server import FakeOpenAI

from iwcbench.pipeline import cli
from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import purposes, settings
from iwcbench.pipeline.kits.llm import accounting as llm_accounting
from iwcbench.pipeline.runs import assistants


def _ask(client, purpose):
    return client.create(system="s", messages=[{"role": "user", "content": purpose}], purpose=purpose).text


def test_each_judge_reaches_its_own_model_and_the_calls_count_in_one_ledger(fake_anthropic, fake_openai):
    fake_anthropic.handler = lambda body: text("anthropic")
    fake_openai.handler = lambda body: text("openai")
    evaluation = settings.Evaluation.model_validate({"judging": {
        "model": "claude-judge", "aesthetics_model": "openai/gpt-4o", "webcoder_alignment_model": "openai/gpt-4o"}})
    judge = assistants.judge_client(evaluation, None)
    app = judge.derive(ledger=llm_accounting.Ledger("one-app"))
    answers = {p: _ask(app, p) for p in ("aesthetics.judge", "usability.advocate", "alignment.agent",
                                         "wcb.functionality", "wcb.alignment.visual")}
    assert answers == {"aesthetics.judge": "openai", "usability.advocate": "anthropic", "alignment.agent": "anthropic",
                       "wcb.functionality": "anthropic", "wcb.alignment.visual": "openai"}
    assert [r.body["model"] for r in fake_openai.requests] == ["gpt-4o", "gpt-4o"]
    purposes = app.ledger.totals()["by_purpose"]
    assert purposes == {p: 1 for p in answers}  # every route counted in the app's ledger
    assert {e.model for e in app.ledger.entries} == {"claude-judge", "openai/gpt-4o"}


def test_guidance_and_appearance_have_models_of_their_own(fake_anthropic, fake_openai):
    fake_anthropic.handler = lambda body: text("anthropic")
    fake_openai.handler = lambda body: text("openai")
    evaluation = settings.Evaluation.model_validate({
        "exploration": {"policy": "llm", "model": "claude-tester", "guidance_model": "openai/gpt-4o-mini"},
        "uitests": {"model": "openai/Qwen2.5-VL", "appearance_model": "claude-looker"}})
    wiring = assistants.Wiring(evaluation, None)
    assert [_ask(wiring.tester, p) for p in ("explore.step", "explore.guidance")] == ["anthropic", "openai"]
    assert [_ask(wiring.uitester, p) for p in ("uitest.step", "uitest.appearance")] == ["openai", "anthropic"]
    assert assistants.models_in_use(evaluation) == {
        "exploration.model": "claude-tester", "exploration.guidance_model": "openai/gpt-4o-mini",
        "uitests.model": "openai/Qwen2.5-VL", "uitests.appearance_model": "claude-looker"}


@pytest.mark.parametrize("fields, env, says", [
    ({"judging": {"model": "claude-j", "alignment_model": "acme/model-1"}}, {},
     "judging.alignment_model: 'acme/model-1': unknown provider"),
    ({"judging": {"model": "claude-j", "usability_model": "openai/gpt-4o"}}, {"OPENAI_API_KEY": None},
     "judging.usability_model: openai/gpt-4o: no API key: set OPENAI_API_KEY"),
    ({"uitests": {"model": "vllm/Qwen2.5-VL-32B-Instruct"}}, {"VLLM_BASE_URL": None},
     "uitests.model: vllm/Qwen2.5-VL-32B-Instruct: no endpoint: set VLLM_BASE_URL"),
    ({"judging": {"model": "claude-j", "webcoder_model": "openai/gpt-4o"}}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "judging.webcoder_model: openai/gpt-4o: http://127.0.0.1:9/v1 does not answer"),
])
def test_a_model_that_cannot_be_called_is_an_error_naming_its_field(fake_anthropic, fake_openai, monkeypatch,
                                                                      fields, env, says):
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    with pytest.raises(assistants.ModelProblem) as caught:
        assistants.check_models(settings.Evaluation.model_validate(fields))
    assert str(caught.value).startswith(says)


def test_a_refused_key_is_named_and_a_good_setup_passes(fake_anthropic, monkeypatch):
    strict = FakeOpenAI(api_key="the-right-key").start()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "a-wrong-key")
        evaluation = settings.Evaluation.model_validate({"judging": {"model": "openai/gpt-4o"},
                                                         "llm": {"endpoints": {"openai": strict.url}}})
        with pytest.raises(assistants.ModelProblem, match="judging.model: .* refused the API key .*OPENAI_API_KEY"):
            assistants.check_models(evaluation)
        monkeypatch.setenv("OPENAI_API_KEY", "the-right-key")
        assistants.check_models(evaluation)  # the endpoint from llm.endpoints answers
    finally:
        strict.stop()


def test_iwc_run_stops_before_any_app_when_a_model_has_no_key(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    code = cli.main(["run", "--tasks", str(runs.ROOT / "examples/tasks.jsonl"), "--apps",
                     str(runs.ROOT / "examples/apps"), "--out", str(out), "--judge", "openai/gpt-4o"])
    assert code == options.EXIT_CONFIG
    assert "judging.model: openai/gpt-4o: no API key: set OPENAI_API_KEY" in capsys.readouterr().err
    assert not (out / "apps").exists()


def test_seed_protocols_set_the_papers_models_and_flags_still_win():
    parser = __import__("argparse").ArgumentParser()
    options.add_evaluation_options(parser)
    webgen = options.evaluation(parser.parse_args(["--seed-protocol", "webgen"]))
    assert (webgen.uitests.model, webgen.uitests.appearance_model) == ("vllm/Qwen/Qwen2.5-VL-32B-Instruct",
                                                                        "openai/gpt-4o")
    webcoder = options.evaluation(parser.parse_args(["--seed-protocol", "webcoder"]))
    assert {p: purposes.model_for(webcoder, p) for p in ("wcb.general", "wcb.visual", "wcb.alignment")} == {
        "wcb.general": "google/gemini-2.5-pro", "wcb.visual": "google/gemini-2.5-pro",
        "wcb.alignment": "openai/gpt-5-chat-latest"}
    iwc = options.evaluation(parser.parse_args(["--seed-protocol", "iwc", "--judge", "claude-sonnet-4-5",
                                                "--endpoint", "grok=http://127.0.0.1:1/v1"]))
    assert iwc.judging.model == "claude-sonnet-4-5" and iwc.exploration.policy == "llm"
    assert "checklist_models" not in iwc.judging.model_dump()  # a task's checklist is written before a run
    assert iwc.llm.endpoints == {"grok": "http://127.0.0.1:1/v1"}


def test_estimate_prices_each_purpose_at_its_model_and_says_no_price_for_unknown_ones(tmp_path, capsys):
    base = ["run", "--tasks", str(runs.ROOT / "examples/tasks.jsonl"), "--apps", str(runs.ROOT / "examples/apps"),
            "--out", str(tmp_path / "out"), "--estimate", "--judge", "claude-sonnet-4-5", "--no-uitests"]
    assert cli.main(base) == 0
    anthropic_only = capsys.readouterr().out
    assert cli.main([*base, "--aesthetics-model", "openai/gpt-4o-mini"]) == 0
    cheaper = capsys.readouterr().out
    line = lambda printed, stage: next(x for x in printed.splitlines() if x.startswith(stage + " "))  # noqa: E731
    money = lambda row: float(row.split("$")[1].split()[0].replace(",", ""))  # noqa: E731
    assert money(line(cheaper, "aesthetics")) < money(line(anthropic_only, "aesthetics")) / 5
    assert line(cheaper, "usability") == line(anthropic_only, "usability")
    assert cli.main([*base, "--usability-model", "vllm/Qwen2.5-72B"]) == 0
    unpriced = capsys.readouterr().out
    assert "no price" in line(unpriced, "usability") and "no price" in line(unpriced, "total")
    assert "$" in line(unpriced, "aesthetics")


def test_the_ui_tests_need_the_key_of_their_own_models_provider(monkeypatch):
    from iwcbench.pipeline.runs import uitests
    evaluation = settings.Evaluation.model_validate({"uitests": {"model": "openai/Qwen2.5-VL"}})
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert uitests.needs_llm(evaluation) is None
    monkeypatch.delenv("OPENAI_API_KEY")
    assert "openai/Qwen2.5-VL: its provider's API key is not set" in uitests.needs_llm(evaluation)
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:8000/v1")  # a self-hosted server takes no key
    assert uitests.needs_llm(settings.Evaluation.model_validate({"uitests": {"model": "vllm/Qwen2.5-VL"}})) is None


def test_a_budget_works_for_a_priced_model_of_any_provider_and_refuses_an_unpriced_one():
    spending = settings.Spending(max_cost_usd=5)
    priced = settings.Evaluation.model_validate({"judging": {"model": "claude-sonnet-4-5",
                                                             "usability_model": "openai/gpt-4o-mini"}})
    assistants.check_prices(priced, spending)
    unpriced = settings.Evaluation.model_validate({"judging": {"model": "claude-sonnet-4-5",
                                                               "usability_model": "vllm/Qwen2.5-72B"}})
    with pytest.raises(assistants.NoPrice, match=r"vllm/Qwen2.5-72B \(judging.usability_model\)"):
        assistants.check_prices(unpriced, spending)
    assistants.check_prices(unpriced, settings.Spending())  # no budget: tokens are counted, no price needed


def test_a_results_file_that_named_checklist_models_still_reads():
    """The field left the settings tree (it never drove a run): settings recorded with it
    are read back without it, and a new one is refused nowhere."""
    recorded = settings.Evaluation.model_validate({"judging": {"model": "claude-x", "checklistModels": ["a", "b", "c"]}})
    assert recorded.judging.model == "claude-x" and "checklist_models" not in recorded.judging.model_dump()
