"""Folder apps have the caps archives have: bytes and file count, decided from the
file system's metadata before anything is copied (a sparse file is not read)."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import ingesting

PAGE = "<!doctype html><title>ok</title>"


def ref(source: pathlib.Path) -> evidence.AppRef:
    return evidence.AppRef(model="m", task_id="t", source=str(source), packaging="folder")


def defect(source: pathlib.Path, dest: pathlib.Path, limits: settings.Input) -> str:
    with pytest.raises(ingesting.AppDefect) as caught:
        ingesting.materialize(ref(source), dest, limits)
    assert list(dest.iterdir()) == []  # refused before anything was copied
    return caught.value.reason


def test_a_sparse_gigabyte_is_refused_without_being_copied(tmp_path: pathlib.Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with open(app / "data.bin", "wb") as handle:
        handle.truncate(1 << 30)
    assert (app / "data.bin").stat().st_blocks * 512 < 1 << 20  # a hole, not data
    reason = defect(app, tmp_path / "dest", settings.Input())
    assert "200000000 bytes (the cap)" in reason
    assert "data.bin" in reason and "sparse" in reason


def test_many_small_files_add_up_to_the_cap(tmp_path: pathlib.Path) -> None:
    app = tmp_path / "app"
    (app / "assets").mkdir(parents=True)
    (app / "index.html").write_text(PAGE)
    for i in range(5):
        (app / "assets" / f"{i}.bin").write_bytes(bytes(30_000))
    assert "100000 bytes (the cap)" in defect(app, tmp_path / "dest", settings.Input(max_archive_bytes=100_000))


def test_file_count_cap(tmp_path: pathlib.Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    for i in range(6):
        (app / f"{i}.html").write_text(PAGE)
    assert "more than 5 files (the cap)" in defect(app, tmp_path / "d1", settings.Input(max_archive_members=5))
    root = ingesting.materialize(ref(app), tmp_path / "d2", settings.Input(max_archive_members=6))
    assert len(list(root.iterdir())) == 6


def test_a_folder_under_the_caps_is_copied_whole(tmp_path: pathlib.Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    (app / "data.bin").write_bytes(bytes(99_000))
    root = ingesting.materialize(ref(app), tmp_path / "dest", settings.Input(max_archive_bytes=100_000))
    assert (root / "data.bin").stat().st_size == 99_000
