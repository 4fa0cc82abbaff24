"""One settings tree: built by the CLI, embedded in the CRD, sent to pods as one
document, all of it in the config hash; cross-field rules named by field."""

from __future__ import annotations

import argparse

import pydantic
import pytest

from iwcbench.operator import api
from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import settings


def test_the_old_judge_spelling_still_names_the_judge_model():
    moved = settings.Evaluation.model_validate({"scoring": {"judge": "claude-x", "accessibility": False}})
    assert moved.judging.model == "claude-x" and moved.scoring.judge is None
    assert moved.scoring.accessibility is False
    with pytest.raises(pydantic.ValidationError) as caught:
        settings.Evaluation.model_validate({"scoring": {"judge": "a"}, "judging": {"model": "b"}})
    assert "scoring.judge: names 'a' while judging.model names 'b'" in settings.describe_error(caught.value)


def test_camel_case_is_accepted_and_means_the_same():
    assert settings.Evaluation.model_validate({"exploration": {"maxSteps": 7}}) == \
        settings.Evaluation.model_validate({"exploration": {"max_steps": 7}})


def test_a_cross_field_rule_names_its_field_both_ways():
    with pytest.raises(pydantic.ValidationError) as caught:
        settings.Evaluation.model_validate({"exploration": {"policy": "llm"}})
    assert settings.describe_error(caught.value).splitlines()[1].strip().startswith(
        "exploration.model: the llm explorer needs a model")
    message = api.parse_spec({"tasks": "s3://bkt/t.jsonl", "apps": {"uri": "s3://bkt/apps"}, "store": "s3://bkt/o",
                              "judging": {"model": "m", "runs": 2, "minUsableRuns": 3}})
    assert message.startswith("spec.judging.minUsableRuns: 3 usable runs can never come from 2")


def test_the_config_hash_covers_judging_and_llm_options():
    base = settings.Evaluation()
    assert base.config_hash() != settings.Evaluation(judging={"runs": 3}).config_hash()
    assert base.config_hash() != settings.Evaluation(llm={"effort": "low"}).config_hash()
    where = settings.RunSettings(tasks="t", apps="a", out="o1", workers=1, mirror_dir="/m1")
    elsewhere = where.model_copy(update={"out": "o2", "workers": 4, "mirror_dir": "/m2", "llm_cache_dir": "/c"})
    assert where.config_hash() == elsewhere.config_hash()  # where it runs changes no result
    assert where.config_hash() != where.model_copy(update={"tasks": "other"}).config_hash()


def test_a_pod_gets_the_whole_evaluation_as_one_document():
    run = settings.RunSettings(tasks="t", apps="a", out="o", judging={"model": "claude-x", "runs": 3},
                               exploration={"max_steps": 9})
    document = run.document()
    assert settings.parse_document(document) == run.evaluation()
    assert "tasks" not in document and "out" not in document


def test_cli_flags_override_the_settings_document():
    args = argparse.Namespace(settings='{"exploration": {"max_steps": 9, "seed": 4}, "judging": {"runs": 3}}',
                              max_steps=12, judge="claude-x", no_accessibility=True)
    built = options.evaluation(args)
    assert (built.exploration.max_steps, built.exploration.seed) == (12, 4)
    assert (built.judging.model, built.judging.runs, built.scoring.accessibility) == ("claude-x", 3, False)


def test_the_settings_document_may_be_a_file_and_bad_json_names_the_option(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"quality": {"states": "explored"}}')
    assert options.evaluation(argparse.Namespace(settings=str(path))).quality.states == "explored"
    with pytest.raises(pydantic.ValidationError) as caught:
        options.evaluation(argparse.Namespace(settings="nope{"))
    assert settings.describe_error(caught.value).startswith(
        "invalid configuration:\n  the settings document (--settings): Invalid JSON")
