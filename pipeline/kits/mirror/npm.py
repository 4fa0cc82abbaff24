"""npm packages on disk: registry metadata, verified tarballs, safe extraction, a cache.

``Packages(cache_dir, registry, fetch)`` answers "which version of P does range R
mean, and where are its files?". A package version is downloaded once (integrity
checked against ``dist.integrity`` / ``dist.shasum``), unpacked without trusting the
archive (no absolute paths, no ``..``, no links or devices, size and member caps) into
``cache_dir/<name>@<version>/`` by an atomic rename, so concurrent workers and later
runs share it and a cached version needs no network at all. With ``fetch=False`` only
the cache is used. This module talks to the registry and the disk; it knows nothing
about CDN URLs (kits/cdn.py) or browsers.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import pathlib
import shutil
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import tenacity

from iwcbench.pipeline.kits import retrying
from iwcbench.pipeline.kits.mirror import semver

DEFAULT_REGISTRY = "https://registry.npmjs.org"
_ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
_META_DIR = "_meta"
_TMP_DIR = ".tmp"


class PackageError(Exception):
    """The mirror cannot provide this package (the reason is the message)."""


class NotFound(PackageError):
    """The registry (or the cache, offline) has no such package or version."""


class _Transient(Exception):
    """A failure worth retrying: timeout, connection reset, 5xx, 429."""


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout_s: float = 30.0  # per HTTP request
    attempts: int = 3  # per HTTP request, transient errors only
    retry_wait_s: float = 0.5  # first wait between attempts; doubles, at most 4 s
    metadata_ttl_s: float = 24 * 3600.0  # cached registry metadata is reused this long
    max_tarball_bytes: int = 120_000_000  # compressed download cap
    max_unpacked_bytes: int = 600_000_000  # extracted size cap
    max_members: int = 60_000  # files per package


@dataclasses.dataclass(frozen=True)
class Extracted:
    files: int
    bytes: int
    skipped: tuple[str, ...]  # member names refused (links, devices, escaping paths)


def safe_name(package: str) -> str:
    """A folder name for a package: ``@scope/name`` → ``@scope+name`` (``+`` is not
    allowed in npm names, so this cannot collide)."""
    if not package or package.startswith(".") or "\\" in package or ".." in package.split("/"):
        raise NotFound(f"not an npm package name: {package!r}")
    return package.replace("/", "+")


def extract(tarball: pathlib.Path, dest: pathlib.Path, limits: Limits = Limits()) -> Extracted:
    """Unpack an npm tarball into ``dest`` (created), dropping the first path
    component as npm does. Refuses what could escape ``dest``; raises PackageError
    past the caps or on a corrupt archive."""
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    files = total = 0
    skipped: list[str] = []
    try:
        with tarfile.open(tarball, "r:*") as tar:
            for member in tar:
                name = member.name.replace("\\", "/")
                parts = [p for p in name.split("/")[1:] if p not in ("", ".")]
                if name.startswith("/") or ".." in name.split("/") or not parts:
                    if parts or name.startswith("/") or ".." in name.split("/"):
                        skipped.append(member.name)
                    continue
                target = root.joinpath(*parts)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    skipped.append(member.name)  # symlink, hard link, device, fifo
                    continue
                files += 1
                total += member.size
                if files > limits.max_members:
                    raise PackageError(f"more than {limits.max_members} files in the package")
                if total > limits.max_unpacked_bytes:
                    raise PackageError(f"package unpacks to more than {limits.max_unpacked_bytes} bytes")
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.parent.resolve().is_relative_to(root):
                    skipped.append(member.name)  # a folder from an earlier member that escapes
                    continue
                source = tar.extractfile(member)
                if source is None:
                    skipped.append(member.name)
                    continue
                with source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
                os.chmod(target, 0o644)
    except (tarfile.TarError, EOFError, OSError) as error:
        raise PackageError(f"the package archive is unreadable: {error}") from error
    return Extracted(files=files, bytes=total, skipped=tuple(skipped))


def _check_integrity(path: pathlib.Path, dist: dict[str, Any]) -> None:
    """Compare the file with dist.integrity (sha512 SRI) or dist.shasum (sha1)."""
    data_hash = {"sha512": hashlib.sha512(), "sha1": hashlib.sha1()}
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            for digest in data_hash.values():
                digest.update(chunk)
    expected = [e for e in str(dist.get("integrity") or "").split() if e.startswith("sha512-")]
    if expected:
        actual = "sha512-" + base64.b64encode(data_hash["sha512"].digest()).decode()
        if actual not in expected:
            raise PackageError("the tarball does not match its sha512 integrity")
        return
    shasum = str(dist.get("shasum") or "").lower()
    if shasum:
        if data_hash["sha1"].hexdigest() != shasum:
            raise PackageError("the tarball does not match its sha1 shasum")
        return
    raise PackageError("the registry gave no integrity for the tarball")


class Packages:
    """Versions and files of npm packages, from ``cache_dir`` first."""

    def __init__(self, cache_dir: pathlib.Path, registry: str = DEFAULT_REGISTRY,
                 fetch: bool = True, limits: Limits = Limits()) -> None:
        self.cache_dir = pathlib.Path(cache_dir)
        self.registry = registry.rstrip("/")
        self.fetch = fetch
        self.limits = limits
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._metadata: dict[str, dict[str, Any]] = {}
        self._chosen: dict[tuple[str, str], str] = {}
        self._failed: dict[tuple[str, str], PackageError] = {}  # for this object's life
        self.network_requests = 0  # registry + tarball requests made by this object

    # ---- public --------------------------------------------------------------
    def folder(self, package: str, version: str) -> pathlib.Path:
        return self.cache_dir / f"{safe_name(package)}@{version}"

    def get(self, package: str, wanted: str) -> tuple[str, pathlib.Path]:
        """The version ``wanted`` (a range, exact version, dist-tag or "") resolves to,
        and the folder holding that version's files. Raises PackageError/NotFound."""
        exact = semver.parse(wanted)
        if exact is not None and self.folder(package, wanted.strip().lstrip("v=")).is_dir():
            pinned = wanted.strip().lstrip("v=")
            return pinned, self.folder(package, pinned)
        with self._key_lock(f"{package}\0{wanted}"):
            if (package, wanted) in self._failed:
                raise self._failed[(package, wanted)]  # an app reloading a page asks again and again
            version = self._chosen.get((package, wanted))
            metadata = None
            if version is None:
                try:
                    metadata = self._meta(package)
                    version = self._choose(package, wanted, metadata)
                except PackageError as error:
                    self._failed[(package, wanted)] = error
                    raise
                self._chosen[(package, wanted)] = version
        folder = self.folder(package, version)
        if folder.is_dir():
            return version, folder
        if not self.fetch:
            raise NotFound(f"{package}@{version} is not in the mirror cache and fetching is off")
        with self._key_lock(f"{package}@{version}"):
            if not folder.is_dir():
                metadata = metadata or self._meta(package)
                dist = ((metadata or {}).get("versions", {}).get(version) or {}).get("dist") or {}
                self._download(package, version, dist)
        return version, folder

    def cached_versions(self, package: str) -> list[str]:
        prefix = safe_name(package) + "@"
        if not self.cache_dir.is_dir():
            return []
        return [p.name[len(prefix):] for p in self.cache_dir.iterdir()
                if p.name.startswith(prefix) and p.is_dir()]

    # ---- versions ------------------------------------------------------------
    def _key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def _choose(self, package: str, wanted: str, metadata: dict[str, Any] | None) -> str:
        if metadata is not None:
            version = semver.pick(wanted, metadata.get("versions", {}).keys(),
                                  metadata.get("dist-tags", {}))
            if version is None:
                raise NotFound(f"no version of {package} matches {wanted!r}")
            return version
        # No metadata (offline): the highest cached version in the range.
        version = semver.pick(wanted, self.cached_versions(package), {})
        if version is None:
            raise NotFound(f"{package}@{wanted or 'latest'} is not in the mirror cache"
                           + ("" if self.fetch else " and fetching is off"))
        return version

    def _meta_path(self, package: str) -> pathlib.Path:
        return self.cache_dir / _META_DIR / f"{safe_name(package)}.json"

    def _meta(self, package: str) -> dict[str, Any] | None:
        """Registry metadata: memory, then a fresh disk copy, then the registry,
        then a stale disk copy. None when there is none to be had."""
        if package in self._metadata:
            return self._metadata[package]
        path = self._meta_path(package)
        stale = None
        if path.is_file():
            try:
                stale = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stale = None
            if stale is not None and (not self.fetch or
                                      time.time() - path.stat().st_mtime < self.limits.metadata_ttl_s):
                self._metadata[package] = stale
                return stale
        if not self.fetch:
            return None
        try:
            metadata = self._fetch_metadata(package)
        except NotFound:
            raise
        except PackageError:
            if stale is None:
                raise
            metadata = stale  # the registry is down: yesterday's answer beats none
        else:
            _write_atomic(path, json.dumps(metadata).encode(), self.cache_dir / _TMP_DIR)
        self._metadata[package] = metadata
        return metadata

    # ---- network -------------------------------------------------------------
    def _open(self, url: str, accept: str | None = None) -> Any:  # urlopen's response
        self.network_requests += 1
        headers = {"User-Agent": "iwc-bench-cdn-mirror"}
        if accept:
            headers["Accept"] = accept
        try:
            return urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                          timeout=self.limits.timeout_s)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                raise NotFound(f"the registry has no {url}") from None
            if error.code >= 500 or error.code == 429:
                raise _Transient(f"HTTP {error.code} from {url}") from None
            raise PackageError(f"HTTP {error.code} from {url}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise _Transient(f"{url}: {error}") from None

    def _retrying(self) -> tenacity.Retrying:
        policy = retrying.Policy(attempts=self.limits.attempts, initial_wait_s=self.limits.retry_wait_s,
                                 max_wait_s=4.0)
        return retrying.retrying(policy, lambda exc: isinstance(exc, _Transient), what="npm registry request")

    def _fetch_metadata(self, package: str) -> dict[str, Any]:
        url = f"{self.registry}/{urllib.parse.quote(package, safe='@')}"

        def once() -> dict[str, Any]:
            with self._open(url, _ACCEPT) as response:
                try:
                    return json.loads(response.read())
                except (OSError, ValueError) as error:
                    raise _Transient(f"unreadable metadata for {package}: {error}") from None

        try:
            data = self._retrying()(once)
        except _Transient as error:
            raise PackageError(f"the registry did not answer for {package}: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("versions"), dict):
            raise PackageError(f"the registry's metadata for {package} has no versions")
        # Keep what resolving needs; full documents of big packages run to megabytes.
        versions = {v: {"dist": (d or {}).get("dist", {})} for v, d in data["versions"].items()}
        return {"name": package, "dist-tags": data.get("dist-tags", {}), "versions": versions}

    def _download(self, package: str, version: str, dist: dict[str, Any]) -> None:
        url = dist.get("tarball")
        if not url:
            raise PackageError(f"the registry gave no tarball for {package}@{version}")
        tmp_root = self.cache_dir / _TMP_DIR
        tmp_root.mkdir(parents=True, exist_ok=True)
        work = pathlib.Path(tempfile.mkdtemp(prefix=f"{safe_name(package)}@{version}.", dir=tmp_root))
        try:
            archive = work / "package.tgz"

            def once() -> None:
                with self._open(url) as response, open(archive, "wb") as out:
                    size = 0
                    try:
                        for chunk in iter(lambda: response.read(1 << 20), b""):
                            size += len(chunk)
                            if size > self.limits.max_tarball_bytes:
                                raise PackageError(
                                    f"{package}@{version} is larger than {self.limits.max_tarball_bytes} bytes")
                            out.write(chunk)
                    except (OSError, ValueError) as error:  # reset or truncated mid-body
                        raise _Transient(f"download of {package}@{version} broke off: {error}") from None

            try:
                self._retrying()(once)
            except _Transient as error:
                raise PackageError(f"could not download {package}@{version}: {error}") from None
            _check_integrity(archive, dist)
            unpacked = work / "package"
            extract(archive, unpacked, self.limits)
            try:
                os.rename(unpacked, self.folder(package, version))
            except OSError:
                if not self.folder(package, version).is_dir():
                    raise
                # Another worker finished the same package first: theirs is identical.
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _write_atomic(path: pathlib.Path, data: bytes, tmp_dir: pathlib.Path) -> None:
    tmp_dir.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=tmp_dir)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(name, path)
    except BaseException:
        pathlib.Path(name).unlink(missing_ok=True)
        raise
