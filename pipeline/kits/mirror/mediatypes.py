"""Content-Type by file extension, the same for the app server and the CDN mirror.

Python's ``mimetypes`` reads the machine's /etc/mime.types, so its answers differ
between machines (``.mjs``, ``.wasm`` and ``.woff2`` are often missing); browsers
refuse module scripts and WebAssembly streaming with the wrong type. This table is
fixed. It must not do I/O.
"""

from __future__ import annotations

import posixpath

_TEXT = "; charset=utf-8"

TYPES: dict[str, str] = {
    ".html": "text/html" + _TEXT,
    ".htm": "text/html" + _TEXT,
    ".js": "text/javascript" + _TEXT,
    ".mjs": "text/javascript" + _TEXT,
    ".cjs": "text/javascript" + _TEXT,
    ".jsx": "text/javascript" + _TEXT,
    ".css": "text/css" + _TEXT,
    ".json": "application/json" + _TEXT,
    ".map": "application/json" + _TEXT,
    ".webmanifest": "application/manifest+json" + _TEXT,
    ".txt": "text/plain" + _TEXT,
    ".md": "text/markdown" + _TEXT,
    ".csv": "text/csv" + _TEXT,
    ".xml": "application/xml" + _TEXT,
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".bmp": "image/bmp",
    ".wasm": "application/wasm",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".eot": "application/vnd.ms-fontobject",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".m4a": "audio/mp4",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".pdf": "application/pdf",
    ".glb": "model/gltf-binary",
    ".gltf": "model/gltf+json",
}

DEFAULT = "application/octet-stream"


def content_type(path: str) -> str:
    """The Content-Type for a file path or URL path (query and fragment excluded)."""
    ext = posixpath.splitext(path.lower())[1]
    return TYPES.get(ext, DEFAULT)
