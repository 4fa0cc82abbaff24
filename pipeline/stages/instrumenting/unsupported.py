"""The frameworks and layouts the build step does not support, and how each is recognised.

``recognise(root)`` reads an app's files (package.json, config files at its root, and for
a layout, the package.json files of its subfolders) and names the first row of
``UNSUPPORTED`` that fits, before anything is installed or built. Such an app cannot run
here through no fault of its own: its build makes a server bundle, an adapter's output or
a folder we do not serve, or its app sits where the build step does not look. The run
records it ``not_runnable`` with the reason this module writes (runs/preparing.py), so our gap
lifts and lowers no model.

A framework the build step does support must never be caught: Svelte, Vue, Solid, Preact
and React apps built by Vite carry none of these packages (``@sveltejs/vite-plugin-svelte``
is not ``@sveltejs/kit``, ``react-router-dom`` is not ``@react-router/dev``). This module
reads files only; it must not build, serve or decide an outcome.
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
    # the app is a Node project in a subfolder, not at the root (only when the root is no
    # app the build step builds and has no start page of its own)
    in_subfolder: bool = False
    unless: tuple[str, ...] = ()  # dependency names that make it a framework the build step builds


UNSUPPORTED: tuple[Row, ...] = (
    Row("Angular without its CLI's builders", "its angular.json names no builder of @angular/build or "
        "@angular-devkit/build-angular, which is what the build step runs", files=("angular.json",),
        unless=("@angular/build", "@angular-devkit/build-angular")),
    Row("Nuxt", "its build is for Nitro's server (.output/), not a static dist/ folder",
        packages=("nuxt", "nuxt3"), files=("nuxt.config.*",)),
    Row("Remix's classic compiler", "it is built by remix build without Vite, which the build step does not run "
        "(Remix on Vite is built)", files=("remix.config.*",)),
    Row("Qwik", "its build is for Qwik City's server or an adapter's",
        packages=("@builder.io/qwik*", "@qwik.dev/*")),
    Row("SolidStart", "its build is for Vinxi's server (.output/), not a static dist/ folder",
        packages=("@solidjs/start",)),
    Row("Gatsby", "it is built by gatsby build (public/), which the build step does not run",
        packages=("gatsby",), files=("gatsby-config.*",)),
    Row("Vue CLI", "it is built by vue-cli-service (webpack), which the build step does not run",
        packages=("@vue/cli-service",), files=("vue.config.*",)),
    Row("A monorepo workspace", "it installs and builds the one app at the root of the submitted folder",
        files=("pnpm-workspace.yaml", "lerna.json"), fields=("workspaces",), in_subfolder=True),
    Row("An app in a subfolder", "it installs and builds the one app at the root of the submitted folder",
        in_subfolder=True),
)

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
    """The first row of ``UNSUPPORTED`` the app at ``root`` fits, or None (an app the
    build step builds, a static app, a Node project it serves as files). ``built_by``
    names the build framework of a folder the build step builds."""
    top = _Project.at(root)
    for row in UNSUPPORTED:
        if not row.in_subfolder:
            sign = top.sign(row)
            if sign is not None:
                return Found(row, sign)
    if built_by(root) is not None or top.names & set(_START_PAGES):
        return None  # the root is the app: whatever its subfolders hold is not what is served
    nested = _subfolder_app(root, built_by)
    if nested is None:
        return None
    for row in UNSUPPORTED:
        if row.in_subfolder:
            marker = top.sign(row)
            if marker is not None or not (row.files or row.fields):
                return Found(row, f"{marker + '; ' if marker else ''}{nested}")
    return None


def _subfolder_app(root: pathlib.Path, built_by: BuiltBy) -> str | None:
    """The first package.json below the root (shallowest first, by name) whose project
    needs a build, named with its framework: ``apps/web/package.json: SvelteKit``."""
    for rel in _package_folders(root):
        project = _Project.at(root / rel)
        where = f"{rel}/"
        for row in UNSUPPORTED:
            if not row.in_subfolder and project.sign(row, where) is not None:
                return f"{where}package.json: {row.name}"
        framework = built_by(root / rel)
        if framework is not None:
            return f"{where}package.json: {framework}"
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
