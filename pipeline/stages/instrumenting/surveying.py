"""What an app holds, read before anything is instrumented: its framework, the static
folder it ships prebuilt, its start page, and which of its pages and scripts the browser
runs (the rest skipped, each with its reason); and copying it without what must not be
served.

Reads files only: it must not run Node or a build, nor write anywhere but a copy's
destination.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
from typing import Iterator

from iwcbench.pipeline.contracts import evidence, instrumented

BUILD_FRAMEWORKS = ("next", "astro", "nuxt", "sveltekit", "react-router", "remix", "qwik", "solid-start", "angular", "cra", "vite")  # first match wins
PREBUILT_DIRS = ("dist", "build", "out")  # static output folders of the build frameworks
NOT_COPIED = {".git"}
NOT_INSTRUMENTED = {"node_modules", ".git", instrumented.FOLDER}
PAGE_SUFFIXES = (".html", ".htm")
SCRIPT_SUFFIXES = (".js", ".mjs")

_CONFIG_FILE = re.compile(
    r"(\.config\.[cm]?js$)|^(gulpfile|gruntfile|\.eslintrc|\.prettierrc|babel\.config|karma\.conf)\b",
    re.IGNORECASE)
_TEST_FILE = re.compile(r"\.(test|spec)\.[cm]?js$", re.IGNORECASE)
_MINIFIED = re.compile(r"[.-]min\.m?js$", re.IGNORECASE)
_NODE_BUILTINS = (
    "node:[^'\"]+|fs|path|http|https|os|child_process|express|url|crypto|net|events|stream|util|zlib")
_NODE_CODE = re.compile(
    rb"\brequire\s*\(\s*['\"]|\bmodule\.exports\b|\bfrom\s*['\"](?:" + _NODE_BUILTINS.encode()
    + rb")(?:/[^'\"]*)?['\"]")


def built_by(root: pathlib.Path) -> str | None:
    """The build framework of the folder, or None when it is not one (unsupported.recognise's question)."""
    framework = detect_framework(root)
    return framework if framework in BUILD_FRAMEWORKS else None


def detect_framework(root: pathlib.Path) -> evidence.Framework:
    """The app's framework, from package.json dependencies and config files."""
    try:
        names = {p.name for p in root.iterdir() if p.is_file()}
    except OSError:
        return "unknown"
    deps: set[str] = set()
    manifest = root / "package.json"
    if "package.json" in names:
        try:
            data = json.loads(manifest.read_bytes())
            for field in ("dependencies", "devDependencies", "peerDependencies"):
                section = data.get(field) if isinstance(data, dict) else None
                if isinstance(section, dict):
                    deps.update(section)
        except (OSError, ValueError):
            return "unknown"

    def config(stem: str) -> bool:
        return any(n.startswith(stem + ".config.") for n in names)

    if "next" in deps or config("next"):
        return "next"
    if "astro" in deps or config("astro"):
        return "astro"
    if "nuxt" in deps or "nuxt3" in deps or config("nuxt"):
        return "nuxt"
    if any(d.startswith(("@builder.io/qwik", "@qwik.dev/")) for d in deps):
        return "qwik"
    if "@solidjs/start" in deps:
        return "solid-start"
    if "@sveltejs/kit" in deps:
        return "sveltekit"
    if "@react-router/dev" in deps or config("react-router"):
        return "react-router"
    if "@remix-run/dev" in deps and "vite" in deps:  # Remix on Vite (its classic compiler: unsupported.py)
        return "remix"
    if "@angular/build" in deps or "@angular-devkit/build-angular" in deps:  # the CLI's builders
        return "angular"
    if "react-scripts" in deps:
        return "cra"
    if "vite" in deps or config("vite"):
        return "vite"
    return "node" if "package.json" in names else "static"


def prebuilt_folder(root: pathlib.Path) -> str | None:
    """The static build output a build-framework app ships (dist/, build/, out/)."""
    for name in PREBUILT_DIRS:
        if (root / name / "index.html").is_file():
            return name
    return None


def find_entry(root: pathlib.Path) -> tuple[str | None, str | None]:
    """(start page relative to root, None) or (None, why there is none)."""
    for name in ("index.html", "index.htm"):
        if (root / name).is_file():
            return name, None
    top = sorted(p.name for p in _safe_iterdir(root) if p.is_file() and p.suffix.lower() in PAGE_SUFFIXES)
    if len(top) == 1:
        return top[0], None
    if len(top) > 1:
        return None, f"no index.html and {len(top)} HTML pages at the root to choose from ({_names(top)})"
    pages = sorted(rel for rel in walk(root, NOT_INSTRUMENTED) if rel.lower().endswith(PAGE_SUFFIXES))
    if len(pages) == 1:
        return pages[0], None
    if not pages:
        return None, "no HTML page in the app (no index.html)"
    indexes = [p for p in pages if p.rsplit("/", 1)[-1].lower() == "index.html"]
    shallowest = min((p.count("/") for p in indexes), default=None)
    top_indexes = [p for p in indexes if p.count("/") == shallowest]
    if len(top_indexes) == 1:
        return top_indexes[0], None
    return None, f"no index.html at the root and {len(pages)} HTML pages elsewhere ({_names(pages)})"


def copy_app(src: pathlib.Path, dest: pathlib.Path) -> list[evidence.SkippedFile]:
    """Copy the regular files of ``src`` into ``dest`` (created), without .git.

    Symlinks are followed only to files inside ``src``; special files (FIFOs, sockets,
    devices) and links that lead out of the app are not copied. Files that cannot be
    read are reported, not raised."""
    src_real = src.resolve()
    dest.mkdir(parents=True, exist_ok=True)
    dest_real = dest.resolve()
    problems: list[evidence.SkippedFile] = []
    for dirpath, dirnames, filenames in os.walk(src_real, followlinks=False):
        here = pathlib.Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in NOT_COPIED and not (here / d).is_symlink() and (here / d).resolve() != dest_real
        )
        rel_dir = here.relative_to(src_real)
        (dest_real / rel_dir).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            path = here / name
            rel = (rel_dir / name).as_posix()
            try:
                real = path.resolve(strict=True)
                if path.is_symlink() and src_real not in real.parents:
                    continue  # a link out of the app would serve files that are not the app's
                if not real.is_file():
                    continue  # FIFOs and devices: reading one could block forever
                shutil.copyfile(real, dest_real / rel_dir / name)
            except (OSError, RuntimeError) as exc:  # (RuntimeError: Python 3.11's resolve() on a symlink loop)
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                problems.append(evidence.SkippedFile(path=rel, reason=f"could not copy: {why}"))
    return problems


def survey(root: pathlib.Path, max_file_bytes: int) -> tuple[list[str], list[dict], list[evidence.SkippedFile]]:
    """Pages that hold scripts, script files for the Node job, pages skipped for size.

    A script dict is ``{"path", "skip": reason or None, "soft": bool}``; a soft skip
    (build configs, tests, Node server code) is lifted when a page loads the file."""
    pages: list[str] = []
    scripts: list[dict] = []
    skipped: list[evidence.SkippedFile] = []
    package_main = _package_entry_points(root)
    for rel in sorted(walk(root, NOT_INSTRUMENTED)):
        lower = rel.lower()
        path = root / rel
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if lower.endswith(PAGE_SUFFIXES):
            if size > max_file_bytes:
                skipped.append(evidence.SkippedFile(
                    path=rel, reason=f"page is {size} bytes (over {max_file_bytes}); its inline scripts are not instrumented"))
            elif _mentions_script(path):
                pages.append(rel)
            continue
        if not lower.endswith(SCRIPT_SUFFIXES):
            continue
        skip, soft = _script_skip(root, rel, size, max_file_bytes, package_main)
        scripts.append({"path": rel, "skip": skip, "soft": soft})
    return pages, scripts, skipped


def _script_skip(root: pathlib.Path, rel: str, size: int, limit: int, package_main: set[str]) -> tuple[str | None, bool]:
    name = rel.rsplit("/", 1)[-1]
    if size > limit:
        return f"{size} bytes (over {limit})", False
    if _MINIFIED.search(name):
        return "minified library: vendor code, not the app's own", False
    if _CONFIG_FILE.search(name):
        return "build tool configuration, not app code", True
    if _TEST_FILE.search(name) or "/__tests__/" in f"/{rel}":
        return "test file, not app code", True
    if rel in package_main:
        return "package.json main/bin: Node code, not run in the browser", True
    try:
        head = (root / rel).read_bytes()
    except OSError:
        return None, False  # Node will report what it cannot read
    if _NODE_CODE.search(head):
        return "Node code (require(), module.exports or Node built-ins), not run in the browser", True
    return None, False


def _package_entry_points(root: pathlib.Path) -> set[str]:
    try:
        data = json.loads((root / "package.json").read_bytes())
    except (OSError, ValueError):
        return set()
    if not isinstance(data, dict):
        return set()
    found = [data.get("main")]
    bins = data.get("bin")
    found += list(bins.values()) if isinstance(bins, dict) else [bins]
    return {os.path.normpath(p).replace(os.sep, "/") for p in found if isinstance(p, str) and p}


_PAGE_CODE = re.compile(rb"<script|\son[a-z]+\s*=", re.IGNORECASE)


def _mentions_script(path: pathlib.Path) -> bool:
    """Does the page hold code: a script, or an inline handler attribute?"""
    try:
        return _PAGE_CODE.search(path.read_bytes()) is not None
    except OSError:
        return False


def walk(root: pathlib.Path, excluded: set[str]) -> Iterator[str]:
    """Relative posix paths of the regular files under root, minus excluded folders."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in excluded]
        rel_dir = pathlib.Path(dirpath).relative_to(root)
        for name in filenames:
            yield (rel_dir / name).as_posix()


def _safe_iterdir(root: pathlib.Path) -> list[pathlib.Path]:
    try:
        return list(root.iterdir())
    except OSError:
        return []


def _names(paths: list[str], shown: int = 5) -> str:
    more = f", … {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more
