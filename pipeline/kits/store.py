"""The store: where evidence and results live. A local folder or S3 (boto3).

Keys are POSIX paths relative to the store's root ("apps/m/t/trace.json"). This kit
knows nothing about what the bytes mean; it must not import stages or contracts.
"""

from __future__ import annotations

import json
import os
import pathlib
import urllib.parse
from typing import Any, Iterable, Iterator, Protocol

import boto3
import botocore.config
import botocore.exceptions

from iwcbench.pipeline.kits import retrying


class Store(Protocol):
    uri: str

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None: ...
    def get_bytes(self, key: str) -> bytes: ...
    def exists(self, key: str) -> bool: ...
    def list(self, prefix: str = "") -> Iterator[str]: ...
    def delete_prefix(self, prefix: str) -> None: ...
    def get_or_none(self, key: str) -> bytes | None: ...


class NotFound(KeyError):
    """The key is not in the store."""


class _Reading:
    """What every store derives from ``get_bytes``."""

    def get_bytes(self, key: str) -> bytes:  # pragma: no cover - each store has its own
        raise NotImplementedError

    def get_or_none(self, key: str) -> bytes | None:
        """The bytes at ``key``, or None when there is none (other trouble still raises)."""
        try:
            return self.get_bytes(key)
        except NotFound:
            return None


def _check_key(key: str) -> str:
    parts = key.split("/")
    if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"bad store key: {key!r}")
    return key


class LocalStore(_Reading):
    """A folder. Writes are atomic (temp file + rename) so readers never see halves."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = pathlib.Path(root).resolve()
        self.uri = self.root.as_uri()

    def path(self, key: str) -> pathlib.Path:
        return self.root / _check_key(key)

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)

    def get_bytes(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise NotFound(key) from None

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def list(self, prefix: str = "") -> Iterator[str]:
        base = self.root / prefix if prefix else self.root
        if not base.exists():
            return
        start = base if base.is_dir() else base.parent
        for p in sorted(start.rglob("*")):
            if p.is_file() and not p.name.startswith("."):
                key = p.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    yield key

    def delete_prefix(self, prefix: str) -> None:
        for key in list(self.list(prefix)):
            self.path(key).unlink(missing_ok=True)


_TRANSIENT = (botocore.exceptions.EndpointConnectionError, botocore.exceptions.ConnectionClosedError,
              botocore.exceptions.ReadTimeoutError)
RETRY = retrying.Policy(attempts=5, initial_wait_s=0.2, max_wait_s=5.0)
_retry = retrying.retry(RETRY, lambda exc: isinstance(exc, _TRANSIENT), what="S3 request")


class S3Store(_Reading):
    """An S3 bucket and prefix: ``s3://bucket/prefix``. The endpoint comes from
    ``endpoint_url`` or ``AWS_ENDPOINT_URL`` (MinIO, moto, Ceph...)."""

    def __init__(self, uri: str, endpoint_url: str | None = None) -> None:
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise ValueError(f"not an s3:// URI: {uri!r}")
        self.uri = uri.rstrip("/")
        self.bucket = parsed.netloc
        self.prefix = parsed.path.strip("/")
        endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            config=botocore.config.Config(
                s3={"addressing_style": "path"},
                retries={"max_attempts": 5, "mode": "standard"},
            ),
        )

    def _full(self, key: str) -> str:
        _check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    @_retry
    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        extra: dict[str, Any] = {"ContentType": content_type} if content_type else {}
        self.client.put_object(Bucket=self.bucket, Key=self._full(key), Body=data, **extra)

    @_retry
    def get_bytes(self, key: str) -> bytes:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._full(key))["Body"].read()
        except botocore.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                raise NotFound(key) from None
            raise

    @_retry
    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._full(key))
            return True
        except botocore.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return False
            raise

    def list(self, prefix: str = "") -> Iterator[str]:
        for key, _size, _etag in self.listing(prefix):
            yield key

    def listing(self, prefix: str = "") -> Iterator[tuple[str, int, str]]:
        """(key, size in bytes, ETag without its quotes) of every object under ``prefix``.
        An object put in one part has its MD5 as ETag (hex); a multipart one does not
        (its ETag holds a ``-``)."""
        full = f"{self.prefix}/{prefix}" if self.prefix else prefix
        strip = len(self.prefix) + 1 if self.prefix else 0
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=full):
            for obj in page.get("Contents", []):
                yield obj["Key"][strip:], int(obj.get("Size", 0)), str(obj.get("ETag", "")).strip('"')

    @_retry
    def put_file(self, key: str, path: str | os.PathLike[str], content_type: str | None = None) -> None:
        """Upload one file in one part (so its ETag is its MD5), streamed from disk."""
        extra: dict[str, Any] = {"ContentType": content_type} if content_type else {}
        with open(path, "rb") as body:
            self.client.put_object(Bucket=self.bucket, Key=self._full(key), Body=body, **extra)

    def delete_keys(self, keys: Iterable[str]) -> None:
        full = [self._full(k) for k in keys]
        for i in range(0, len(full), 1000):
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": [{"Key": k} for k in full[i:i + 1000]]})

    def delete_prefix(self, prefix: str) -> None:
        self.delete_keys(list(self.list(prefix)))


class Prefixed(_Reading):
    """A view of ``store`` under ``prefix``: key ``trace.json`` is ``<prefix>/trace.json``
    in the store (one app's evidence, seen from inside)."""

    def __init__(self, store: Store, prefix: str) -> None:
        self.store = store
        self.prefix = _check_key(prefix.strip("/"))
        self.uri = f"{store.uri.rstrip('/')}/{self.prefix}"

    def _full(self, key: str) -> str:
        return f"{self.prefix}/{_check_key(key)}"

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        self.store.put_bytes(self._full(key), data, content_type)

    def get_bytes(self, key: str) -> bytes:
        try:
            return self.store.get_bytes(self._full(key))
        except NotFound:
            raise NotFound(key) from None

    def exists(self, key: str) -> bool:
        return self.store.exists(self._full(key))

    def list(self, prefix: str = "") -> Iterator[str]:
        strip = len(self.prefix) + 1
        for key in self.store.list(f"{self.prefix}/{prefix}"):
            yield key[strip:]

    def delete_prefix(self, prefix: str) -> None:
        self.store.delete_prefix(f"{self.prefix}/{prefix}")


def open_store(uri: str) -> Store:
    """``s3://bucket/prefix`` → S3Store; a path or ``file://`` URI → LocalStore."""
    if uri.startswith("s3://"):
        return S3Store(uri)
    if uri.startswith("file://"):
        return LocalStore(urllib.parse.urlparse(uri).path)
    return LocalStore(uri)


def put_json(store: Store, key: str, data: Any) -> None:
    store.put_bytes(key, json.dumps(data, indent=1, sort_keys=False).encode(), "application/json")


def get_json(store: Store, key: str) -> Any:
    return json.loads(store.get_bytes(key))


def put_model(store: Store, key: str, model: Any) -> None:
    """Write a pydantic model as JSON (duck-typed: the kit does not import contracts)."""
    store.put_bytes(key, model.model_dump_json(indent=1).encode(), "application/json")


def read_uri(uri: str) -> bytes:
    """The bytes of one object named by a full URI (``s3://bucket/key``) or a path."""
    if uri.startswith("s3://"):
        parent, _, name = uri.rstrip("/").rpartition("/")
        if parent == "s3:/" or not name:
            raise ValueError(f"no object named in {uri!r}")
        return S3Store(parent).get_bytes(name)
    if uri.startswith("file://"):
        uri = urllib.parse.urlparse(uri).path
    return pathlib.Path(uri).read_bytes()
