"""Why a build-framework app cannot be installed or built: pure checks and log reading.

``lockfile_problem(root, registry)`` says, before anything runs, whether the app can be
installed from the registry alone: an npm lockfile must be there, and every package in
it must come from the registry (not git, a tarball URL elsewhere, or a folder outside
the app). ``failure_reason(step, confined)`` turns a failed install or build into the
sentence the report shows: over a limit, a dependency not on the registry, a build
that needs a network service, or the step's own error. ``environment_caused(reason)``
says which of those sentences blame this environment rather than the app: a build that
needs a network service, a dependency from a git repository or another host (the app
installs with the internet; here installs reach one registry), and an Astro server build
for another host's adapter. Nothing here runs or writes anything.
"""

from __future__ import annotations

import json
import pathlib
import re
import urllib.parse
from typing import Protocol

from iwcbench.pipeline.stages.instrumenting import installing

NPM_REGISTRY = "https://registry.npmjs.org"  # npm rewrites this host to the configured registry
LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
OTHER_LOCKFILES = ("yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock")
NAMED = 3  # offending packages named in a reason

# Signs in a build log that the build tried to reach a service over the network.
_NETWORK = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|getaddrinfo"
    r"|fetch failed|Failed to fetch|socket hang up|network request failed",
    re.IGNORECASE)
_HOST = re.compile(r"(?:https?://|getaddrinfo \w+ |ENOTFOUND |EAI_AGAIN )([A-Za-z0-9.-]+\.[A-Za-z]{2,})")
_NOT_ON_REGISTRY = re.compile(r"npm error (?:code )?E404|404 Not Found - GET (\S+)|is not in this registry"
                              r'|ERR_PNPM_FETCH_404|error An unexpected error occurred: "\S+: Request failed \\"404')
_ETARGET = re.compile(r"No matching version found for (\S+?)\.?$", re.MULTILINE)
_E404_NAMED = re.compile(r"'((?:@[^/\s']+/)?[^@\s']+)@[^\s']*' is not in this registry")
_E404_URL = re.compile(r"404 Not Found - GET (\S+)|ERR_PNPM_FETCH_404\s+GET (\S+?):? Not Found"
                       r'|An unexpected error occurred: "(\S+?): Request failed \\"404')  # npm, pnpm, Yarn 1
# The words of the reasons written here that blame this environment (environment_caused):
NO_NETWORK = "and builds have no network"  # a build that reached for a network it does not have
OFF_REGISTRY = "dependency not on the registry: "
OUTSIDE_APP = "a folder outside the app"  # (an off-registry entry that is the app's own fault)
# An Astro server build for another host (Vercel, Netlify, Cloudflare, Deno): only
# @astrojs/node's server runs here, which is this environment's limit too.
OTHER_HOST = "builds for its own host; only @astrojs/node's server can be run here"
# The same for a Nitro app (Nuxt, SolidStart) built for a host's runtime (vercel-edge, ...)
OTHER_RUNTIME = "builds for that host's runtime; only Nitro's Node server output can be run here"
_MORE = re.compile(r" and \d+ more$")


class Finished(Protocol):
    """What confined.run reports (only what reasons need)."""

    @property
    def returncode(self) -> int | None: ...

    @property
    def killed_for(self) -> str | None: ...

    @property
    def log_tail(self) -> str: ...


def lockfile_problem(root: pathlib.Path, registry: str) -> str | None:
    """Why the app cannot be installed from ``registry`` alone, or None when it can."""
    lock = next((root / n for n in LOCKFILES if (root / n).is_file()), None)
    if lock is None and installing.lockfile_of(root) is not None:
        return None  # pnpm's or Yarn 1's: installed from it by that manager (installing.py)
    if lock is None:
        others = [n for n in OTHER_LOCKFILES if (root / n).is_file()]
        if others:
            return (f"missing lockfile: no lockfile the build step installs from (the app has {others[0]}; "
                    f"npm, pnpm and Yarn 1 lockfiles are installed)")
        return ("missing lockfile: package.json without package-lock.json, so the "
                "dependency versions the app was built with are unknown")
    try:
        data = json.loads(lock.read_bytes())
    except (OSError, ValueError) as error:
        return f"unreadable lockfile {lock.name}: {error}"
    if not isinstance(data, dict):
        return f"unreadable lockfile {lock.name}: not a JSON object"
    offending = off_registry(data, registry)
    if offending:
        more = f" and {len(offending) - NAMED} more" if len(offending) > NAMED else ""
        named = "; ".join(f"{name} from {where}" for name, where in offending[:NAMED])
        return f"{OFF_REGISTRY}{named}{more}"
    return None


def environment_caused(reason: str) -> bool:
    """Whether a failed build's ``reason`` (as this module words it) is this environment's
    limit rather than the app's defect."""
    if f"), {NO_NETWORK}" in reason or OTHER_HOST in reason or OTHER_RUNTIME in reason:
        return True
    if not reason.startswith(OFF_REGISTRY):
        return False
    # lockfile_problem's entries: every one from git or another host (not a folder outside
    # the app); a 404 or a missing version names no "from" and is the app's
    entries = _MORE.sub("", reason[len(OFF_REGISTRY):]).split("; ")
    return all(" from " in e and f" from {OUTSIDE_APP}" not in e for e in entries)


def off_registry(lock: dict, registry: str) -> list[tuple[str, str]]:
    """(package, where it comes from) for every lockfile entry not from the registry."""
    allowed = tuple(r.rstrip("/") + "/" for r in {registry, NPM_REGISTRY})
    found: list[tuple[str, str]] = []
    packages = lock.get("packages")
    if isinstance(packages, dict):  # lockfileVersion 2 and 3
        for path, entry in packages.items():
            if not path or path.startswith("..") or not isinstance(entry, dict):
                continue  # "" is the app itself; "../x" a link's target, named by the link
            name = entry.get("name") or path.rsplit("node_modules/", 1)[-1]
            problem = _entry_problem(entry, allowed)
            if problem:
                found.append((name, problem))
        return found
    _walk_v1(lock.get("dependencies"), allowed, found)  # lockfileVersion 1
    return found


def _entry_problem(entry: dict, allowed: tuple[str, ...]) -> str | None:
    if entry.get("link"):
        target = str(entry.get("resolved") or "")
        outside = target.startswith(("..", "/")) or ":" in target
        return f"{OUTSIDE_APP} ({target})" if outside else None
    if entry.get("inBundle") or entry.get("bundled"):
        return None  # shipped inside its parent's tarball
    resolved = entry.get("resolved")
    if resolved is None:
        return None  # optional platform packages npm skipped; npm ci resolves them
    if not isinstance(resolved, str) or not resolved.startswith(allowed):
        return str(resolved)
    return None


def _walk_v1(deps: object, allowed: tuple[str, ...], found: list[tuple[str, str]]) -> None:
    if not isinstance(deps, dict):
        return
    for name, entry in deps.items():
        if not isinstance(entry, dict):
            continue
        version = str(entry.get("version", ""))
        if not entry.get("bundled") and entry.get("resolved") is None and ":" in version:
            found.append((name, version))  # "github:user/repo", "file:../x"
        else:
            problem = _entry_problem(entry, allowed)
            if problem:
                found.append((name, problem))
        _walk_v1(entry.get("dependencies"), allowed, found)


def failure_reason(step: str, done: Finished, limit_s: float, memory_bytes: int | None) -> str:
    """One sentence for a failed ``step`` ("install", "instrumented build", "build")."""
    if done.killed_for == "time":
        return f"{step} over its time limit ({limit_s:g} s)"
    if done.killed_for == "memory":
        return f"{step} over its memory limit ({(memory_bytes or 0) // 2**20} MiB)"
    if done.killed_for == "disk":
        return f"{step} over its disk limit"
    if done.killed_for == "cpu":
        return f"{step} over its CPU time limit"
    tail = done.log_tail
    if step == "install" and out_of_sync(tail):
        missing = re.search(r"(Missing: \S+(?: from lock file)?|Invalid: lock file's \S+ does not satisfy \S+)", tail)
        return f"lockfile does not match package.json ({missing.group(1) if missing else 'npm ci refused it'})"
    if step == "install" and (target := _ETARGET.search(tail)):
        wanted = target.group(1)
        return f"{OFF_REGISTRY}no version matching {wanted}"
    if step == "install" and _NOT_ON_REGISTRY.search(tail):
        return f"{OFF_REGISTRY}{_missing_package(tail)} (npm: 404 Not Found)"
    sign = _NETWORK.search(tail) if step != "install" else None
    if sign:
        host = _HOST.search(tail)
        return f"{step} needs a network service ({host.group(1) if host else sign.group(0)}), {NO_NETWORK}"
    return f"{step} failed (exit {done.returncode}): {last_error_line(tail)}"


_OUT_OF_SYNC = (
    "can only install packages when your package.json and package-lock.json",  # npm ci
    "ERR_PNPM_OUTDATED_LOCKFILE", "ERR_PNPM_LOCKFILE_CONFIG_MISMATCH",  # pnpm --frozen-lockfile
    "Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`",  # Yarn 1
)


def stale_metadata(tail: str) -> bool:
    """npm found no such version in the package metadata it read (from its cache, with
    --prefer-offline: a version published since the cache fetched it is missing there)."""
    return bool(_ETARGET.search(tail))


def out_of_sync(tail: str) -> bool:
    """The frozen install refused the lockfile because package.json asks for something else."""
    return any(sign in tail for sign in _OUT_OF_SYNC)


def _missing_package(tail: str) -> str:
    named = _E404_NAMED.search(tail)
    if named:
        return named.group(1)
    url = _E404_URL.search(tail)
    if not url:
        return "a package"
    path = urllib.parse.urlsplit(next(g for g in url.groups() if g)).path.replace("%2f", "/").replace("%2F", "/")
    # A tarball (/name/-/file.tgz, /@scope/name/-/file.tgz) or a packument (/name).
    return path.split("/-/", 1)[0].strip("/") or "a package"


def last_error_line(tail: str, chars: int = 300) -> str:
    """The most telling line of a log's end: the last one that names an error, with the
    line after it when it is only a heading ("error during build:", "Failed to compile.")."""
    lines = [line.strip() for line in tail.splitlines()
             if line.strip() and not line.startswith("$ ") and not line.strip().startswith("at ")
             and "A complete log of this run can be found in" not in line]
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if not re.search(r"\berror\b|\bfailed\b|Error:", line, re.IGNORECASE):
            continue
        if _HEADING.search(line) and index + 1 < len(lines):
            line = f"{line} {lines[index + 1]}"
        return line[:chars]
    return (lines[-1] if lines else "no output")[:chars]


_HEADING = re.compile(r"(:|Failed to compile\.?)$")
