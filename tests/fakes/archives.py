"""Builders for input tests: task files and hand-made archives (zip, tar.gz) with any
member names, modes and link targets, including hostile ones."""

from __future__ import annotations

import io
import json
import pathlib
import stat
import tarfile
import zipfile

# The shared datasets sit beside the project checkout (../shared), or beside the folder
# that holds it when the checkout is a git worktree (../../shared).
_CHECKOUT = pathlib.Path(__file__).resolve().parents[2]
DATASETS = next((d / "shared" / "datasets" for d in _CHECKOUT.parents if (d / "shared" / "datasets").is_dir()),
                _CHECKOUT.parent / "shared" / "datasets")
FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bad-apps"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def write_lines(path: pathlib.Path, records: list) -> pathlib.Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def make_zip(path: pathlib.Path, members: list[tuple[str, bytes, int | None]]) -> pathlib.Path:
    """members: (name, data, unix mode or None)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


def tar_member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE,
               linkname: str = "", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.mode = mode
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def make_tar(path: pathlib.Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> pathlib.Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


SYMLINK = stat.S_IFLNK | 0o777
REGULAR = stat.S_IFREG | 0o644
