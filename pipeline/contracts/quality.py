"""Evidence of the WebCoderBench quality suite (issue 11): the app's own sources and
what the quality stage observed with its tools.

Layout in the store, beside the rest of an app's evidence (``apps/<model>/<task_id>/``):

    sources.json    AppSources: the app's authored HTML, CSS and JavaScript as submitted
                    (before instrumenting), for the linters, the duplication and comment
                    counts, the error-handling analysis and the static LLM judges
    quality.json    QualityReport: which tools ran, their versions, seconds and failures

Pure data: no I/O.
"""

from __future__ import annotations

from typing import Callable, Literal

import pydantic

from iwcbench.pipeline.contracts import base

SOURCES = "sources.json"
REPORT = "quality.json"
Language = Literal["html", "css", "js"]


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


def read_sources(read: Callable[[str], bytes | None]) -> AppSources | None:
    """An app's kept sources (``SOURCES`` beside its evidence), None when absent or unreadable."""
    raw = read(SOURCES)
    if raw is None:
        return None
    try:
        return AppSources.model_validate_json(raw)
    except pydantic.ValidationError:
        return None


class ToolRun(base.Model):
    """One tool of the suite on one app: its version, how long it took, and why it
    failed when it did (the metrics it feeds are then unscored with that reason)."""

    version: str | None = None
    seconds: float = 0.0
    error: str | None = None


class QualityReport(base.Stored):
    tools: dict[str, ToolRun] = {}  # "lighthouse", "linters", "firefox", "chromium-probe", ...
    states_rendered: tuple[str, ...] = ()  # state ids whose DOM snapshots were rendered and probed
    seconds: float = 0.0
