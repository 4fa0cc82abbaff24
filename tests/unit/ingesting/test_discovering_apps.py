"""discover_apps: folders and archives found; problems and missing apps reported."""

from __future__ import annotations

import pathlib

import pytest
from fakes.archives import EXAMPLES, FIXTURES

from iwcbench.pipeline.stages import ingesting

TASKS = ("todo", "game", "chart")


def tree(root: pathlib.Path, files: list[str]) -> pathlib.Path:
    for name in files:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"x")
    return root


def test_every_packaging_is_found_with_its_kind(tmp_path: pathlib.Path) -> None:
    tree(tmp_path, ["m1/todo/index.html", "m1/game.zip", "m1/chart.tar.gz", "m2/todo.tgz",
                    "m2/game/index.html", "m2/chart/index.html"])
    found = ingesting.discover_apps(tmp_path, TASKS)
    assert {(a.model, a.task_id, a.packaging) for a in found.apps} == {
        ("m1", "todo", "folder"), ("m1", "game", "zip"), ("m1", "chart", "tar.gz"),
        ("m2", "todo", "tar.gz"), ("m2", "game", "folder"), ("m2", "chart", "folder")}
    assert found.problems == () and found.missing == ()
    zipped = next(a for a in found.apps if a.packaging == "zip")
    assert pathlib.Path(zipped.source) == tmp_path / "m1" / "game.zip"
    assert zipped.key == "apps/m1/game"


def test_missing_tasks_are_listed_per_model(tmp_path: pathlib.Path) -> None:
    tree(tmp_path, ["m1/todo/index.html", "m2/game/index.html", "m2/chart/index.html"])
    found = ingesting.discover_apps(tmp_path, TASKS)
    assert found.missing == (("m1", "chart"), ("m1", "game"), ("m2", "todo"))


def test_entries_that_cannot_be_evaluated_are_problems(tmp_path: pathlib.Path) -> None:
    tree(tmp_path, ["notes.txt", "m1/todo/index.html", "m1/readme.md", "m1/nosuch/index.html",
                    "m1/other.zip", "bad name!/todo/index.html", "empty/", ".DS_Store",
                    "m1/.hidden/x"])
    found = ingesting.discover_apps(tmp_path, TASKS)
    problems = {(p.model, p.name): p.reason for p in found.problems}
    assert problems[("", "notes.txt")].startswith("stray file")
    assert problems[("m1", "readme.md")].startswith("stray file")
    assert problems[("m1", "nosuch")].startswith("unknown task id")
    assert problems[("m1", "other")].startswith("unknown task id")
    assert problems[("bad name!", "bad name!")].startswith("bad model name")
    assert problems[("empty", "empty")] == "model folder is empty"
    assert len(problems) == 6  # hidden entries are ignored, not reported
    assert [a.task_id for a in found.apps] == ["todo"]
    # The empty model is reported once, not as three missing apps.
    assert {m for m, _ in found.missing} == {"m1"}


def test_second_submission_for_a_task_uses_the_folder(tmp_path: pathlib.Path) -> None:
    tree(tmp_path, ["m1/todo/index.html", "m1/todo.zip", "m1/todo.tar.gz"])
    found = ingesting.discover_apps(tmp_path, TASKS)
    assert [(a.task_id, a.packaging) for a in found.apps] == [("todo", "folder")]
    assert sorted(p.reason for p in found.problems) == [
        "second submission ignored: todo.tar.gz (the folder is used)",
        "second submission ignored: todo.zip (the folder is used)"]


def test_missing_apps_folder_is_a_usage_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        ingesting.discover_apps(tmp_path / "nope", TASKS)


def test_bundled_example_is_complete() -> None:
    ids = [t.id for t in ingesting.load_tasks(EXAMPLES / "tasks.jsonl")]
    found = ingesting.discover_apps(EXAMPLES / "apps", ids)
    assert found.problems == () and found.missing == ()
    assert len(found.apps) == 14
    assert {(a.model, a.task_id) for a in found.apps if a.packaging == "zip"} == {
        ("aurora-7b", "ab-1010")}


def test_bad_app_fixtures_are_discovered_with_empty_folder_missing() -> None:
    ids = [t.id for t in ingesting.load_tasks(FIXTURES / "tasks.jsonl")]
    found = ingesting.discover_apps(FIXTURES / "apps", ids)
    assert found.problems == ()
    assert found.missing == (("mischief-1b", "empty-folder"),)
    assert {a.task_id: a.packaging for a in found.apps}["tar-symlink-out"] == "tar.gz"
    assert len(found.apps) == len(ids) - 1
