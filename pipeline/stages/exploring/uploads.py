"""Files the explorer gives a file input: small, valid files of the kinds apps read —
a picture, a table, a backup to import, a note, a document — chosen by what the
input accepts (its ``accept`` attribute), most likely first. Made here, in memory: no
file of the user's is ever read. Pure: names in, bytes out.
"""

from __future__ import annotations

import json
import struct
import zlib


def _png(width: int = 8, height: int = 8) -> bytes:
    """An opaque orange square, a valid PNG any image decoder reads."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xff\x88\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


_ITEMS = [{"id": 1, "title": "Imported task", "name": "Imported task", "text": "Imported task", "completed": False,
           "done": False, "amount": 12.5, "date": "2024-06-01"},
          {"id": 2, "title": "Second item", "name": "Second item", "text": "Second item", "completed": True,
           "done": True, "amount": 40, "date": "2024-06-02"}]
_PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
        b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")

# name -> (media type, content), in the order tried when the input says nothing
FILES: dict[str, tuple[str, bytes]] = {
    "photo.png": ("image/png", _png()),
    "items.json": ("application/json", json.dumps(_ITEMS, indent=1).encode()),
    "backup.json": ("application/json", json.dumps({"version": 1, "items": _ITEMS, "data": _ITEMS}).encode()),
    "table.csv": ("text/csv", b"name,amount,date\nCoffee,3.5,2024-06-01\nRent,1200,2024-06-02\n"),
    "notes.txt": ("text/plain", b"A short note.\nSecond line.\n"),
    "document.pdf": ("application/pdf", _PDF),
}


def _accepted(name: str, token: str) -> bool:
    media, _ = FILES[name]
    token = token.strip().lower()
    if token.startswith("."):
        return name.endswith(token) or (token in (".jpg", ".jpeg", ".gif", ".webp", ".svg") and media == "image/png")
    if token.endswith("/*"):
        return media.startswith(token[:-1])
    return media == token


def names_for(accept: str | None) -> list[str]:
    """The files to offer an input with this ``accept``, those it accepts first (an
    input that accepts images only gets the picture; with no accept, every file)."""
    tokens = [t for t in (accept or "").split(",") if t.strip()]
    if not tokens:
        return list(FILES)
    fitting = [name for name in FILES if any(_accepted(name, t) for t in tokens)]
    return fitting or list(FILES)


def file(name: str) -> tuple[str, str, bytes]:
    """(name, media type, content) of one of FILES; an unknown name is the picture."""
    media, data = FILES.get(name, FILES["photo.png"])
    return (name if name in FILES else "photo.png"), media, data
