"""The hostile-app corpus made ready to run: canaries planted, placeholders filled.

``prepare(base, canary)`` builds, under ``base``:

* ``secret/canary.txt`` — a canary file (a random token) outside every app and package;
* ``mirror/tinylib@1.0.0/`` — a package in the CDN mirror cache, with a link to the
  canary file (``leak.js``) and a linked folder (``linked``) planted in it, as a tampered
  cache would have them;
* ``apps/hostile-1b/`` — tests/fixtures/hostile-apps with ``__CANARY__`` (host:port of
  the canary service), ``__CANARY_UDP__``, ``__CANARY_FILE__`` and ``__CANARY_REL__``
  filled in; the apps made at run time (``sparse-file``: a 1 GiB sparse file; the links
  of ``server-traversal``); and the bad-input apps this corpus reuses (copied from
  tests/fixtures/bad-apps).

What each app tries and what a run must record is in tests/fixtures/hostile-apps/README.md.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import secrets
import shutil

from fakes import canary as canaries

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "hostile-apps"
BAD_APPS = ROOT / "tests" / "fixtures" / "bad-apps" / "apps" / "mischief-1b"
MODEL = "hostile-1b"
REUSED = ("loop-at-load", "loop-on-click", "dialog-storm", "popup-flood", "navigate-away", "huge-dom",
          "zip-traversal.zip", "tar-symlink-out.tar.gz")
SPARSE_BYTES = 1 << 30
PASSWD_LINE = "root:x:0:0:"  # the first line of /etc/passwd, which two apps ask for


@dataclasses.dataclass(frozen=True)
class Corpus:
    tasks: pathlib.Path
    apps: pathlib.Path
    mirror: pathlib.Path
    canary_file: pathlib.Path
    file_token: str


def _fill(text: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        text = text.replace(name, value)
    return text


def prepare(base: pathlib.Path, canary: canaries.Canary) -> Corpus:
    secret = base / "secret"
    secret.mkdir(parents=True)
    file_token = "CANARY-FILE-" + secrets.token_hex(12)
    canary_file = secret / "canary.txt"
    canary_file.write_text(file_token + "\n")

    package = base / "mirror" / "tinylib@1.0.0"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        '{"name": "tinylib", "version": "1.0.0", "main": "index.js", "module": "index.mjs"}\n')
    (package / "index.js").write_text("window.tinylib = {version: '1.0.0'};\n")
    (package / "index.mjs").write_text("export const version = '1.0.0';\n")
    os.symlink(canary_file, package / "leak.js")
    os.symlink(secret, package / "linked")

    values = {
        "__CANARY_UDP__": str(canary.udp_port),
        "__CANARY_FILE__": str(canary_file),
        "__CANARY_REL__": os.path.relpath(canary_file, package),
        "__CANARY__": canary.address,
    }
    apps = base / "apps"
    model = apps / MODEL
    shutil.copytree(CORPUS / "apps" / MODEL, model)
    for path in model.rglob("*"):
        if path.suffix in (".html", ".js") and path.is_file():
            path.write_text(_fill(path.read_text(), values))
    for name in REUSED:
        source = BAD_APPS / name
        if source.is_dir():
            shutil.copytree(source, model / name)
        else:
            shutil.copyfile(source, model / name)

    sparse = model / "sparse-file"
    sparse.mkdir()
    (sparse / "index.html").write_text(
        "<!doctype html><title>Data</title><h1>Data file</h1><a href='data.bin'>Download</a>\n")
    with open(sparse / "data.bin", "wb") as handle:
        handle.truncate(SPARSE_BYTES)  # a hole: no blocks on disk

    traversal = model / "server-traversal"
    os.symlink(canary_file, traversal / "secret-link.txt")
    os.symlink(secret, traversal / "linked-dir")
    return Corpus(CORPUS / "tasks.jsonl", apps, base / "mirror", canary_file, file_token)


def written_in(*folders: pathlib.Path) -> tuple[str, ...]:
    """Everything under ``folders`` (each made empty for the run)."""
    return tuple(sorted(str(p) for folder in folders for p in folder.rglob("*")))


def isolated_folders(base: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """(TMPDIR, HOME, working folder) of a run, each empty: whatever the run writes
    outside its output and temporary folders shows up in the last two."""
    made = tuple(base / name for name in ("tmp", "home", "cwd"))
    for folder in made:
        folder.mkdir()
    return made


def isolated_env(tmp: pathlib.Path, home: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return {**env, "TMPDIR": str(tmp), "HOME": str(home)}
