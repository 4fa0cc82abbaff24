"""Copy the evidence a report page shows into the report folder, so the folder stands
alone even when the evidence lives in S3.

Screenshots become a thumbnail (``THUMB_WIDTH`` px JPEG, cropped to 16:10 from the
top) and a full image (the original PNG, or a JPEG when that is much smaller). DOM
snapshots are copied as ``.txt``: they are the app's own markup and must never open
as a page of the report. Keys from the evidence are checked before use; an unreadable
or missing file is simply absent (the page says so). Paths returned are POSIX paths
relative to the report root. This module must not build HTML.
"""

from __future__ import annotations

import dataclasses
import io
import pathlib
import re
import threading
from typing import Callable

from PIL import Image, UnidentifiedImageError

THUMB_WIDTH = 480  # pixels
THUMB_RATIO = 10 / 16  # height / width of a thumbnail (taller shots are cropped from the top)
FULL_JPEG_QUALITY = 85
JPEG_WORTH_IT = 0.6  # keep the JPEG only when it is below this share of the PNG's size
DOM_MAX_BYTES = 1_000_000  # a longer snapshot is cut, with a marker saying so

Reader = Callable[[str], "bytes | None"]


@dataclasses.dataclass(frozen=True)
class Shot:
    full: str  # relative to the report root
    thumb: str
    width: int
    height: int


def safe_name(text: str) -> str:
    """A file-name component: letters, digits, ``._-``; never hidden or empty."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", text)[:120]
    return name if name and not name.startswith(".") else f"_{name}"


def evidence_key(prefix: str, relative: str | None) -> str | None:
    """The store key of a path the evidence names relative to the app's prefix; None
    when it is absent or tries to leave the app's folder."""
    if not relative:
        return None
    parts = relative.split("/")
    if relative.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\\" in relative:
        return None
    return f"{prefix}/{relative}"


def _stem(relative: str, keep_suffix: bool = False) -> str:
    """The copy's file name: the file's own for the exploration's ``shots/`` and
    ``dom/``; deeper evidence (a UI test case's ``uitests/01/shots/0002.png``) keeps
    its folders in the name, so it cannot overwrite the exploration's."""
    path = pathlib.PurePosixPath(relative)
    name = path.name if keep_suffix else path.stem
    if len(path.parts) > 2:
        name = "-".join((*path.parts[:-2], name))
    return safe_name(name)


class Assets:
    """Copies one run's screenshots and snapshots; each is copied at most once. The
    pages of several apps may be built at once (each app's evidence is its own)."""

    def __init__(self, out_dir: pathlib.Path, read: Reader) -> None:
        self.out_dir = out_dir
        self.read = read
        self._shots: dict[str, Shot | None] = {}
        self._lock = threading.Lock()
        self.bytes_written = 0

    def _write(self, relative: str, data: bytes) -> None:
        target = self.out_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        with self._lock:
            self.bytes_written += len(data)

    def _folder(self, model: str, task_id: str) -> str:
        return f"assets/{safe_name(model)}/{safe_name(task_id)}"

    def shot(self, model: str, task_id: str, prefix: str, relative: str | None) -> Shot | None:
        """The copied screenshot named ``relative`` in the app's evidence."""
        key = evidence_key(prefix, relative)
        if key is None or relative is None:  # (no relative path gives no key)
            return None
        if key not in self._shots:
            self._shots[key] = self._copy_shot(model, task_id, key, _stem(relative))
        return self._shots[key]

    def _copy_shot(self, model: str, task_id: str, key: str, stem: str) -> Shot | None:
        data = self.read(key)
        if not data:
            return None
        try:
            with Image.open(io.BytesIO(data)) as img:
                img.load()
                rgb = img.convert("RGB")
        except (UnidentifiedImageError, OSError, ValueError):
            return None
        folder = self._folder(model, task_id)
        full = f"{folder}/shots/{stem}.png"
        encoded = io.BytesIO()
        rgb.save(encoded, "JPEG", quality=FULL_JPEG_QUALITY, optimize=True)
        if len(encoded.getvalue()) < JPEG_WORTH_IT * len(data):
            full = f"{folder}/shots/{stem}.jpg"
            self._write(full, encoded.getvalue())
        else:
            self._write(full, data)
        # (cropped first, so that only what the thumbnail shows is resampled; the
        # reducing gap shrinks by whole factors first, indistinguishable from a fair
        # resampling at 3 and several times faster on a full-page shot)
        thumb = rgb
        tall = round(thumb.width * THUMB_RATIO)
        if thumb.height > tall:
            thumb = thumb.crop((0, 0, thumb.width, tall))
        if thumb.width > THUMB_WIDTH:
            thumb = thumb.resize((THUMB_WIDTH, max(1, round(thumb.height * THUMB_WIDTH / thumb.width))),
                                 Image.Resampling.LANCZOS, reducing_gap=3.0)
        small = io.BytesIO()
        thumb.save(small, "JPEG", quality=80, optimize=True)
        relative_thumb = f"{folder}/thumbs/{stem}.jpg"
        self._write(relative_thumb, small.getvalue())
        return Shot(full=full, thumb=relative_thumb, width=rgb.width, height=rgb.height)

    def dom(self, model: str, task_id: str, prefix: str, relative: str | None) -> str | None:
        """The copied DOM snapshot (as text) named ``relative`` in the app's evidence."""
        key = evidence_key(prefix, relative)
        if key is None or relative is None:  # (no relative path gives no key)
            return None
        data = self.read(key)
        if data is None:
            return None
        if len(data) > DOM_MAX_BYTES:
            data = data[:DOM_MAX_BYTES] + f"\n\n[iwc-bench report: cut at {DOM_MAX_BYTES} of {len(data)} bytes]\n".encode()
        name = _stem(relative, keep_suffix=True)
        relative_copy = f"{self._folder(model, task_id)}/dom/{name}.txt"
        self._write(relative_copy, data)
        return relative_copy
