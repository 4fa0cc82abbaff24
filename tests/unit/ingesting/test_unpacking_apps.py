"""materialize: folders and archives land safely in dest; hostile input is a defect."""

from __future__ import annotations

import os
import pathlib
import stat
import struct
import tarfile
import zipfile

import pytest
from fakes.archives import (EXAMPLES, FIXTURES, REGULAR, SYMLINK, make_tar, make_zip,
                            tar_member)

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import ingesting

PAGE = b"<!doctype html><title>ok</title>"


def ref(source: pathlib.Path, packaging: str = "folder") -> evidence.AppRef:
    return evidence.AppRef(model="m", task_id="t", source=str(source), packaging=packaging)


def files_under(root: pathlib.Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def defect(app: evidence.AppRef, dest: pathlib.Path, limits: settings.Input) -> str:
    with pytest.raises(ingesting.AppDefect) as caught:
        ingesting.materialize(app, dest, limits)
    assert list(dest.iterdir()) == []  # nothing half-extracted is left behind
    return caught.value.reason


# --- folders -----------------------------------------------------------------------

def test_folder_is_copied_with_inside_links_kept_and_outside_links_dropped(
        tmp_path: pathlib.Path, limits: settings.Input) -> None:
    app = tmp_path / "app"
    (app / "js").mkdir(parents=True)
    (app / "index.html").write_bytes(PAGE)
    (app / "js" / "main.js").write_text("console.log(1)")
    (app / "secret.txt").symlink_to("/etc/passwd")
    (app / "up").symlink_to("../..")
    (app / "alias.js").symlink_to("js/main.js")
    (app / "dangling").symlink_to("nowhere")
    root = ingesting.materialize(ref(app), tmp_path / "dest", limits)
    assert root == tmp_path / "dest"
    assert files_under(root) == {"index.html", "js/main.js", "alias.js"}
    assert (root / "alias.js").read_text() == "console.log(1)"
    assert os.readlink(root / "alias.js") == "js/main.js"


def test_missing_and_empty_folders_are_defects(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    assert defect(ref(tmp_path / "absent"), tmp_path / "d1", limits).startswith("app not found")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    assert defect(ref(tmp_path / "empty"), tmp_path / "d2", limits) == "app folder is empty (no files)"


def test_destination_must_be_empty(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "index.html").write_bytes(PAGE)
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "old").write_text("x")
    with pytest.raises(ValueError, match="empty destination"):
        ingesting.materialize(ref(tmp_path / "app"), tmp_path / "dest", limits)


# --- good archives -----------------------------------------------------------------

def test_zip_with_one_top_folder_returns_that_folder(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    archive = make_zip(tmp_path / "t.zip", [("site/", b"", None), ("site/index.html", PAGE, None),
                                             ("site/js/app.js", b"1", REGULAR | 0o111),
                                             ("__MACOSX/site/._index.html", b"junk", None)])
    root = ingesting.materialize(ref(archive, "zip"), tmp_path / "dest", limits)
    assert root == tmp_path / "dest" / "site"
    assert files_under(root) == {"index.html", "js/app.js"}
    assert not (tmp_path / "dest" / "__MACOSX").exists()
    assert os.stat(root / "js" / "app.js").st_mode & 0o111


def test_tar_gz_with_files_at_top_returns_dest(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    archive = make_tar(tmp_path / "t.tgz", [tar_member("index.html", PAGE),
                                             tar_member("css", kind=tarfile.DIRTYPE),
                                             tar_member("css/a.css", b"body{}"),
                                             tar_member("same.css", kind=tarfile.LNKTYPE, linkname="css/a.css"),
                                             tar_member("link.css", kind=tarfile.SYMTYPE, linkname="css/a.css")])
    root = ingesting.materialize(ref(archive, "tar.gz"), tmp_path / "dest", limits)
    assert root == tmp_path / "dest"
    assert files_under(root) == {"index.html", "css/a.css", "same.css", "link.css"}
    assert (root / "same.css").read_text() == "body{}" and not (root / "same.css").is_symlink()
    assert (root / "link.css").read_text() == "body{}"


def test_mode_bits_beyond_permissions_are_dropped(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    archive = make_tar(tmp_path / "t.tar.gz", [tar_member("run.sh", b"#!/bin/sh", mode=0o6755)])
    root = ingesting.materialize(ref(archive, "tar.gz"), tmp_path / "dest", limits)
    assert stat.S_IMODE(os.stat(root / "run.sh").st_mode) == 0o755


def test_bundled_zip_example(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    archive = EXAMPLES / "apps" / "aurora-7b" / "ab-1010.zip"
    root = ingesting.materialize(ref(archive, "zip"), tmp_path / "dest", limits)
    assert root.name == "golden-cut-chart"
    assert b"GoldenCutChart" in (root / "index.html").read_bytes()


# --- hostile archives ----------------------------------------------------------------

@pytest.mark.parametrize(("name", "reason"), [
    ("../evil.html", "path traversal"),
    ("site/../../evil.html", "path traversal"),
    ("..\\..\\evil.html", "path traversal"),
    ("/etc/cron.d/evil", "absolute path"),
    ("C:/Windows/evil.html", "absolute path"),
    ("bad\x01name.html", "unsafe member name"),
])
def test_zip_member_names_that_escape_are_rejected(
        tmp_path: pathlib.Path, limits: settings.Input, name: str, reason: str) -> None:
    archive = make_zip(tmp_path / "t.zip", [("index.html", PAGE, None), (name, b"x", None)])
    assert defect(ref(archive, "zip"), tmp_path / "dest", limits).startswith(reason)
    assert not (tmp_path / "evil.html").exists()


@pytest.mark.parametrize("name", ["../evil.html", "/tmp/evil.html", "a/../../evil.html"])
def test_tar_member_names_that_escape_are_rejected(
        tmp_path: pathlib.Path, limits: settings.Input, name: str) -> None:
    archive = make_tar(tmp_path / "t.tar.gz", [tar_member("index.html", PAGE), tar_member(name, b"x")])
    assert defect(ref(archive, "tar.gz"), tmp_path / "dest", limits)
    assert not (tmp_path / "evil.html").exists()


@pytest.mark.parametrize("target", ["/etc/passwd", "../../..", "../outside", "a/../../.."])
def test_symlinks_pointing_out_are_rejected(
        tmp_path: pathlib.Path, limits: settings.Input, target: str) -> None:
    tar = make_tar(tmp_path / "t.tar.gz", [tar_member("index.html", PAGE),
                                            tar_member("link", kind=tarfile.SYMTYPE, linkname=target)])
    assert "symlink points outside the app" in defect(ref(tar, "tar.gz"), tmp_path / "d1", limits)
    zipped = make_zip(tmp_path / "t.zip", [("index.html", PAGE, None), ("link", target.encode(), SYMLINK)])
    assert "symlink points outside the app" in defect(ref(zipped, "zip"), tmp_path / "d2", limits)


def test_chained_links_that_escape_through_another_link_are_rejected(
        tmp_path: pathlib.Path, limits: settings.Input) -> None:
    # Each target is inside when read lexically; "b/top/.." leaves through the link "top".
    archive = make_tar(tmp_path / "t.tar.gz", [
        tar_member("index.html", PAGE), tar_member("a/b", kind=tarfile.DIRTYPE),
        tar_member("a/b/top", kind=tarfile.SYMTYPE, linkname="../.."),
        tar_member("a/esc", kind=tarfile.SYMTYPE, linkname="b/top/.."),
    ])
    assert "symlink points outside the app" in defect(ref(archive, "tar.gz"), tmp_path / "dest", limits)


def test_hard_link_to_a_file_outside_is_rejected(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    for number, target in enumerate(["/etc/passwd", "../../etc/passwd", "not-in-archive"]):
        archive = make_tar(tmp_path / f"t{number}.tar.gz", [
            tar_member("index.html", PAGE),
            tar_member("copy", kind=tarfile.LNKTYPE, linkname=target)])
        assert defect(ref(archive, "tar.gz"), tmp_path / f"d{number}", limits)


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_device_files_are_rejected(tmp_path: pathlib.Path, limits: settings.Input, kind: bytes) -> None:
    archive = make_tar(tmp_path / "t.tar.gz", [tar_member("index.html", PAGE), tar_member("dev", kind=kind)])
    assert defect(ref(archive, "tar.gz"), tmp_path / "dest", limits).startswith("device or special file")
    zipped = make_zip(tmp_path / "t.zip", [("index.html", PAGE, None), ("dev", b"", stat.S_IFCHR | 0o644)])
    assert defect(ref(zipped, "zip"), tmp_path / "d2", limits).startswith("device or special file")


def test_bad_app_fixture_archives(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    folder = FIXTURES / "apps" / "mischief-1b"
    assert defect(ref(folder / "zip-traversal.zip", "zip"), tmp_path / "d1", limits) == (
        "path traversal in archive: '../../evil.sh'")
    assert defect(ref(folder / "tar-symlink-out.tar.gz", "tar.gz"), tmp_path / "d2", limits) == (
        "symlink points outside the app: 'site/passwd' -> '/etc/passwd'")
    assert not (tmp_path / "evil.sh").exists()


# --- caps ----------------------------------------------------------------------------

def test_size_cap_counts_real_bytes(tmp_path: pathlib.Path) -> None:
    small = settings.Input(max_archive_bytes=100_000)
    bomb = make_zip(tmp_path / "bomb.zip", [("index.html", PAGE, None), ("zeros.bin", bytes(1_000_000), None)])
    assert bomb.stat().st_size < 10_000
    assert "beyond 100000 bytes" in defect(ref(bomb, "zip"), tmp_path / "d1", small)
    tar = make_tar(tmp_path / "bomb.tar.gz", [tar_member("zeros.bin", bytes(1_000_000))])
    assert "beyond 100000 bytes" in defect(ref(tar, "tar.gz"), tmp_path / "d2", small)


def test_zip_whose_header_understates_the_size_is_not_trusted(tmp_path: pathlib.Path) -> None:
    small = settings.Input(max_archive_bytes=100_000)
    archive = make_zip(tmp_path / "liar.zip", [("zeros.bin", bytes(1_000_000), None)])
    data = bytearray(archive.read_bytes())
    # Rewrite the uncompressed size in the local header (offset 22) and the central
    # directory entry (offset 24) to claim 10 bytes.
    struct.pack_into("<I", data, 22, 10)
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 10)
    archive.write_bytes(bytes(data))
    with zipfile.ZipFile(archive) as check:
        assert check.infolist()[0].file_size == 10
    assert defect(ref(archive, "zip"), tmp_path / "dest", small)


def test_member_count_cap(tmp_path: pathlib.Path) -> None:
    few = settings.Input(max_archive_members=5)
    members = [(f"f{i}.txt", b"x", None) for i in range(6)]
    archive = make_zip(tmp_path / "many.zip", members)
    assert "more than 5 members" in defect(ref(archive, "zip"), tmp_path / "d1", few)
    tar = make_tar(tmp_path / "many.tar.gz", [tar_member(f"f{i}.txt", b"x") for i in range(6)])
    assert "more than 5 members" in defect(ref(tar, "tar.gz"), tmp_path / "d2", few)
    exact = make_zip(tmp_path / "five.zip", members[:5])
    assert len(files_under(ingesting.materialize(ref(exact, "zip"), tmp_path / "d3", few))) == 5


# --- broken archives -----------------------------------------------------------------

@pytest.mark.parametrize("packaging", ["zip", "tar.gz"])
def test_binary_junk_is_a_corrupt_archive(
        tmp_path: pathlib.Path, limits: settings.Input, packaging: str) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 40)
    assert defect(ref(junk, packaging), tmp_path / "dest", limits).startswith(f"corrupt {packaging[:3]}")


def test_truncated_archives_are_corrupt(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    noise = os.urandom(200_000)
    tar = make_tar(tmp_path / "t.tar.gz", [tar_member("index.html", PAGE), tar_member("big.bin", noise)])
    tar.write_bytes(tar.read_bytes()[: tar.stat().st_size // 2])
    assert defect(ref(tar, "tar.gz"), tmp_path / "d1", limits).startswith("corrupt tar")
    zipped = make_zip(tmp_path / "t.zip", [("index.html", PAGE, None), ("big.bin", noise, None)])
    zipped.write_bytes(zipped.read_bytes()[:-2000])
    assert defect(ref(zipped, "zip"), tmp_path / "d2", limits).startswith("corrupt zip")


def test_archives_without_files_are_empty(tmp_path: pathlib.Path, limits: settings.Input) -> None:
    only_dirs = make_zip(tmp_path / "d.zip", [("site/", b"", None), ("site/js/", b"", None)])
    assert defect(ref(only_dirs, "zip"), tmp_path / "d1", limits) == "archive is empty (no files)"
    with zipfile.ZipFile(tmp_path / "e.zip", "w"):
        pass
    assert defect(ref(tmp_path / "e.zip", "zip"), tmp_path / "d2", limits) == "archive is empty (no files)"
    assert defect(ref(tmp_path / "gone.zip", "zip"), tmp_path / "d3", limits).startswith("app not found")
