"""The local CDN mirror: answers public-CDN URLs from npm packages on disk.

Generated apps load libraries from CDNs; the sandbox has no internet. ``Mirror``
maps a CDN URL to an npm package, version and file (``parse``, pure), fetches the
package once through kits/npm.py, and returns the file (``resolve`` / ``lookup``).

Hosts: cdn.jsdelivr.net (/npm/..., ``/+esm``), esm.run, unpkg.com (``?module``),
cdnjs.cloudflare.com (names via kits/cdnjs.py; files found by path or by name),
esm.sh and cdn.skypack.dev (the package's ES module entry), and cdn.tailwindcss.com
(the Tailwind v3 Play CDN script, as republished byte-for-byte on npm by
``tailwindcss-cdn``).

ES modules: the entry is picked from ``exports`` (browser/import/module/default
conditions), then ``module``, ``browser``, ``main``, and must look like an ES module.
A URL that does not name the entry file gets a two-line stub that re-exports the file
from its canonical esm.sh URL (Chromium does not follow redirects given by a route
handler, and relative imports inside the file need its real URL). Bare imports in
served modules are rewritten to esm.sh URLs with the range from the package's
dependencies. What this cannot do: convert CommonJS to ESM (esm.sh does; React 18 on
esm.sh is CommonJS-only and gets a Miss), esm.sh's ``?bundle``/``?deps``/``?target``
options (ignored), jsdelivr ``/combine/``, ``/gh/`` and directory listings, GitHub
sources. This module does no routing and knows nothing of browsers (kits/routing.py).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import posixpath
import re
import urllib.parse
from typing import Any, Literal

from iwcbench.pipeline.kits.mirror import cdnjs, mediatypes, npm, semver

JSDELIVR = ("cdn.jsdelivr.net", "fastly.jsdelivr.net", "gcore.jsdelivr.net", "testingcf.jsdelivr.net")
HOSTS = frozenset(JSDELIVR + ("esm.run", "unpkg.com", "cdnjs.cloudflare.com", "esm.sh",
                              "cdn.skypack.dev", "cdn.tailwindcss.com"))
ESM_BASE = "https://esm.sh"  # canonical URLs of served modules (the mirror answers them)
FILE_BASE = "https://unpkg.com"  # canonical URLs of served files (for CSS @import stubs)
TAILWIND_PLAY_PACKAGE = "tailwindcss-cdn"  # copies of cdn.tailwindcss.com's script
TAILWIND_PLAY_VERSION = "3.4.10"  # pinned: the Play CDN's v3 script, reproducibly
TAILWIND_PLUGINS = frozenset({"forms", "typography", "aspect-ratio", "container-queries", "line-clamp"})
_CONDITIONS = frozenset({"browser", "import", "module", "default", "production", "development",
                         "es2015", "esm"})
_NAME = re.compile(r"^(?:@[A-Za-z0-9][\w.~-]*/)?[A-Za-z0-9][\w.~-]*$")
_BARE = re.compile(r"^((?:@[a-z0-9][\w.~-]*/)?[a-z0-9][\w.~-]*)(?:/(.+))?$")
_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(["'])([^"'\s]+)\2""")
_ESM_SYNTAX = re.compile(
    r"(?:^|[;}\s)])(?:export\s*(?:[{*]|default\b|const\b|let\b|var\b|function\b|class\b|async\b)"
    r"|import\s*(?:[{*\"']|[\w$]+\s*(?:,|from\b)))")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\]")
_DEFAULT_EXPORT = re.compile(r"\bexport\s+default\b|\bas\s+default\b")
_JS = (".js", ".mjs", ".cjs")
# Node's own modules: left as they are (a browser cannot load them from anywhere).
NODE_BUILTINS = frozenset({"assert", "buffer", "child_process", "crypto", "events", "fs", "http",
                           "https", "module", "net", "os", "path", "process", "stream", "tty",
                           "url", "util", "worker_threads", "zlib"})


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a CDN URL asks for."""

    host: str
    package: str
    range: str  # version, range or dist-tag; "" = latest
    path: str  # file inside the package; "" = the default file / ES module entry
    mode: Literal["file", "esm"] = "file"  # esm: serve an ES module (esm.sh, +esm, ...)
    loose: bool = False  # the file may sit elsewhere in the package (cdnjs): find it by name


@dataclasses.dataclass(frozen=True)
class Hit:
    body: bytes
    content_type: str
    package: str
    version: str
    path: str  # the file inside the package that answered

    @property
    def label(self) -> str:
        return f"{self.package}@{self.version}/{self.path}"


@dataclasses.dataclass(frozen=True)
class Miss:
    url: str
    reason: str


def _split(rest: str) -> tuple[str, str, str] | None:
    """``@scope/name@range/path`` → (package, range, path)."""
    rest = rest.lstrip("/")
    prefix = ""
    if rest.startswith("@"):
        scope, _, rest = rest.partition("/")
        prefix = scope + "/"
    head, _, path = rest.partition("/")
    name, _, wanted = head.partition("@")
    package = prefix + name
    safe = _safe_path(urllib.parse.unquote(path))
    if not _NAME.match(package) or safe is None:
        return None
    return package, urllib.parse.unquote(wanted).strip(), safe


def _safe_path(path: str) -> str | None:
    """A file path inside a package, as the URL gave it (decoded); None when it could
    name anything outside: absolute, ``..``, empty segments, backslashes, NUL or other
    control characters. ``.`` segments are dropped; a trailing ``/`` is kept."""
    if not path:
        return ""
    if _UNSAFE.search(path) or path.startswith("/"):
        return None
    directory = path.endswith("/")
    parts = [p for p in path.split("/") if p != "."]
    if directory:
        parts = parts[:-1]  # the "" after the trailing slash
    if any(p in ("", "..") for p in parts):
        return None
    return "/".join(parts) + ("/" if directory and parts else "")


def _tailwind(query: dict[str, list[str]], path: str) -> Spec | None:
    version = path.strip("/")
    if version and not re.fullmatch(r"\d+\.\d+\.\d+", version):
        return None
    plugins = sorted({p.strip() for p in ",".join(query.get("plugins", [])).split(",") if p.strip()})
    if not plugins:
        file = "tailwindcss.js"
    elif len(plugins) == 1 and plugins[0] in TAILWIND_PLUGINS:
        file = f"tailwindcss-with-{plugins[0]}.js"
    else:
        file = "tailwindcss-with-all-plugins.js"
    # Versioned copies sit in <version>/; a version not republished falls back to the pinned one.
    return Spec("cdn.tailwindcss.com", TAILWIND_PLAY_PACKAGE, TAILWIND_PLAY_VERSION,
                f"{version}/{file}" if version else file, "file", loose=True)


def parse(url: str) -> Spec | None:
    """The package, version and file a CDN URL asks for; None when the URL is not one
    the mirror understands. Pure."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or host not in HOSTS:
        return None
    path, query = parts.path, urllib.parse.parse_qs(parts.query, keep_blank_values=True)
    if host == "cdn.tailwindcss.com":
        return _tailwind(query, path)
    mode: Literal["file", "esm"] = "file"
    loose = False
    if host in JSDELIVR:
        if not path.startswith("/npm/"):
            return None  # /gh/, /combine/, /wp/: not npm packages
        rest = path[len("/npm/"):]
        if rest.endswith("/+esm"):
            rest, mode = rest[: -len("/+esm")], "esm"
    elif host == "esm.run":
        rest, mode = path, "esm"
    elif host == "unpkg.com":
        if path.startswith("/browse/"):
            return None
        rest = path
        mode = "esm" if "module" in query else "file"
    elif host == "esm.sh":
        rest = re.sub(r"^/(?:v\d+|stable)/", "/", path).lstrip("/").lstrip("*")
        if rest.split("/", 1)[0] in ("gh", "jsr", "pr", "build", "run", "tsx"):
            return None
        mode = "esm"
    elif host == "cdn.skypack.dev":
        rest = path
        if rest.startswith(("/-/", "/new/", "/error/")):
            return None
        mode = "esm"
    else:  # cdnjs.cloudflare.com
        m = re.fullmatch(r"/ajax/libs/([^/]+)/([^/]+)/(.+)", path)
        if not m:
            return None
        mapped = cdnjs.to_npm(urllib.parse.unquote(m[1]), urllib.parse.unquote(m[2]))
        split = _split(f"x/{m[3]}")
        if mapped is None or split is None or not split[2]:
            return None
        return Spec(host, mapped[0], mapped[1], split[2], "file", loose=True)
    split = _split(rest)
    if split is None:
        return None
    package, wanted, file = split
    if file.endswith("/") and host in JSDELIVR + ("unpkg.com",):
        return None  # a directory listing
    return Spec(host, package, wanted, file.rstrip("/"), mode, loose)


def _norm(value: Any) -> str | None:
    """A package.json path ("./dist/x.js") as a relative path; None when unusable."""
    if not isinstance(value, str):
        return None
    value = value.strip().replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    value = value.lstrip("/")
    if not value or ".." in value.split("/"):
        return None
    return value


def _condition(value: Any) -> str | None:
    """The target of an ``exports`` entry under browser/import conditions."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in value:
            found = _condition(item)
            if found:
                return found
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _CONDITIONS:
                found = _condition(item)
                if found:
                    return found
    return None


def _export_target(exports: Any, subpath: str) -> str | None:
    """``exports[subpath]`` (with ``*`` patterns) resolved under our conditions."""
    if exports is None:
        return None
    if not (isinstance(exports, dict) and any(k.startswith(".") for k in exports)):
        return _condition(exports) if subpath == "." else None
    if subpath in exports:
        return _condition(exports[subpath])
    for key, value in exports.items():
        if "*" in key:
            head, _, tail = key.partition("*")
            if subpath.startswith(head) and subpath.endswith(tail) and len(subpath) >= len(head) + len(tail):
                target = _condition(value)
                star = subpath[len(head): len(subpath) - len(tail)]
                return target.replace("*", star) if target else None
    return None


def _inside(folder: pathlib.Path, rel: str) -> pathlib.Path | None:
    """The regular file ``rel`` names in ``folder``, resolved by the kernel (links
    followed); None unless it exists and stays inside ``folder``. Every file the
    mirror reads goes through here: a planted link or an odd path cannot leave the
    package."""
    if not rel or _safe_path(rel) is None or rel.endswith("/"):
        return None
    try:
        root = folder.resolve(strict=True)
        real = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return real if real.is_relative_to(root) and real.is_file() else None


def _read(folder: pathlib.Path, rel: str) -> bytes:
    real = _inside(folder, rel)
    if real is None:  # callers found ``rel`` through _inside; it changed since
        raise FileNotFoundError(f"{rel} is not a file inside {folder}")
    return real.read_bytes()


def looks_like_esm(text: str) -> bool:
    return bool(_ESM_SYNTAX.search(text))


class Mirror:
    """CDN URLs answered from npm packages in ``cache_dir`` (filled from ``registry``
    on a miss unless ``fetch`` is False). Safe to share between threads."""

    parse = staticmethod(parse)

    def __init__(self, cache_dir: pathlib.Path, registry: str = npm.DEFAULT_REGISTRY,
                 fetch: bool = True, limits: npm.Limits = npm.Limits()) -> None:
        self.packages = npm.Packages(pathlib.Path(cache_dir), registry, fetch, limits)
        self._manifests: dict[pathlib.Path, dict[str, Any]] = {}
        self._listings: dict[pathlib.Path, list[str]] = {}

    def resolve(self, url: str) -> Hit | None:
        """The file for ``url``; None when the mirror cannot answer it."""
        found = self.lookup(url)
        return found if isinstance(found, Hit) else None

    def lookup(self, url: str) -> Hit | Miss:
        """Like ``resolve``, with the reason when there is no answer."""
        spec = parse(url)
        if spec is None:
            return Miss(url, "not a CDN URL the mirror understands")
        try:
            version, folder = self.packages.get(spec.package, spec.range)
        except npm.PackageError as error:
            return Miss(url, str(error))
        manifest = self._manifest(folder)
        if spec.mode == "esm":
            return self._module(url, spec, version, folder, manifest)
        return self._file(url, spec, version, folder, manifest)

    # ---- files -----------------------------------------------------------------
    def _file(self, url: str, spec: Spec, version: str, folder: pathlib.Path,
              manifest: dict[str, Any]) -> Hit | Miss:
        if spec.path:
            rel = self._find(folder, spec.path, spec.loose)
            if rel is None:
                return Miss(url, f"{spec.package}@{version} has no file {spec.path}")
            return self._hit(spec, version, folder, rel)
        rel = self._default_file(spec.host, folder, manifest)
        if rel is None:
            return Miss(url, f"{spec.package}@{version} names no default file")
        if rel.endswith(".css"):
            # Served at the bare package URL, its relative url()s would miss: import it instead.
            stub = f'@import url("{FILE_BASE}/{spec.package}@{version}/{rel}");\n'
            return Hit(stub.encode(), mediatypes.content_type(rel), spec.package, version, rel)
        return self._hit(spec, version, folder, rel)

    def _hit(self, spec: Spec, version: str, folder: pathlib.Path, rel: str, body: bytes | None = None) -> Hit:
        data = body if body is not None else _read(folder, rel)
        return Hit(data, mediatypes.content_type(rel), spec.package, version, rel)

    def _default_file(self, host: str, folder: pathlib.Path, manifest: dict[str, Any]) -> str | None:
        own = ["jsdelivr", "unpkg"] if host in JSDELIVR else ["unpkg", "jsdelivr"]
        for field in own + ["browser", "main"]:
            rel = _norm(manifest.get(field))
            found = self._find(folder, rel, False) if rel else None
            if found:
                return found
        return self._find(folder, "index.js", False)

    def _is_file(self, folder: pathlib.Path, rel: str) -> bool:
        return _inside(folder, rel) is not None

    def _find(self, folder: pathlib.Path, path: str, loose: bool) -> str | None:
        """The package file a URL path means: exact, then as jsdelivr/unpkg guess
        (``.js``, ``/index.js``, the unminified twin of a ``.min`` file), then (loose)
        the same relative path deeper in the package, then the same file name."""
        path = path.strip("/")
        candidates = [path, path + ".js", path + ".mjs", path + "/index.js", path + "/index.mjs"]
        unminified = re.sub(r"\.min\.(js|css|mjs)$", r".\1", path)
        if unminified != path:
            candidates.append(unminified)
        for rel in candidates:
            if self._is_file(folder, rel):
                return rel
        if not loose:
            return None
        files = self._listing(folder)
        wanted = {path.lower(), unminified.lower()}
        deeper = [f for f in files if any(f.lower().endswith("/" + w) for w in wanted)]
        names = {posixpath.basename(w) for w in wanted}
        by_name = deeper or [f for f in files if posixpath.basename(f.lower()) in names]
        if not by_name:
            return None
        builds = ("dist", "build", "lib", "umd", "min", "js", "css")

        def rank(rel: str) -> tuple:
            minified = ".min." in rel and ".min." in path
            return (rel.split("/", 1)[0] not in builds, not minified, rel.count("/"), len(rel), rel)

        return min(by_name, key=rank)

    def _listing(self, folder: pathlib.Path) -> list[str]:
        if folder not in self._listings:
            files: list[str] = []
            for base, _dirs, names in os.walk(folder):
                rel_base = pathlib.Path(base).relative_to(folder).as_posix()
                files.extend(n if rel_base == "." else f"{rel_base}/{n}" for n in names)
            self._listings[folder] = sorted(files)
        return self._listings[folder]

    def _manifest(self, folder: pathlib.Path) -> dict[str, Any]:
        if folder not in self._manifests:
            try:
                data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            self._manifests[folder] = data if isinstance(data, dict) else {}
        return self._manifests[folder]

    # ---- ES modules ------------------------------------------------------------
    def _module(self, url: str, spec: Spec, version: str, folder: pathlib.Path,
                manifest: dict[str, Any]) -> Hit | Miss:
        exports = manifest.get("exports")
        if spec.path:
            exported = _norm(_export_target(exports, "./" + spec.path))
            rel = (spec.path if self._is_file(folder, spec.path) else None) \
                or (self._find(folder, exported, False) if exported else None) \
                or self._find(folder, spec.path, False)
            if rel is None:
                return Miss(url, f"{spec.package}@{version} has no module {spec.path}")
        else:
            rel = self._module_entry(folder, manifest)
            if rel is None:
                return Miss(url, f"{spec.package}@{version} has no ES module entry (CommonJS or a "
                                 "browser-global build only); the mirror does not convert modules")
        if not rel.endswith(_JS):
            return self._hit(spec, version, folder, rel)  # CSS, JSON, WASM: as they are
        text = _read(folder, rel).decode("utf-8", errors="replace")
        if not looks_like_esm(text):
            return Miss(url, f"{spec.package}@{version}/{rel} is not an ES module; "
                             "the mirror does not convert CommonJS")
        canonical = f"{ESM_BASE}/{spec.package}@{version}/{rel}"
        asked = urllib.parse.urlsplit(url)
        if spec.host == "esm.sh" and f"https://esm.sh{asked.path}" == canonical:
            return self._hit(spec, version, folder, rel, _rewrite_imports(text, manifest, version).encode())
        lines = [f'export * from "{canonical}";']
        if _DEFAULT_EXPORT.search(text):
            lines.append(f'export {{ default }} from "{canonical}";')
        return Hit(("\n".join(lines) + "\n").encode(), mediatypes.content_type(rel),
                   spec.package, version, rel)

    def _module_entry(self, folder: pathlib.Path, manifest: dict[str, Any]) -> str | None:
        browser = manifest.get("browser") if isinstance(manifest.get("browser"), str) else None
        for value in (_export_target(manifest.get("exports"), "."), manifest.get("module"),
                      browser, manifest.get("main"), "index.js"):
            rel = _norm(value)
            found = self._find(folder, rel, False) if rel else None
            if found and found.endswith(_JS) and not found.endswith(".cjs"):
                text = _read(folder, found).decode("utf-8", errors="replace")
                if looks_like_esm(text):
                    return found
        return None


def _rewrite_imports(text: str, manifest: dict[str, Any], own_version: str) -> str:
    """Bare specifiers (``import x from "dep"``) → esm.sh URLs the mirror answers,
    with the range the package declares for that dependency; ``process.env.NODE_ENV``
    → ``"production"``."""
    declared: dict[str, Any] = {}
    for field in ("optionalDependencies", "peerDependencies", "dependencies"):
        if isinstance(manifest.get(field), dict):
            declared.update(manifest[field])
    own = manifest.get("name")

    def swap(match: re.Match) -> str:
        spec = match[3]
        bare = _BARE.match(spec)
        if spec.startswith((".", "/")) or ":" in spec or not bare or bare[1] in NODE_BUILTINS:
            return match[0]
        name, sub = bare[1], bare[2]
        wanted = own_version if name == own else str(declared.get(name, ""))
        if wanted and semver.parse_range(wanted) is None:
            wanted = ""  # workspace:, npm:, git URLs: take the latest
        target = f"{ESM_BASE}/{name}" + (f"@{urllib.parse.quote(wanted)}" if wanted else "") \
            + (f"/{sub}" if sub else "")
        return f"{match[1]}{match[2]}{target}{match[2]}"

    # What a bundler's "define" does: "esm-bundler" builds (Vue's) read it at load time.
    return _IMPORT.sub(swap, text).replace("process.env.NODE_ENV", '"production"')
