"""Google Fonts for a Next.js build that has no network, from npm's @fontsource packages.

``next/font/google`` fetches each font's stylesheet and files from Google while the app
builds, and the build runs with no network. Before it starts (the install step may reach
the registry, the build may not), ``prepare(app, work, registry, cache)`` finds the
families the app imports from ``next/font/google`` and fetches each one's @fontsource
package (the same files Google serves, published on npm under the OFL) through the CDN
mirror's registry client, into ``cache``. It writes a manifest (family → weight-style →
woff2 file) that js/next-fonts.cjs reads while the build runs; a family with no such
package, or a registry that cannot be reached, gets the local stand-in font with the
reason recorded. Nothing here builds or serves.
"""

from __future__ import annotations

import json
import os
import pathlib
import re

from iwcbench.pipeline.kits.mirror import npm

MANIFEST = "iwc-next-fonts.json"  # in the build's work folder
ENV = "IWC_NEXT_FONTS"  # names the manifest for js/next-fonts.cjs
SOURCES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
NOT_SOURCES = {"node_modules", ".next", "out", ".git", "dist", "build"}
MAX_FILES = 3000  # source files read when looking for the imports
MAX_BYTES = 1_000_000  # larger files are not the app's own
_IMPORT = re.compile(r"""import\s*\{([^}]*)\}\s*from\s*['"]next/font/google['"]""")
_FILE = re.compile(r"-latin-(\d+)-(normal|italic)\.woff2$")


def families(app: pathlib.Path) -> list[str]:
    """The Google font families the app's sources import from next/font/google, by
    Google's names ("Roboto_Mono" is "Roboto Mono")."""
    found: set[str] = set()
    seen = 0
    for folder, dirs, files in os.walk(app):
        dirs[:] = sorted(d for d in dirs if d not in NOT_SOURCES and not d.startswith("."))
        for name in sorted(files):
            path = pathlib.Path(folder) / name
            if path.suffix not in SOURCES:
                continue
            seen += 1
            if seen > MAX_FILES:
                return sorted(found)
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                text = path.read_text(errors="replace")
            except OSError:
                continue
            for names in _IMPORT.findall(text):
                for part in names.split(","):
                    family = part.strip().split(" as ")[0].strip()
                    if re.fullmatch(r"[A-Z][A-Za-z0-9_]*", family):
                        found.add(family.replace("_", " "))
    return sorted(found)


def package_of(family: str) -> str:
    """The @fontsource package of a Google family ("Roboto Mono" → @fontsource/roboto-mono)."""
    return "@fontsource/" + family.lower().replace(" ", "-")


def _files(folder: pathlib.Path) -> dict[str, str]:
    """weight-style → the package's latin woff2 file ("400-normal" → /…/inter-latin-400-normal.woff2)."""
    out = {}
    for path in sorted((folder / "files").glob("*-latin-*.woff2")):
        match = _FILE.search(path.name)
        if match:  # "-latin-ext-400-…" has no weight right after "-latin-": not matched
            out[f"{match.group(1)}-{match.group(2)}"] = str(path.resolve())
    return out


def prepare(app: pathlib.Path, work: pathlib.Path, registry: str, cache: pathlib.Path) -> dict[str, str]:
    """Fetch the app's next/font/google families; write the manifest into ``work``.
    Returns the environment the build needs to find it ({} when the app imports none)."""
    wanted = families(app)
    if not wanted:
        return {}
    packages = npm.Packages(cache, registry)
    manifest: dict[str, dict] = {}
    for family in wanted:
        package = package_of(family)
        try:
            version, folder = packages.get(package, "latest")
        except npm.PackageError as error:
            manifest[family] = {"missing": f"{package}: {error}"[:300]}
            continue
        files = _files(folder)
        manifest[family] = ({"package": f"{package}@{version}", "files": files} if files else
                            {"missing": f"{package}@{version} has no latin woff2 files"})
    path = work / MANIFEST
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return {ENV: str(path.resolve())}
