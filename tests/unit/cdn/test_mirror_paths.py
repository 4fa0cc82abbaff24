"""The mirror answers only with files inside the package folder: absolute, encoded,
backslash, NUL and traversal paths, and links planted in the cache, are refused, in
every URL form (esm.sh, jsDelivr ``/+esm``, unpkg ``?module``, cdnjs)."""

from __future__ import annotations

import os
import pathlib
import urllib.parse

import pytest

from iwcbench.pipeline.kits.mirror import cdn

SECRET = "SECRET-" + "x" * 16


@pytest.fixture()
def planted(tmp_path: pathlib.Path) -> tuple[cdn.Mirror, pathlib.Path, pathlib.Path]:
    """A mirror (offline) holding tinylib@1.0.0, a secret file outside it, and links
    to the secret planted inside the package, as a tampered cache would have them."""
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    secret = secret_dir / "canary.txt"
    secret.write_text(SECRET)
    package = tmp_path / "cdn" / "tinylib@1.0.0"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "tinylib", "version": "1.0.0", "main": "index.js"}')
    (package / "index.js").write_text("window.tinylib = 1;\n")
    (package / "dist" / "tiny.esm.js").write_text("export const tiny = 1;\n")
    os.symlink(secret, package / "leak.js")
    os.symlink(secret_dir, package / "linked")
    os.symlink("../../../secret/canary.txt", package / "dist" / "up.js")
    return cdn.Mirror(tmp_path / "cdn", fetch=False), secret, package


def _tricks(secret: pathlib.Path, package: pathlib.Path) -> list[str]:
    absolute = str(secret)
    relative = os.path.relpath(secret, package)
    encoded = urllib.parse.quote(absolute, safe="")
    encoded_rel = urllib.parse.quote(relative, safe="")
    urls = []
    for prefix in ("https://esm.sh/tinylib@1.0.0", "https://cdn.jsdelivr.net/npm/tinylib@1.0.0",
                   "https://unpkg.com/tinylib@1.0.0"):
        urls += [
            f"{prefix}/{absolute}",                       # //abs
            f"{prefix}//etc/passwd",
            f"{prefix}/{encoded}",                        # %2Fabs
            f"{prefix}/{encoded.replace('%', '%25')}",    # double-encoded
            f"{prefix}/{encoded_rel}",                    # ..%2F..%2F
            f"{prefix}/{relative.replace('..', '%2e%2e')}",
            f"{prefix}/{relative.replace('/', '%5C')}",   # backslashes
            f"{prefix}/index.js%00{encoded_rel}",         # NUL
            f"{prefix}/leak.js",                          # a link out of the package
            f"{prefix}/linked/canary.txt",                # a linked folder
            f"{prefix}/dist/up.js",                       # a relative link out
        ]
    urls += [f"https://cdn.jsdelivr.net/npm/tinylib@1.0.0/{absolute}/+esm",
             f"https://cdn.jsdelivr.net/npm/tinylib@1.0.0/{encoded}/+esm",
             f"https://cdn.jsdelivr.net/npm/tinylib@1.0.0/leak.js/+esm",
             f"https://unpkg.com/tinylib@1.0.0/{absolute}?module",
             f"https://unpkg.com/tinylib@1.0.0/leak.js?module",
             f"https://esm.run/tinylib@1.0.0/{absolute}"]
    return urls


def test_no_path_trick_reads_a_file_outside_the_package(planted):
    mirror, secret, package = planted
    answered = {}
    for url in _tricks(secret, package):
        found = mirror.lookup(url)
        if isinstance(found, cdn.Hit):
            answered[url] = found.body[:40]
    assert answered == {}


def test_refusals_say_why(planted):
    mirror, secret, _ = planted
    miss = mirror.lookup(f"https://esm.sh/tinylib@1.0.0/{secret}")
    assert isinstance(miss, cdn.Miss) and miss.reason


@pytest.mark.parametrize("url, body", [
    ("https://unpkg.com/tinylib@1.0.0/index.js", b"window.tinylib = 1;\n"),
    ("https://unpkg.com/tinylib@1.0.0", b"window.tinylib = 1;\n"),
    ("https://cdn.jsdelivr.net/npm/tinylib@1.0.0/dist/tiny.esm.js", b"export const tiny = 1;\n"),
    ("https://unpkg.com/tinylib@1.0.0/dist/tiny.esm", b"export const tiny = 1;\n"),
    ("https://unpkg.com/tinylib@1.0.0/./dist/tiny.esm.js", b"export const tiny = 1;\n"),
])
def test_files_inside_the_package_are_still_served(planted, url, body):
    mirror, _, _ = planted
    hit = mirror.resolve(url)
    assert hit is not None, mirror.lookup(url)
    assert hit.body == body
