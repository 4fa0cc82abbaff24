"""The app's authored sources: which files count, and the code units inside them.

``keep(root)`` reads an app as it was submitted (before instrumenting) and keeps its
pages, components, style sheets and scripts — HTML, Vue/Svelte/Astro single-file
components, CSS/SCSS/Less, JavaScript/TypeScript (.jsx/.tsx too) — leaving out what the
model did not write. What is not the app's own is decided by content, never by a file's
name (an app's own chart.js or reset.css stays): dependency folders (node_modules,
bower_components), a library banner at the top of the file (the rule of
stages/instrumenting/vendor.js, widened for style sheets: a loud ``/*!`` or licence
comment naming a version or a known library), a source map whose sources are under node_modules (a library) or are
files kept here (a build of the app's own code), and minified text (a few very long
lines). ``units(sources)`` splits pages and components into their inline ``<style>`` and
``<script>`` blocks (and an Astro file's frontmatter), so every tool sees code of its own
language with the file's line numbers.

It reads regular files under ``root`` only (links are skipped: one could point outside),
never the network or the store, and never executes anything.
"""

from __future__ import annotations

import base64
import dataclasses
import html.parser
import json
import pathlib
import re
import urllib.parse

from iwcbench.pipeline.contracts import quality as records

LANGUAGES = {".html": "html", ".htm": "html", ".vue": "vue", ".svelte": "svelte", ".astro": "astro",
             ".css": "css", ".scss": "scss", ".less": "less",
             ".js": "js", ".mjs": "js", ".cjs": "js", ".jsx": "js", ".ts": "ts", ".mts": "ts", ".cts": "ts",
             ".tsx": "ts"}
PAGES = {"html", "vue", "svelte", "astro"}  # markup with inline blocks
COMPONENTS = {"vue", "svelte", "astro"}
SKIPPED_DIRS = {"node_modules", "bower_components", "jspm_packages", ".git", ".iwc", "__MACOSX"}
MAX_FILE_BYTES = 500_000
LONG_LINE = 500  # characters; a file whose typical line is longer is minified
BANNER_HEAD = 1500  # characters of a file searched for a library banner (as vendor.js)
_JS_TYPES = {"", "text/javascript", "application/javascript", "module", "text/babel", "text/jsx"}
_TS_LANGS = {"ts", "tsx", "typescript"}
_JS_LANGS = {"", "js", "jsx", "javascript"}
_STYLE_LANGS = {"": "css", "css": "css", "scss": "scss", "less": "less"}
# vendor.js's rule (a leading comment that is loud, /*!, or carries a licence, and names a
# version or a well-known library), widened for style sheets: after an @charset, "License:"
# (Eric Meyer's reset), normalize.css, animate.css, Font Awesome
_LEADING_COMMENT = re.compile(r"^\s*(?:@charset[^;]*;\s*)?(?:['\"]use strict['\"];?\s*)?"
                              r"(/\*[\s\S]*?\*/|(?://[^\n]*\n\s*)+)")
_LIBRARIES = re.compile(
    r"\b(jquery|react|react-dom|vue|angular|lodash|underscore|bootstrap|chart\.js|d3|three\.js|three|phaser|"
    r"pixi|gsap|moment|axios|leaflet|anime\.js|p5\.js|p5|tailwind|alpine|preact|svelte|zone\.js|rxjs|core-js|"
    r"regenerator|babel|tslib|hammer|howler|matter\.js|konva|fabric|highlight\.js|marked|dompurify|luxon|dayjs|"
    r"immutable|normalize\.css|animate\.css|font awesome)\b", re.IGNORECASE)
_LICENSED = re.compile(r"@license|@preserve|Released under the|Licensed under|MIT License|\bBSD\b|Apache License|"
                       r"\bLicense:", re.IGNORECASE)
_VERSION = re.compile(r"\bv?\d+\.\d+(\.\d+)?\b")
_MAP_COMMENT = re.compile(r"[#@]\s*sourceMappingURL=([^\s'\"*]+)")
_VENDORED_SOURCE = re.compile(r"(^|[/\\])(node_modules|bower_components|jspm_packages)[/\\]|webpack[/\\](runtime|"
                              r"bootstrap)|\(webpack\)|^/?\(?vite/|commonjsHelpers|\x00")


def _minified(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    return len(lines) <= 3 and max(len(line) for line in lines) > LONG_LINE or \
        sum(len(line) for line in lines) / len(lines) > LONG_LINE


def banner(text: str) -> str | None:
    """The library a file's leading comment announces ("library banner (Chart.js v4.4.1)"),
    or None: the same rule as stages/instrumenting/vendor.js."""
    found = _LEADING_COMMENT.match(text[:BANNER_HEAD])
    if not found:
        return None
    comment = found.group(1)
    named = _LIBRARIES.search(comment)
    if not ((_LICENSED.search(comment) or comment.startswith("/*!")) and (named or _VERSION.search(comment))):
        return None
    lines = (re.sub(r"\*/\s*$", "", re.sub(r"^\s*(/\*!?|\*/|\*|//)\s*", "", line)).strip()
             for line in comment.splitlines())
    first = next((line for line in lines if line), named.group(1) if named else "a library")
    return f"library banner ({first[:60]})"


def _map_sources(text: str, path: pathlib.Path, inside: pathlib.Path) -> list[str] | None:
    """The ``sources`` of a file's source map (inline, or a file inside the app), or None."""
    found = _MAP_COMMENT.findall(text[-4096:])
    if not found:
        return None
    url = found[-1]
    try:
        if url.startswith("data:"):
            meta, _, body = url[5:].partition(",")
            raw = base64.b64decode(body).decode("utf-8") if ";base64" in meta else urllib.parse.unquote(body)
        elif re.match(r"^[a-z][a-z0-9+.-]*:|^//", url, re.IGNORECASE):
            return None  # remote: never fetched
        else:
            target = (path.parent / urllib.parse.unquote(url.split("?")[0].split("#")[0])).resolve()
            if inside not in target.parents or not target.is_file() or target.stat().st_size > 20 * MAX_FILE_BYTES:
                return None
            raw = target.read_text(encoding="utf-8")
        sources = json.loads(raw).get("sources")
    except (ValueError, OSError, AttributeError):
        return None
    return [str(s) for s in sources] if isinstance(sources, list) else None


def _not_own(text: str, path: pathlib.Path, root: pathlib.Path, inside: pathlib.Path,
             authored: set[str]) -> str | None:
    """Why a file is not the app's own code, judged by its content; None: it is."""
    found = banner(text)
    if found:
        return f"a library, not the app's own code: {found}"
    sources = _map_sources(text, path, inside)
    if sources:
        if all(_VENDORED_SOURCE.search(s) for s in sources):
            return "a library, not the app's own code: its source map points into node_modules"
        base = path.parent.relative_to(root) if path.parent != root else pathlib.PurePosixPath()
        built = [s for s in sources if _normal(base, s) in authored]
        if built and len(built) == len(sources) - sum(1 for s in sources if _VENDORED_SOURCE.search(s)):
            return f"built from the app's own sources ({', '.join(sorted(_normal(base, s) for s in built)[:3])})"
    if _minified(text):
        return "minified"
    return None


def _normal(base: pathlib.PurePath, source: str) -> str:
    """A source map's source as a path relative to the app root (``webpack://app/./src/a.ts``
    → ``src/a.ts``, ``../src/a.ts`` from ``dist/`` → ``src/a.ts``)."""
    source = re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*/", "", source, flags=re.IGNORECASE).split("?")[0]
    parts: list[str] = []
    for part in (*pathlib.PurePosixPath(base.as_posix()).parts, *source.split("/")):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


def keep(root: pathlib.Path, max_bytes: int = 1_000_000) -> records.AppSources:
    """The authored sources under ``root``, up to ``max_bytes`` of text in path order (a
    page before its components, style sheets and scripts when all fit)."""
    root = pathlib.Path(root)
    inside = root.resolve()
    files, skipped, used = [], [], 0
    # links are not the app's code, and one could point anywhere on this machine
    candidates = sorted((p for p in root.rglob("*") if p.suffix.lower() in LANGUAGES and not p.is_symlink()
                         and p.is_file() and inside in p.resolve().parents
                         and not set(p.relative_to(root).parts[:-1]) & SKIPPED_DIRS),
                        key=lambda p: (LANGUAGES[p.suffix.lower()] != "html", len(p.parts), str(p)))
    authored = {p.relative_to(root).as_posix() for p in candidates}
    for path in candidates:
        rel = path.relative_to(root).as_posix()
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            skipped.append(records.SkippedSource(path=rel, reason=f"over {MAX_FILE_BYTES:,} bytes"))
            continue
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            skipped.append(records.SkippedSource(path=rel, reason="not UTF-8 text"))
            continue
        why = ("type declarations only, no code (.d.ts)" if path.name.lower().endswith(".d.ts")
               else _not_own(text, path, root, inside, authored - {rel}))
        if why is not None:
            skipped.append(records.SkippedSource(path=rel, reason=why))
            continue
        if used + len(text) > max_bytes:
            skipped.append(records.SkippedSource(path=rel, reason=f"past the {max_bytes:,}-byte source budget"))
            continue
        used += len(text)
        files.append(records.SourceFile(path=rel, language=LANGUAGES[path.suffix.lower()], text=text))
    return records.AppSources(files=tuple(files), skipped=tuple(skipped))


@dataclasses.dataclass(frozen=True)
class Unit:
    """One piece of code in one language. ``name`` is the file, or ``page.html#script-2``
    for a page's inline block; ``first_line`` is where it starts in its file (1-based).
    A page or component keeps the whole file as ``text`` and, as ``skeleton``, the file
    with its inline blocks blanked (their lines are their units')."""

    name: str
    language: str  # html | vue | svelte | astro | css | scss | less | js | ts
    text: str
    first_line: int = 1
    module: bool = False
    skeleton: str | None = None
    jsx: bool = False  # a script with JSX (.jsx, .tsx, lang="tsx"); plain JavaScript always allows it
    component: bool = False  # a component's script block: its template uses the top-level names

    def job(self) -> dict:
        """The unit as static.mjs reads it."""
        return {"name": self.name, "language": self.language, "text": self.text, "skeleton": self.skeleton,
                "first_line": self.first_line, "module": self.module, "jsx": self.jsx, "component": self.component}


class _Blocks(html.parser.HTMLParser):
    """Inline <script> and <style> blocks of a page or component, with the line each
    starts on; a ``lang`` attribute (``<script lang="ts">``, ``<style lang="scss">``)
    names the block's language, and blocks in a language no tool reads are left in the
    markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.blocks: list[tuple[str, int, str, bool, bool]] = []  # (language, line, text, module, jsx)
        self._open: tuple[str, int, bool, bool] | None = None
        self._parts: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: (v or "").strip().lower() for k, v in attrs}
        lang = found.get("lang", "")
        if tag == "style" and lang in _STYLE_LANGS:
            self._open = (_STYLE_LANGS[lang], self.getpos()[0], False, False)
        elif tag == "script" and "src" not in found and found.get("type", "") in _JS_TYPES | {"text/typescript"}:
            typed = lang in _TS_LANGS or found.get("type") == "text/typescript"
            if typed or lang in _JS_LANGS:
                self._open = ("ts" if typed else "js", self.getpos()[0],
                              found.get("type") == "module" or "setup" in found or lang != "" or typed,
                              lang == "tsx")
        self._parts = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag in ("style", "script"):
            language, line, module, jsx = self._open
            text = "".join(self._parts)
            if text.strip():
                self.blocks.append((language, line, text, module, jsx))
            self._open = None


_ESM = re.compile(r"^\s*(import\s*[\w{*'\"]|export\s)", re.MULTILINE)  # a module's own statements
_FRONTMATTER = re.compile(r"\A(\s*---[ \t]*\n)(.*?\n)---[ \t]*(\n|\Z)", re.DOTALL)


def units(sources: records.AppSources) -> list[Unit]:
    """Every code unit: pages and components as markup, their inline blocks (an Astro
    file's frontmatter is TypeScript), style sheets and scripts."""
    out: list[Unit] = []
    for f in sources.files:
        if f.language not in PAGES:
            module = f.path.endswith((".mjs", ".mts")) or (f.language in ("js", "ts") and bool(_ESM.search(f.text)))
            out.append(Unit(f.path, f.language, f.text, module=module, jsx=f.path.endswith((".jsx", ".tsx"))))
            continue
        text, blocks = f.text, []
        skeleton, cursor = [], 0
        front = _FRONTMATTER.match(text) if f.language == "astro" else None
        if front is not None:
            line = front.group(1).count("\n") + 1
            blocks.append(Unit(f"{f.path}#frontmatter", "ts", front.group(2), line, True, component=True))
            skeleton += [text[:front.start(2)], "\n" * front.group(2).count("\n")]
            cursor = front.end(2)
        parser = _Blocks()
        try:
            parser.feed(text[cursor:] if front is not None else text)
            parser.close()
        except (AssertionError, ValueError):
            parser.blocks = []  # HTMLHint reports what is wrong with the page itself
        offset = text.count("\n", 0, cursor)
        counters = {"css": 0, "js": 0}
        for language, line, block, module, jsx in parser.blocks:
            kind = "script" if language in ("js", "ts") else "style"
            if f.language in COMPONENTS and kind == "script":
                module = True  # a component's script is a module (imports, export default)
                language = "ts" if f.language == "astro" else language  # Astro's scripts are TypeScript
            counters["js" if kind == "script" else "css"] += 1
            # a block's text starts on its tag's line, so its line n is the file's line + n - 1
            blocks.append(Unit(f"{f.path}#{kind}-{counters['js' if kind == 'script' else 'css']}", language, block,
                               line + offset, module, jsx=jsx,
                               component=f.language in COMPONENTS and kind == "script"))
            at = text.find(block, cursor)
            if at >= 0:
                skeleton += [text[cursor:at], "\n" * block.count("\n")]
                cursor = at + len(block)
        skeleton.append(text[cursor:])
        out.append(Unit(f.path, f.language, text, skeleton="".join(skeleton)))
        out.extend(blocks)
    return out


def non_blank_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())
