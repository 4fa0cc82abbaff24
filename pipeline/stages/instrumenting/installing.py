"""Which package manager installs an app, and how: npm from package-lock.json, pnpm from
pnpm-lock.yaml, Yarn 1 from a classic yarn.lock, each from its own lockfile; npm install
from package.json's ranges when the app has none of them (or only one we cannot read:
bun's, a Yarn 2+ lockfile). Pure: building.py runs what ``plan`` gives.

Every manager installs with lifecycle scripts off, from ``registry`` only, into a cache
folder of its own beside npm's, and lays out node_modules as npm does (pnpm's hoisted
linker), so that the build recipes and js/server.mjs find each package at
``node_modules/<name>`` whichever manager installed it. pnpm and Yarn 1 are ours (the
npm tools of pipeline/kits/node), never the machine's or the app's pinned version.
"""

from __future__ import annotations

import dataclasses
import pathlib

NPM_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
PNPM_LOCKFILE = "pnpm-lock.yaml"
YARN_LOCKFILE = "yarn.lock"
_YARN_BERRY = "__metadata:"  # the first key of a Yarn 2+ lockfile (Yarn 1's has none)


@dataclasses.dataclass(frozen=True)
class Plan:
    manager: str  # "npm", "pnpm", "yarn"
    lockfile: str | None  # the lockfile installed from; None: package.json's ranges
    frozen: tuple[str, ...]  # the install that keeps the lockfile as it is
    relaxed: tuple[str, ...] | None  # the install that may update a lockfile lagging behind package.json
    note: str | None = None  # what the build's reason says about the choice


def lockfile_of(root: pathlib.Path) -> tuple[str, str] | None:
    """(manager, lockfile name) the app at ``root`` is installed from, or None."""
    for name in NPM_LOCKFILES:
        if (root / name).is_file():
            return "npm", name
    if (root / PNPM_LOCKFILE).is_file():
        return "pnpm", PNPM_LOCKFILE
    if (root / YARN_LOCKFILE).is_file() and not _berry(root / YARN_LOCKFILE):
        return "yarn", YARN_LOCKFILE
    return None


def _berry(lock: pathlib.Path) -> bool:
    try:
        with lock.open(errors="replace") as text:
            return any(line.startswith(_YARN_BERRY) for _, line in zip(range(20), text))
    except OSError:
        return False


def plan(root: pathlib.Path, npm: str, node: str, tools: pathlib.Path, registry: str,
         cache: pathlib.Path) -> Plan:
    """How to install the app at ``root`` (its lockfile decides the manager)."""
    found = lockfile_of(root)
    common = ("--ignore-scripts", f"--registry={registry}")
    if found is None or found[0] == "npm":
        npm_args = ("--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
                    f"--registry={registry}", f"--cache={cache}")
        if found is None:
            return Plan("npm", None, (npm, "install", "--no-package-lock", *npm_args), None)
        return Plan("npm", found[1], (npm, "ci", *npm_args), (npm, "install", *npm_args))
    manager, lockfile = found
    if manager == "pnpm":
        pnpm = (node, str(tools / "pnpm" / "bin" / "pnpm.cjs"), "install", *common,
                f"--store-dir={cache.parent / 'pnpm-store'}", "--config.node-linker=hoisted",
                "--config.confirmModulesPurge=false", "--reporter=append-only")
        return Plan("pnpm", lockfile, (*pnpm, "--frozen-lockfile"), (*pnpm, "--no-frozen-lockfile"),
                    note=f"installed by pnpm from its {lockfile}")
    yarn = (node, str(tools / "yarn" / "bin" / "yarn.js"), "install", *common, "--non-interactive",
            "--no-progress", f"--cache-folder={cache.parent / 'yarn-cache'}")
    return Plan("yarn", lockfile, (*yarn, "--frozen-lockfile"), yarn, note=f"installed by Yarn 1 from its {lockfile}")
