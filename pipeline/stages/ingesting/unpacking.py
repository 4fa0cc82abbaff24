"""Putting one submitted app into a working folder: copy a folder, extract an archive.

Generated apps are untrusted. Extraction therefore never uses ``extractall``: each
member is checked (no ``..``, no absolute or drive paths, no control characters, no
device files or FIFOs), regular files are written by streaming their bytes while
counting them (headers can lie), links are made only after every file is written (so
no write can pass through one) and each is then resolved by the kernel to prove it
stays inside. The member count and the extracted size are capped
(``settings.Input``). A folder is copied without following links that leave it, and
under the same caps: its bytes and files are counted from the file system's metadata
before anything is copied (a sparse file is refused by its size, never read).

An app's own problem (missing, empty, corrupt, hostile, too big) is an ``AppDefect``
with a reason a user can act on; the caller records it and moves on. Trouble of the
machine itself (disk full, permission denied on ``dest``) is not an app defect and is
raised as the ``OSError`` it is. This module must not look inside the app's files.
"""

from __future__ import annotations

import errno
import os
import pathlib
import re
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.contracts import evidence

_CHUNK = 64 * 1024
_MAX_LINK_TARGET = 4096
_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
_DRIVE = re.compile(r"^[A-Za-z]:")
# Errors that say the machine is in trouble, not the app: never turned into a defect.
_MACHINE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS,
                   errno.EMFILE, errno.ENFILE, errno.ENOMEM}


class AppDefect(Exception):
    """The app cannot be evaluated; ``reason`` says why in a user's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def materialize(app: evidence.AppRef, dest: pathlib.Path, limits: settings.Input) -> pathlib.Path:
    """Copy or extract ``app`` into ``dest`` (created; must be empty) and return the
    app root: ``dest`` itself, or for an archive holding exactly one top-level folder,
    that folder. Raises ``AppDefect`` for the app's own problems; ``dest`` is then
    left empty."""
    source = pathlib.Path(app.source)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ValueError(f"materialize needs an empty destination: {dest}")
    try:
        if not source.exists():
            raise AppDefect(f"app not found: {source}")
        if app.packaging == "folder":
            _copy_folder(source, dest, limits)
            return dest
        writer = _Writer(dest, limits)
        if app.packaging == "zip":
            _extract_zip(source, writer)
        else:
            _extract_tar(source, writer)
        writer.finish()
        return _app_root(dest)
    except AppDefect:
        _empty(dest)
        raise


def _empty(folder: pathlib.Path) -> None:
    """Remove everything in ``folder`` without following links (rmtree never does)."""
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _app_root(dest: pathlib.Path) -> pathlib.Path:
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return dest


def _is_inside(path: pathlib.Path, root: pathlib.Path) -> bool:
    return path == root or root in path.parents


# --- folders -----------------------------------------------------------------------

def _copy_folder(source: pathlib.Path, dest: pathlib.Path, limits: settings.Input) -> None:
    """Mirror a folder. Links resolving inside it are kept as relative links; links
    leaving it, dangling links, sockets and devices are not copied."""
    if not source.is_dir():
        raise AppDefect(f"app is not a folder: {source}")
    root = source.resolve()
    _check_folder_caps(root, limits)
    files = 0
    copied = 0
    for current, dirs, names in os.walk(root):  # never descends into linked folders
        here = pathlib.Path(current)
        target_dir = dest / here.relative_to(root)
        target_dir.mkdir(exist_ok=True)
        for name in [*dirs, *names]:
            path = here / name
            if path.is_symlink():
                try:
                    resolved = path.resolve()
                except (RuntimeError, OSError):  # a loop of links: not copied
                    continue
                if _is_inside(resolved, root) and resolved.exists():
                    os.symlink(os.path.relpath(resolved, here), target_dir / name)
                continue
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode):
                copied = _copy_file(path, target_dir / name, copied, limits.max_archive_bytes)
                os.chmod(target_dir / name, 0o755 if mode & 0o111 else 0o644)
                files += 1
    if files == 0:
        raise AppDefect("app folder is empty (no files)")


def _check_folder_caps(root: pathlib.Path, limits: settings.Input) -> None:
    """Refuse a folder over the caps from ``lstat`` alone: the apparent size counts
    (a copy, and the server, would hand out every byte of a sparse file's holes)."""
    count = total = 0
    largest: tuple[int, int, str] = (0, 0, "")  # size, bytes on disk, name
    for current, _dirs, names in os.walk(root):
        for name in names:
            info = os.lstat(os.path.join(current, name))
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                continue
            count += 1
            if count > limits.max_archive_members:
                raise AppDefect(f"app folder has more than {limits.max_archive_members} files (the cap)")
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
                if info.st_size > largest[0]:
                    rel = os.path.relpath(os.path.join(current, name), root)
                    largest = (info.st_size, info.st_blocks * 512, rel)
    if total > limits.max_archive_bytes:
        size, on_disk, name = largest
        sparse = f" (a sparse file: {on_disk} bytes on disk)" if on_disk < size // 2 else ""
        raise AppDefect(f"app folder holds more than {limits.max_archive_bytes} bytes (the cap): "
                        f"{total} bytes; the largest file, {name}, is {size} bytes{sparse}")


def _copy_file(source: pathlib.Path, target: pathlib.Path, copied: int, cap: int) -> int:
    """Copy one file while counting, so a file that grows after the check still stops
    at the cap. Returns the bytes copied so far."""
    with source.open("rb") as src, target.open("wb") as out:
        while chunk := src.read(_CHUNK):
            copied += len(chunk)
            if copied > cap:
                raise AppDefect(f"app folder holds more than {cap} bytes (the cap)")
            out.write(chunk)
    return copied


# --- archives ----------------------------------------------------------------------

class _Writer:
    """Writes checked members under ``dest`` and keeps the caps."""

    def __init__(self, dest: pathlib.Path, limits: settings.Input) -> None:
        self.dest = dest.resolve()
        self.limits = limits
        self.members = 0
        self.bytes = 0
        self.files = 0
        self.links: list[tuple[pathlib.Path, str]] = []

    def count(self) -> None:
        self.members += 1
        if self.members > self.limits.max_archive_members:
            raise AppDefect(
                f"archive has more than {self.limits.max_archive_members} members (the cap)")

    def target(self, name: str) -> pathlib.Path | None:
        """Where member ``name`` goes; None for the root itself and macOS metadata."""
        if _UNSAFE_CHARS.search(name):
            raise AppDefect(f"unsafe member name (control or undecodable characters): {name!r}")
        clean = name.replace("\\", "/")
        if clean.startswith("/") or _DRIVE.match(clean):
            raise AppDefect(f"absolute path in archive: {name!r}")
        parts = [p for p in clean.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise AppDefect(f"path traversal in archive: {name!r}")
        if not parts or parts[0] == "__MACOSX":
            return None
        return self.dest.joinpath(*parts)

    def directory(self, path: pathlib.Path) -> None:
        if path.exists() and not path.is_dir():
            raise AppDefect(f"archive member is both a file and a folder: {path.name}")
        path.mkdir(parents=True, exist_ok=True)

    def file(self, path: pathlib.Path, stream: IO[bytes], executable: bool) -> None:
        self.directory(path.parent)
        if path.is_dir():
            raise AppDefect(f"archive member is both a file and a folder: {path.name}")
        with path.open("wb") as out:
            while chunk := stream.read(_CHUNK):
                self.bytes += len(chunk)
                if self.bytes > self.limits.max_archive_bytes:
                    raise AppDefect(
                        f"archive expands beyond {self.limits.max_archive_bytes} bytes (the cap)")
                out.write(chunk)
        os.chmod(path, 0o755 if executable else 0o644)
        self.files += 1

    def symlink(self, path: pathlib.Path, link_target: str, name: str) -> None:
        if not link_target or _UNSAFE_CHARS.search(link_target):
            raise AppDefect(f"unusable symlink in archive: {name!r}")
        clean = link_target.replace("\\", "/")
        if clean.startswith("/") or _DRIVE.match(clean):
            raise AppDefect(f"symlink points outside the app: {name!r} -> {link_target!r}")
        where = pathlib.Path(os.path.normpath(path.parent / clean))
        if not _is_inside(where, self.dest):
            raise AppDefect(f"symlink points outside the app: {name!r} -> {link_target!r}")
        self.links.append((path, clean))

    def finish(self) -> None:
        """Make the links (after every file), prove each resolves inside, check non-empty."""
        for path, link_target in self.links:
            self.directory(path.parent)
            if path.exists() or path.is_symlink():
                raise AppDefect(f"archive member is both a link and a file: {path.name}")
            os.symlink(link_target, path)
        for path, link_target in self.links:
            # Lexically inside is not enough: "a/../x" through a link to ".." escapes.
            try:
                resolved = path.resolve()
            except (RuntimeError, OSError):  # a loop of links
                raise AppDefect(f"symlink loop in archive: {path.name}") from None
            if not _is_inside(resolved, self.dest):
                raise AppDefect(f"symlink points outside the app: {path.name} -> {link_target!r}")
        if self.files == 0:
            raise AppDefect("archive is empty (no files)")


def _defect_for(error: Exception, archive: str) -> AppDefect:
    if isinstance(error, OSError) and error.errno in _MACHINE_ERRNOS:
        raise error
    detail = str(error) or type(error).__name__
    return AppDefect(f"corrupt {archive} archive: {detail}")


def _extract_zip(source: pathlib.Path, writer: _Writer) -> None:
    try:
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                writer.count()
                _zip_member(archive, info, writer)
    except AppDefect:
        raise
    except RuntimeError as error:  # zipfile's way of saying "encrypted"
        raise AppDefect(f"zip archive cannot be read: {error}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError, UnicodeDecodeError) as error:
        raise _defect_for(error, "zip") from None


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, writer: _Writer) -> None:
    path = writer.target(info.filename)
    if path is None:
        return
    # The Unix mode, only when a Unix archiver recorded one (DOS/Windows zips keep
    # other flags there). File-type bits of 0 mean a plain file.
    mode = info.external_attr >> 16 if info.create_system == 3 else 0
    if stat.S_ISLNK(mode):
        with archive.open(info) as stream:
            link_target = stream.read(_MAX_LINK_TARGET + 1)
        if len(link_target) > _MAX_LINK_TARGET:
            raise AppDefect(f"unusable symlink in archive: {info.filename!r}")
        writer.symlink(path, link_target.decode("utf-8", "replace"), info.filename)
    elif info.is_dir() or stat.S_ISDIR(mode):
        writer.directory(path)
    elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):
        raise AppDefect(f"device or special file in archive: {info.filename!r}")
    else:
        with archive.open(info) as stream:
            writer.file(path, stream, executable=bool(mode & 0o111))


def _extract_tar(source: pathlib.Path, writer: _Writer) -> None:
    try:
        with tarfile.open(source, mode="r:*") as archive:
            for member in _members(archive):
                writer.count()
                _tar_member(archive, member, writer)
    except AppDefect:
        raise
    except (tarfile.TarError, zlib.error, EOFError, OSError, ValueError,
            UnicodeDecodeError) as error:
        raise _defect_for(error, "tar") from None


def _members(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """Members one header at a time, so the count cap stops a huge archive early."""
    while (member := archive.next()) is not None:
        yield member


def _tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, writer: _Writer) -> None:
    path = writer.target(member.name)
    if path is None:
        return
    if member.isdir():
        writer.directory(path)
    elif member.isreg():
        stream = archive.extractfile(member)
        if stream is None:
            raise AppDefect(f"unreadable member in archive: {member.name!r}")
        with stream:
            writer.file(path, stream, executable=bool(member.mode & 0o111))
    elif member.issym():
        writer.symlink(path, member.linkname, member.name)
    elif member.islnk():
        # A hard link names an earlier member; copy its bytes (they count again).
        original = writer.target(member.linkname)
        if original is None or not original.is_file() or original.is_symlink():
            raise AppDefect(
                f"hard link to a file outside the archive: {member.name!r} -> {member.linkname!r}")
        with original.open("rb") as stream:
            writer.file(path, stream, executable=bool(member.mode & 0o111))
    else:
        raise AppDefect(f"device or special file in archive: {member.name!r}")
