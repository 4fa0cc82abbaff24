"""What produced a set of results, for reproducibility: tool versions and the git
commit of this checkout. Read once per run (it starts a few short processes);
``producer()`` once per process (a stored result is reused only when it matches)."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import pathlib
import platform

from iwcbench.pipeline.contracts import layout
from iwcbench.pipeline.kits import browser, processes
from iwcbench.pipeline.stages.quality import tooling

NODE_PACKAGES = ("istanbul-lib-instrument", "axe-core")


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("iwc-bench", "playwright", "pydantic", "networkx", "anthropic"):
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[dist] = None
    for name, binary in (("chromium", _chromium()), ("node", _node())):
        try:
            done = processes.run([binary, "--version"], timeout_s=20) if binary else None
            found[name] = done.stdout.decode().strip() if done is not None and done.ok else None
        except (OSError, processes.ToolMissing):
            found[name] = None
    try:
        tools = processes.node_tools_dir()
    except processes.ToolMissing:
        tools = None
    for pkg in NODE_PACKAGES:
        manifest = tools / pkg / "package.json" if tools is not None else None
        found[pkg] = json.loads(manifest.read_text())["version"] if manifest and manifest.is_file() else None
    return found


@functools.cache
def producer() -> dict[str, str | None]:
    """Everything besides the app, its task and the settings that a score depends on:
    this project's version and commit, the runner image in a pod, the browsers' versions
    and the exact npm tools that measure (Lighthouse, axe-core, the linters, Istanbul:
    their installed lockfile's digest)."""
    found = {**versions(), "git_commit": git_commit(), "image": os.environ.get(layout.IMAGE_ENV)}
    firefox = tooling.firefox_path()
    try:
        done = processes.run([firefox, "--version"], timeout_s=20) if firefox else None
        found["firefox"] = done.stdout.decode().strip() if done is not None and done.ok else None
    except (OSError, processes.ToolMissing):
        found["firefox"] = None
    try:
        lock = processes.node_tools_dir() / ".package-lock.json"
        found["node-tools"] = digest(lock.read_bytes()) if lock.is_file() else None
    except processes.ToolMissing:
        found["node-tools"] = None
    return found


def _chromium() -> str | None:
    try:
        return browser.chromium_path()
    except RuntimeError:
        return None


def _node() -> str | None:
    try:
        return processes.node_binary()
    except processes.ToolMissing:
        return None


def git_commit() -> str | None:
    """The commit of this checkout, read from .git without running git."""
    root = pathlib.Path(__file__).resolve().parents[2]
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            target = root / ".git" / ref[5:]
            if target.is_file():
                return target.read_text().strip()
            packed = root / ".git" / "packed-refs"
            for line in packed.read_text().splitlines():
                if line.endswith(" " + ref[5:]):
                    return line.split()[0]
            return None
        return ref
    except OSError:
        return None


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()
