"""Importers on real rows: the first five lines of each benchmark file."""

from __future__ import annotations

import json

import pydantic
import pytest
from fakes.archives import DATASETS

from iwcbench.pipeline.stages import ingesting


def first_rows(relative: str, count: int = 5) -> list[dict]:
    lines = (DATASETS / relative).read_text().splitlines()[:count]
    return [json.loads(line) for line in lines]


WEBGEN = first_rows("webgen-bench/test.jsonl")
ARTIFACTS = first_rows("artifactsbench-lite/artifacts_bench_lite.jsonl")


@pytest.mark.parametrize("record", WEBGEN, ids=[r["id"] for r in WEBGEN])
def test_webgen_rows_keep_prompt_ui_tests_and_labels(record: dict) -> None:
    task = ingesting.from_webgen(record)
    assert task.id == record["id"]
    assert task.prompt == record["instruction"]
    assert task.checklist == ()  # WebGen-Bench has no checklist; none is invented
    assert [(t.task, t.expected_result) for t in task.ui_tests] == [
        (u["task"], u["expected_result"]) for u in record["ui_instruct"]]
    first = record["ui_instruct"][0]["task_category"]
    assert task.ui_tests[0].category == (
        f"{first['primary_category']}: {', '.join(first['subcategories'])}")
    assert task.labels.category == record["Category"]["primary_category"]
    assert task.labels.application_type == record["application_type"]
    assert task.source == "webgen-bench"


def test_webgen_first_row_exactly() -> None:
    task = ingesting.from_webgen(WEBGEN[0])
    assert task.id == "000001"
    assert task.labels.category == "Data Management"
    assert task.labels.application_type == "Analytics Platforms/Dashboards"
    assert task.ui_tests[0].category == "Functional Testing: Searching"
    assert task.ui_tests[3].category == "Functional Testing: Generation, Filtering"


@pytest.mark.parametrize("record", ARTIFACTS, ids=[str(r["index"]) for r in ARTIFACTS])
def test_artifactsbench_rows_keep_question_checklist_and_labels(record: dict) -> None:
    task = ingesting.from_artifactsbench(record)
    assert task.id == f"ab-{record['index']}"
    assert task.prompt == record["question"]
    assert [c.id for c in task.checklist] == [str(c["id"]) for c in record["checklist"]]
    for criterion, item in zip(task.checklist, record["checklist"], strict=True):
        assert criterion.text.startswith(item["title"])
        assert item["description"] in criterion.text
    head, _, tail = record["class"].partition("-")
    assert (task.labels.category, task.labels.application_type) == (head, tail)
    assert task.labels.difficulty == record["difficulty"]
    assert task.source == "artifactsbench"


# The six items every ArtifactsBench lite task shares get the same kind on every row.
SHARED_KINDS = {
    "Is the code robust?": "functional",
    "Are there any redundant features?": "functional",
    "Does the code have engineering quality?": "functional",
    "Is the dynamic interaction smooth and seamless?": "functional",
    "Are there any innovative features that are eye-catching?": "visual",
    "Does the interface vision meet professional design standards?": "visual",
}


@pytest.mark.parametrize("record", ARTIFACTS, ids=[str(r["index"]) for r in ARTIFACTS])
def test_shared_checklist_items_are_classified_consistently(record: dict) -> None:
    task = ingesting.from_artifactsbench(record)
    for criterion, item in zip(task.checklist, record["checklist"], strict=True):
        if item["title"] in SHARED_KINDS:
            assert criterion.kind == SHARED_KINDS[item["title"]], item["title"]


def test_task_specific_items_on_real_rows() -> None:
    kinds = {item["title"]: c.kind
             for record in ARTIFACTS
             for item, c in zip(record["checklist"], ingesting.from_artifactsbench(record).checklist,
                                strict=True)}
    assert kinds["Is the SVG dollar bill/cash currency visually accurate and detailed?"] == "visual"
    assert kinds["Does the interface design meet modern Android UI standards?"] == "visual"
    assert kinds["Is the JSON data handling correctly implemented?"] == "content"
    assert kinds["Is the puzzle-solving core game system fully implemented?"] == "functional"
    assert kinds["Is the currency sizing and scaling properly implemented?"] == "functional"


@pytest.mark.parametrize(("title", "description", "kind"), [
    ("Is the date rendering and visualization accurate?", "", "visual"),  # visual beats data
    ("Are the X and Y axes correctly implemented with proper titles?", "", "content"),
    ("Is the code robust?", "0 points if major rendering problems and colour clashes", "functional"),
    ("", "Check the colour scheme and layout.", "visual"),  # blank title: the description decides
])
def test_classification_rule(title: str, description: str, kind: str) -> None:
    assert ingesting.classify_criterion(title, description) == kind


def test_malformed_records_raise_with_source_field() -> None:
    record = dict(ARTIFACTS[0], checklist=[{"id": 0, "description": "no title"}])
    with pytest.raises(pydantic.ValidationError, match=r"checklist\.0\.title"):
        ingesting.from_artifactsbench(record)
    with pytest.raises(pydantic.ValidationError, match="instruction"):
        ingesting.from_webgen({"id": "x", "ui_instruct": []})
