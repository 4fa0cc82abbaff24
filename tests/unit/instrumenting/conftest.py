"""Write small app folders from a {relative path: text or bytes} dict."""

from __future__ import annotations

import pathlib

import pytest


def write_app(root: pathlib.Path, files: dict[str, str | bytes]) -> pathlib.Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture()
def app(tmp_path):
    """``app({...})`` writes an app folder and returns its path."""
    counter = iter(range(1000))
    return lambda files: write_app(tmp_path / f"app{next(counter)}", files)
