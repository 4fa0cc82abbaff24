"""Write small app folders for tests from a {relative path: text or bytes} dict."""

from __future__ import annotations

import pathlib


def write_app(root: pathlib.Path, files: dict[str, str | bytes]) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def app_writer(tmp_path: pathlib.Path):
    """``write({...})`` makes a new app folder under tmp_path each call."""
    counter = iter(range(1000))
    return lambda files: write_app(tmp_path / f"app{next(counter)}", files)
