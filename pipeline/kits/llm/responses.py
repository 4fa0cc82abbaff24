"""The LLM response cache: replies on disk, keyed by the hash of the call.

A key covers the provider and endpoint, the model, the prompt, the tools and every
parameter of the request as the caller made it — before its prompt-cache packaging (kits/llm/caching), so a reply stays
found whether or not the request carried ``cache_control`` — plus the sample index the
caller named. Files are written atomically (several worker processes share a folder).
Beside the replies lives the fence secret callers derive unguessable but reproducible
prompt fences from. It must not decide what is cacheable (kits/llm does).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pathlib
import threading
import time
from typing import Any, Mapping

log = logging.getLogger(__name__)

VERSION = "1"  # bump when the cached reply layout changes


class DamagedSecret(RuntimeError):
    """The fence secret file exists but cannot be read back."""


class ResponseCache:
    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = pathlib.Path(folder)

    @staticmethod
    def key(params: Mapping[str, Any], sample: int | None, endpoint: str = "") -> str:
        """``endpoint``: the provider and base URL that answer (kits/llm/providers)."""
        blob = json.dumps({"v": VERSION, "params": params, "sample": sample, "endpoint": endpoint},
                          sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> pathlib.Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:
            log.warning("ignoring a damaged cache entry %s", path)
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, data: Mapping[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
        os.replace(tmp, path)

    def secret(self) -> bytes:
        """A random secret (created once, mode 0600)."""
        path = self.folder / "fence-secret"
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            for _ in range(50):  # another worker may be writing it right now
                secret = path.read_bytes()
                if len(secret) == 32:
                    return secret
                time.sleep(0.01)
            raise DamagedSecret(f"{path} is damaged; delete it (cached judge replies will be redone)")
        with os.fdopen(fd, "wb") as fh:
            secret = os.urandom(32)
            fh.write(secret)
        return secret
