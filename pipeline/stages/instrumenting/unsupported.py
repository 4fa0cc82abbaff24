"""The frameworks the build step does not support, and where in a submitted folder the
app is.

``recognise(root)`` reads an app's files (package.json, config files at its root, and
when the root is no app, the package.json files of its subfolders) and names the first
row of ``UNSUPPORTED`` that fits, before anything is installed or built. Such an app
cannot run here through no fault of its own: its build makes a server bundle, an
adapter's output or a folder we do not serve. The run records it ``not_runnable`` with
the reason this module writes (runs/preparing.py), so our gap lifts and lowers no model.
``app_folder(root)`` finds the app of a folder whose root is no app (``apps/web`` of a
workspace, ``frontend/`` beside a README), for the build step to build there.

A framework the build step does support must never be caught: Svelte, Vue, Solid, Preact
and React apps built by Vite carry none of these packages (``@sveltejs/vite-plugin-svelte``
is not ``@sveltejs/kit``). This module reads files only; it must not build, serve or
decide an outcome.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import pathlib
from typing import Callable

SUBFOLDER_DEPTH = 3  # apps/web/package.json is 2 folders down; deeper is a dependency's, not the app's
_SKIPPED_FOLDERS = {"node_modules", "dist", "build", "out"}
_START_PAGES = ("index.html", "index.htm")


@dataclasses.dataclass(frozen=True)
class Row:
    """One framework (or layout) the build step cannot build, and its signs: any one of
    them recognises it. Patterns are fnmatch's (``@remix-run/*``)."""

    name: str  # what the reason calls it
    why: str  # what its build needs that the build step does not do
    packages: tuple[str, ...] = ()  # dependency names in package.json (any dependency field)
    files: tuple[str, ...] = ()  # file names at the app's root
    fields: tuple[str, ...] = ()  # top-level package.json fields
    unless: tuple[str, ...] = ()  # dependency names that make it a framework the build step builds


UNSUPPORTED: tuple[Row, ...] = (
    Row("Angular without its CLI's builders", "its angular.json names no builder of @angular/build or "
        "@angular-devkit/build-angular, which is what the build step runs", files=("angular.json",),
        unless=("@angular/build", "@angular-devkit/build-angular")),
    Row("Remix's classic compiler", "it is built by remix build without Vite, which the build step does not run "
        "(Remix on Vite is built)", files=("remix.config.*",)),
    Row("SolidStart before 1.0", "it is built by solid-start build (its 0.x releases), which the build step "
        "does not run (SolidStart 1.x, on Vinxi, is built)", packages=("solid-start",)),
    Row("Gatsby", "it is built by gatsby build (public/), which the build step does not run",
        packages=("gatsby",), files=("gatsby-config.*",)),
    Row("Vue CLI", "it is built by vue-cli-service (webpack), which the build step does not run",
        packages=("@vue/cli-service",), files=("vue.config.*",)),
)
WORKSPACE = Row("A workspace", "", files=("pnpm-workspace.yaml", "lerna.json"), fields=("workspaces",))

# The build framework of the folder (surveying.detect_framework's, when it is one the
# build step builds), or None
BuiltBy = Callable[[pathlib.Path], str | None]


@dataclasses.dataclass(frozen=True)
class Found:
    row: Row
    sign: str  # what recognised it: "@sveltejs/kit in package.json", "apps/web/package.json: SvelteKit"

    @property
    def reason(self) -> str:
        """The sentence the app's result quotes (after ``not runnable here: ``)."""
        return (f"{self.row.name} ({self.sign}) is not supported by the build step: {self.row.why} "
                f"(docs/frameworks.md lists what is built)")


@dataclasses.dataclass(frozen=True)
class _Project:
    """What the signs are read from: one folder's file names and package.json."""

    names: frozenset[str]
    deps: frozenset[str]
    fields: frozenset[str]

    @classmethod
    def at(cls, folder: pathlib.Path) -> "_Project":
        try:
            names = frozenset(p.name for p in folder.iterdir() if p.is_file())
        except OSError:
            names = frozenset()
        data: object = None
        if "package.json" in names:
            try:
                data = json.loads((folder / "package.json").read_bytes())
            except (OSError, ValueError):
                data = None
        manifest = data if isinstance(data, dict) else {}
        deps = {name for field in ("dependencies", "devDependencies", "peerDependencies")
                if isinstance(manifest.get(field), dict) for name in manifest[field]}
        return cls(names, frozenset(deps), frozenset(k for k, v in manifest.items() if v))

    def sign(self, row: Row, where: str = "") -> str | None:
        """How ``row`` shows in this project (``where``: its folder, for the sentence), or None."""
        manifest = f"{where}package.json"
        if any(fnmatch.filter(self.deps, pattern) for pattern in row.unless):
            return None
        for pattern in row.packages:
            hit = sorted(fnmatch.filter(self.deps, pattern))
            if hit:
                return f"{hit[0]} in {manifest}"
        for pattern in row.files:
            hit = sorted(fnmatch.filter(self.names, pattern))
            if hit:
                return f"{where}{hit[0]}"
        for field in row.fields:
            if field in self.fields:
                return f'{manifest} "{field}"'
        return None


def recognise(root: pathlib.Path, built_by: BuiltBy) -> Found | None:
    """The first row of ``UNSUPPORTED`` the app at ``root`` fits, or that the app in its
    subfolder fits (``app_folder``'s), or None (an app the build step builds, a static
    app, a Node project it serves as files). ``built_by`` names the build framework of a
    folder the build step builds."""
    top = _Project.at(root)
    for row in UNSUPPORTED:
        sign = top.sign(row)
        if sign is not None:
            return Found(row, sign)
    found = _nested(root, built_by)
    return found if isinstance(found, Found) else None


@dataclasses.dataclass(frozen=True)
class AppFolder:
    """The app a submitted folder holds in a subfolder (``apps/web``), not at its root."""

    path: str  # relative, posix
    framework: str  # its build framework
    workspace: str | None  # what makes the root a workspace (installed there), None: a plain folder

    @property
    def note(self) -> str:
        """What the build's reason says about it."""
        if self.workspace:
            return f"the app is {self.path}/ of a workspace ({self.workspace}), installed at the workspace's root"
        return f"the app is in the subfolder {self.path}/"


def app_folder(root: pathlib.Path, built_by: BuiltBy) -> AppFolder | None:
    """The app in a subfolder of ``root`` (the shallowest package.json below it whose
    project the build step builds), when the root itself is no app; None otherwise."""
    found = _nested(root, built_by)
    if not isinstance(found, tuple):
        return None
    rel, framework = found
    return AppFolder(rel, framework, _Project.at(root).sign(WORKSPACE))


def _nested(root: pathlib.Path, built_by: BuiltBy) -> "Found | tuple[str, str] | None":
    """The first package.json below a root that is no app itself (shallowest first, by
    name) whose project needs a build: Found when it is a framework the build step does
    not build, (its folder, its framework) when it does; None when there is none."""
    if built_by(root) is not None or _Project.at(root).names & set(_START_PAGES):
        return None  # the root is the app: whatever its subfolders hold is not what is served
    for rel in _package_folders(root):
        project = _Project.at(root / rel)
        for row in UNSUPPORTED:
            sign = project.sign(row, f"{rel}/")
            if sign is not None:
                return Found(row, sign)
        framework = built_by(root / rel)
        if framework is not None:
            return rel, framework
    return None


def _package_folders(root: pathlib.Path) -> list[str]:
    """Subfolders (relative, posix) holding a package.json, shallowest first."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = pathlib.Path(dirpath).relative_to(root)
        depth = len(rel.parts)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_FOLDERS and not d.startswith(".")
                             and depth < SUBFOLDER_DEPTH)
        if depth and "package.json" in filenames:
            found.append(rel.as_posix())
    return sorted(found, key=lambda p: (p.count("/"), p))
