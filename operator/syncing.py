"""Copying between a local folder and an s3:// prefix, object by object: a run's inputs
up to the store (``iwc submit``), its results down again (``iwc fetch``). An object
already there byte for byte (the same size and MD5, which S3 gives as the ETag of an
object put in one part) is not sent again.

It copies what it is told to; it must not decide where a run's files go (submitting
and fetching do) or touch the API server.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib

from iwcbench.pipeline.kits import store as store_mod

_CHUNK = 1 << 20


@dataclasses.dataclass
class Tally:
    """What one copy did: files written, files already the same, bytes written, stale
    objects removed."""

    sent: int = 0
    kept: int = 0
    bytes: int = 0
    removed: int = 0

    def add(self, other: "Tally") -> "Tally":
        return Tally(self.sent + other.sent, self.kept + other.kept, self.bytes + other.bytes,
                     self.removed + other.removed)

    def describe(self, verb: str = "uploaded") -> str:
        size = f"{self.bytes / 1e6:.1f} MB" if self.bytes >= 100_000 else f"{self.bytes} bytes"
        text = f"{verb} {self.sent} file{'' if self.sent == 1 else 's'} ({size}), {self.kept} already there"
        return text + (f", {self.removed} stale removed" if self.removed else "")


def md5(path: pathlib.Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def same(path: pathlib.Path, size: int, etag: str) -> bool:
    """Does the local file hold the object's bytes? (A multipart ETag is no MD5: unknown, so not the same.)"""
    try:
        if not path.is_file() or path.stat().st_size != size:
            return False
    except OSError:
        return False
    return "-" not in etag and md5(path) == etag


def local_files(root: pathlib.Path, skip_hidden_depth: int = 0) -> dict[str, pathlib.Path]:
    """Every file under ``root`` by its POSIX path relative to it. A link is followed
    only to a file inside ``root`` (as the input stage copies a folder); names starting
    with ``.`` are left out in the first ``skip_hidden_depth`` levels (the input stage
    ignores them among models and apps)."""
    top = root.resolve()
    found: dict[str, pathlib.Path] = {}
    for current, dirs, names in os.walk(top):
        here = pathlib.Path(current)
        depth = len(here.relative_to(top).parts)
        if depth < skip_hidden_depth:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            names = [n for n in names if not n.startswith(".")]
        for name in names:
            path = here / name
            if path.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if top not in target.parents or not target.is_file():
                    continue
            elif not path.is_file():
                continue
            found[path.relative_to(top).as_posix()] = path
    return found


def upload_tree(root: pathlib.Path, s3: store_mod.S3Store, prefix: str, skip_hidden_depth: int = 0) -> Tally:
    """Make ``prefix/`` in ``s3`` hold exactly the files of ``root``: send what differs,
    remove objects the folder no longer has."""
    remote = {key: (size, etag) for key, size, etag in s3.listing(f"{prefix}/")}
    tally = Tally()
    wanted = set()
    for relative, path in sorted(local_files(root, skip_hidden_depth).items()):
        key = f"{prefix}/{relative}"
        wanted.add(key)
        tally = tally.add(upload_file(path, s3, key, remote.get(key)))
    stale = sorted(set(remote) - wanted)
    if stale:
        s3.delete_keys(stale)
    return dataclasses.replace(tally, removed=len(stale))


def upload_file(path: pathlib.Path, s3: store_mod.S3Store, key: str,
                remote: tuple[int, str] | None = None) -> Tally:
    """Send one file unless ``remote`` (its object's size and ETag) says it is there."""
    if remote is not None and same(path, *remote):
        return Tally(kept=1)
    s3.put_file(key, path)
    return Tally(sent=1, bytes=path.stat().st_size)


def remote_of(s3: store_mod.S3Store, key: str) -> tuple[int, str] | None:
    """The size and ETag of one object, or None when there is none."""
    for found, size, etag in s3.listing(key):
        if found == key:
            return size, etag
    return None


def download_tree(s3: store_mod.S3Store, prefix: str, into: pathlib.Path) -> Tally:
    """Copy every object under ``prefix/`` into the folder ``into`` (same relative
    paths), skipping files already the same. A key that would leave the folder is
    refused (ValueError)."""
    tally = Tally()
    for key, size, etag in s3.listing(f"{prefix}/"):
        relative = key[len(prefix) + 1:]
        parts = relative.split("/")
        if not relative or any(p in ("", ".", "..") for p in parts) or "\\" in relative:
            raise ValueError(f"refusing to write {key!r} outside {into}")
        target = into.joinpath(*parts)
        if same(target, size, etag):
            tally = tally.add(Tally(kept=1))
            continue
        store_mod.LocalStore(into).put_bytes(relative, s3.get_bytes(key))  # atomic: temp file + rename
        tally = tally.add(Tally(sent=1, bytes=size))
    return tally

