"""Evidence of the WebCoderBench quality suite (issue 11): the app's own sources and
what the quality stage observed with its tools.

Stored beside the rest of an app's evidence (contracts/artifacts.py: ``SOURCES``,
``QUALITY``):

    sources.json    AppSources: the app's authored pages, components, style sheets and
                    scripts (HTML, Vue/Svelte/Astro, CSS/SCSS/Less, JavaScript/TypeScript) as submitted
                    (before instrumenting), for the linters, the duplication and comment
                    counts, the error-handling analysis and the static LLM judges
    quality.json    QualityReport: which tools ran, their versions, seconds and failures

Pure data: no I/O.
"""

from __future__ import annotations

from typing import Literal

from iwcbench.pipeline.contracts import base

# A kept file's language: pages (html), single-file components (vue, svelte, astro: markup
# with script and style blocks), style sheets (css, scss, less), scripts (js, ts; .jsx/.tsx
# are js/ts with JSX).
Language = Literal["html", "vue", "svelte", "astro", "css", "scss", "less", "js", "ts"]


class SourceFile(base.Model):
    """One authored file; ``path`` is relative to the app root."""

    path: str
    language: Language
    text: str


class SkippedSource(base.Model):
    path: str
    reason: str  # "minified", "vendor library", "over 500,000 bytes", "not UTF-8 text"


class AppSources(base.Stored):
    files: tuple[SourceFile, ...] = ()
    skipped: tuple[SkippedSource, ...] = ()


class ToolRun(base.Model):
    """One tool of the suite on one app: its version, how long it took, and why it
    failed when it did (the metrics it feeds are then unscored with that reason)."""

    version: str | None = None
    seconds: float = 0.0
    error: str | None = None


class QualityReport(base.Stored):
    tools: dict[str, ToolRun] = {}  # "lighthouse", "linters", "firefox", "chromium-probe", ...
    states_rendered: tuple[str, ...] = ()  # state ids whose DOM snapshots were rendered and probed
    states_reused: tuple[str, ...] = ()  # state ids probed by the explorer in its live page (not rendered)
    seconds: float = 0.0  # the whole stage, wall time (tools that run side by side overlap in it)
    metrics_s: float = 0.0  # computing the metrics (this process; partly while the tools run)
