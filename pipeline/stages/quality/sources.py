"""The app's authored sources: which files count, and the code units inside them.

``keep(root)`` reads an app as it was submitted (before instrumenting) and keeps its
HTML, CSS and JavaScript, leaving out what the model did not write: dependencies
(node_modules, bower_components), minified files and copies of well-known libraries.
``units(sources)`` splits pages into their inline ``<style>`` and ``<script>`` blocks, so
every linter sees code of its own language with the page's line numbers.

It reads regular files under ``root`` only (links are skipped: one could point outside),
never the network or the store, and never executes anything.
"""

from __future__ import annotations

import dataclasses
import html.parser
import pathlib
import re

from iwcbench.pipeline.contracts import quality as records

LANGUAGES = {".html": "html", ".htm": "html", ".css": "css", ".js": "js", ".mjs": "js", ".cjs": "js", ".jsx": "js"}
SKIPPED_DIRS = {"node_modules", "bower_components", ".git", ".iwc", "__MACOSX"}
MAX_FILE_BYTES = 500_000
# File names of libraries a model copies in rather than writes (checked on the stem).
VENDOR = re.compile(
    r"^(jquery|bootstrap|chart|three|lodash|underscore|react(-dom)?|vue|angular|d3|moment|axios|"
    r"tailwind(css)?|popper|font-?awesome|all|normalize|reset|swiper|gsap|anime|leaflet|p5|phaser|"
    r"highlight|prism|marked|dompurify|alpine|htmx|bulma|materialize|semantic|foundation|animate)"
    r"([.-]\d[\w.-]*)?([.-](bundle|umd|esm|slim|core|all))?$", re.IGNORECASE)
MINIFIED_NAME = re.compile(r"[.-]min\.(m?js|css)$", re.IGNORECASE)
LONG_LINE = 500  # characters; a file whose typical line is longer is minified
_JS_TYPES = {"", "text/javascript", "application/javascript", "module", "text/babel", "text/jsx"}


def _minified(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    return len(lines) <= 3 and max(len(line) for line in lines) > LONG_LINE or \
        sum(len(line) for line in lines) / len(lines) > LONG_LINE


def keep(root: pathlib.Path, max_bytes: int = 1_000_000) -> records.AppSources:
    """The authored HTML, CSS and JavaScript under ``root``, up to ``max_bytes`` of text
    in path order (a page before its scripts when both fit)."""
    root = pathlib.Path(root)
    inside = root.resolve()
    files, skipped, used = [], [], 0
    # links are not the app's code, and one could point anywhere on this machine
    candidates = sorted((p for p in root.rglob("*") if p.suffix.lower() in LANGUAGES and not p.is_symlink()
                         and p.is_file() and inside in p.resolve().parents),
                        key=lambda p: (LANGUAGES[p.suffix.lower()] != "html", len(p.parts), str(p)))
    for path in candidates:
        rel = path.relative_to(root).as_posix()
        if set(path.relative_to(root).parts[:-1]) & SKIPPED_DIRS:
            continue
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            skipped.append(records.SkippedSource(path=rel, reason=f"over {MAX_FILE_BYTES:,} bytes"))
            continue
        stem = path.name[: -len(path.suffix)]
        if MINIFIED_NAME.search(path.name) or VENDOR.match(stem.removesuffix(".min")):
            skipped.append(records.SkippedSource(path=rel, reason="a library, not the app's own code"))
            continue
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            skipped.append(records.SkippedSource(path=rel, reason="not UTF-8 text"))
            continue
        if _minified(text):
            skipped.append(records.SkippedSource(path=rel, reason="minified"))
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
    for a page's inline block; ``first_line`` is where it starts in its file (1-based)."""

    name: str
    language: str  # html | css | js
    text: str
    first_line: int = 1
    module: bool = False
    skeleton: str | None = None  # a page with its inline blocks blanked (their lines are their units')

    def job(self) -> dict:
        """The unit as static.mjs reads it."""
        return {"name": self.name, "language": self.language, "text": self.text, "skeleton": self.skeleton,
                "first_line": self.first_line, "module": self.module}


class _Blocks(html.parser.HTMLParser):
    """Inline <script> and <style> blocks of a page, with the line each starts on."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.blocks: list[tuple[str, int, str, bool]] = []  # (css|js, line, text, module)
        self._open: tuple[str, int, bool] | None = None
        self._parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "style":
            self._open = ("css", self.getpos()[0], False)
        elif tag == "script" and "src" not in found and (found.get("type") or "").strip().lower() in _JS_TYPES:
            self._open = ("js", self.getpos()[0], (found.get("type") or "").strip().lower() == "module")
        self._parts = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag in ("style", "script"):
            language, line, module = self._open
            text = "".join(self._parts)
            if text.strip():
                self.blocks.append((language, line, text, module))
            self._open = None


def units(sources: records.AppSources) -> list[Unit]:
    """Every code unit: pages as HTML, their inline blocks, CSS and JS files."""
    out: list[Unit] = []
    for f in sources.files:
        if f.language != "html":
            out.append(Unit(f.path, f.language, f.text, module=f.path.endswith(".mjs")))
            continue
        parser = _Blocks()
        try:
            parser.feed(f.text)
            parser.close()
        except (AssertionError, ValueError):
            parser.blocks = []  # HTMLHint reports what is wrong with the page itself
        counters = {"css": 0, "js": 0}
        skeleton, cursor, blocks = [], 0, []
        for language, line, text, module in parser.blocks:
            counters[language] += 1
            kind = "style" if language == "css" else "script"
            # a block's text starts on its tag's line, so its line n is the page's line + n - 1
            blocks.append(Unit(f"{f.path}#{kind}-{counters[language]}", language, text, line, module))
            at = f.text.find(text, cursor)
            if at >= 0:
                skeleton += [f.text[cursor:at], "\n" * text.count("\n")]
                cursor = at + len(text)
        skeleton.append(f.text[cursor:])
        out.append(Unit(f.path, "html", f.text, skeleton="".join(skeleton)))
        out.extend(blocks)
    return out


def non_blank_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())
