"""load_tasks: native lines, blank lines, errors that name the line and the field."""

from __future__ import annotations

import json
import pathlib

import pytest
from fakes.archives import DATASETS, EXAMPLES, write_lines

from iwcbench.pipeline.stages import ingesting

TODO = {"id": "todo", "prompt": "A todo app", "checklist": [
    {"id": "f1", "kind": "functional", "text": "adds items"},
    {"id": "c1", "kind": "content", "text": "counter text"},
    {"id": "v1", "kind": "visual", "text": "done items struck through"}],
    "labels": {"complexity": "L2", "clarity": "C1"}}


def test_native_tasks_load_in_order_and_blank_lines_are_skipped(tmp_path: pathlib.Path) -> None:
    path = write_lines(tmp_path / "tasks.jsonl",
                       [TODO, "", "   ", {"id": "game", "prompt": "A snake game"}])
    tasks = ingesting.load_tasks(path)
    assert [t.id for t in tasks] == ["todo", "game"]
    assert [c.kind for c in tasks[0].checklist] == ["functional", "content", "visual"]
    assert tasks[0].labels.clarity == "C1"


def test_bad_field_names_line_and_field_path(tmp_path: pathlib.Path) -> None:
    bad = json.loads(json.dumps(TODO))
    bad["id"] = "other"
    bad["checklist"][2]["kind"] = "pretty"
    path = write_lines(tmp_path / "tasks.jsonl", [TODO, "", bad])
    with pytest.raises(ingesting.TaskFileError) as caught:
        ingesting.load_tasks(path)
    message = str(caught.value)
    assert message.startswith("tasks.jsonl line 3: checklist.2.kind: Input should be")
    assert "'functional', 'content' or 'visual'" in message


def test_unknown_field_and_missing_prompt_are_both_named(tmp_path: pathlib.Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [{"id": "a", "promt": "typo"}])
    with pytest.raises(ingesting.TaskFileError) as caught:
        ingesting.load_tasks(path)
    assert "t.jsonl line 1:" in str(caught.value)
    assert "prompt: Field required" in str(caught.value)
    assert "promt: Extra inputs are not permitted" in str(caught.value)


def test_bad_task_id_is_rejected(tmp_path: pathlib.Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [{"id": "../etc", "prompt": "x"}])
    with pytest.raises(ingesting.TaskFileError, match=r"line 1: id: String should match pattern"):
        ingesting.load_tasks(path)


@pytest.mark.parametrize(("line", "expected"), [
    ('{"id": "a", "prompt": "x"', r"line 2: not valid JSON: .* \(column \d+\)"),
    ('["id", "prompt"]', r"line 2: expected a JSON object, got list"),
])
def test_lines_that_are_not_objects(tmp_path: pathlib.Path, line: str, expected: str) -> None:
    path = write_lines(tmp_path / "t.jsonl", [TODO, line])
    with pytest.raises(ingesting.TaskFileError, match=expected):
        ingesting.load_tasks(path)


def test_duplicate_ids_name_both_lines(tmp_path: pathlib.Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [TODO, {"id": "x", "prompt": "p"}, TODO])
    with pytest.raises(ingesting.TaskFileError,
                       match=r"t.jsonl line 3: duplicate task id 'todo' \(first on line 1\)"):
        ingesting.load_tasks(path)


def test_empty_missing_and_binary_files(tmp_path: pathlib.Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(ingesting.TaskFileError, match="no tasks"):
        ingesting.load_tasks(tmp_path / "empty.jsonl")
    with pytest.raises(ingesting.TaskFileError, match="no such task file"):
        ingesting.load_tasks(tmp_path / "absent.jsonl")
    (tmp_path / "junk.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ingesting.TaskFileError, match="not UTF-8"):
        ingesting.load_tasks(tmp_path / "junk.jsonl")


def test_byte_order_mark_is_accepted(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(TODO).encode() + b"\n")
    assert ingesting.load_tasks(path)[0].id == "todo"


def test_benchmark_lines_are_detected_and_mixed_with_native_ones(tmp_path: pathlib.Path) -> None:
    webgen = (DATASETS / "webgen-bench" / "test.jsonl").read_text().splitlines()[0]
    artifacts = (DATASETS / "artifactsbench-lite" / "artifacts_bench_lite.jsonl").read_text().splitlines()[0]
    path = write_lines(tmp_path / "t.jsonl", [webgen, TODO, artifacts])
    tasks = ingesting.load_tasks(path)
    assert [t.id for t in tasks] == ["000001", "todo", "ab-57"]
    assert [t.source for t in tasks] == ["webgen-bench", None, "artifactsbench"]


def test_whole_benchmark_files_load_directly() -> None:
    webgen = ingesting.load_tasks(DATASETS / "webgen-bench" / "test.jsonl")
    artifacts = ingesting.load_tasks(DATASETS / "artifactsbench-lite" / "artifacts_bench_lite.jsonl")
    assert len(webgen) == 101 and sum(len(t.ui_tests) for t in webgen) == 647
    assert len(artifacts) == 150 and all(len(t.checklist) == 10 for t in artifacts)


def test_malformed_benchmark_record_names_the_source_field(tmp_path: pathlib.Path) -> None:
    record = json.loads((DATASETS / "webgen-bench" / "test.jsonl").read_text().splitlines()[0])
    del record["ui_instruct"][2]["expected_result"]
    path = write_lines(tmp_path / "t.jsonl", [record])
    with pytest.raises(ingesting.TaskFileError,
                       match=r"line 1: ui_instruct.2.expected_result: Field required"):
        ingesting.load_tasks(path)


def test_bundled_example_loads() -> None:
    tasks = ingesting.load_tasks(EXAMPLES / "tasks.jsonl")
    assert [t.id for t in tasks] == ["todomvc", "000026", "ab-1010", "canvas-snake", "000010", "000014", "000049"]
    assert len(tasks[1].ui_tests) == 5 and len(tasks[2].checklist) == 10
