"""Write small app folders for tests from a {relative path: text or bytes} dict."""

from __future__ import annotations

import contextlib
import pathlib
import shutil
import tempfile
from typing import Iterator, Mapping


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


@contextlib.contextmanager
def pages_served(pages: Mapping[str, str], prefix: str = "iwc-pages-") -> Iterator[str]:
    """Each page as <name>/index.html, served over loopback (the serving stage's static
    server): the server's URL, ending in /. The folder is removed afterwards."""
    from iwcbench.pipeline.stages import serving

    folder = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        write_app(folder, {f"{name}/index.html": html for name, html in pages.items()})
        with serving.serve(folder) as server:
            yield server.url
    finally:
        shutil.rmtree(folder, ignore_errors=True)
