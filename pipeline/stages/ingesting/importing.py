"""Importers: WebGen-Bench and ArtifactsBench records → ``task.Task``.

Users pass the benchmarks' own JSON lines files; each record is read through a small
schema of the source format (so a bad record fails with the source's field path) and
converted. This module only converts records: it reads no files and must not guess
missing requirements (WebGen-Bench has no checklist, so its tasks get none).

Checklist kinds for ArtifactsBench (its items carry no kind) follow one rule, applied
to the item's title — the question it asks. The description is read only when the
title is blank: descriptions are scoring rubrics that mention colours, animation and
data almost everywhere ("Is the code robust?" talks about "rendering problems"), so
they would drown the title's meaning.

1. a *visual* word (visual, vision, aesthetic, design standard, interface design, UI,
   layout, colour, style, theme, appearance, animation, font, typography,
   eye-catching, icon, graphic, look, placement, responsive design) → ``visual``;
2. otherwise a *content* word (text, content, data, information, copy, wording,
   message, subtitle, language, label, title, article, description) → ``content``;
3. otherwise → ``functional``.

Visual wins over content because a title such as "Is the date rendering and
visualization accurate?" asks about what the page looks like. On the 1,500 items of
ArtifactsBench lite this gives the six items every task shares a stable kind: robust,
redundant features, engineering quality, smooth interaction → functional;
eye-catching features, interface vision → visual.
"""

from __future__ import annotations

import re
from typing import Any

import pydantic

from iwcbench.pipeline.contracts import task

WEBGEN_SOURCE = "webgen-bench"
ARTIFACTSBENCH_SOURCE = "artifactsbench"

_VISUAL = re.compile(
    r"\b(visual\w*|vision|aesthetic\w*|design standards?|interface design|ui|"
    r"layouts?|colou?rs?|colou?r-coded|styles?|styling|themes?|appearance|"
    r"animat\w*|fonts?|typography|eye-catching|icons?|graphics?|looks?|placement|"
    r"responsive design)\b",
    re.IGNORECASE,
)
_CONTENT = re.compile(
    r"\b(text|texts|content|contents|data|information|copy|wording|messages?|"
    r"subtitles?|languages?|labels?|titles?|articles?|descriptions?)\b",
    re.IGNORECASE,
)


class _Source(pydantic.BaseModel):
    """Source records may carry fields we do not use; only what we read is checked."""

    model_config = pydantic.ConfigDict(extra="ignore", frozen=True)


class _WebGenCategory(_Source):
    primary_category: str
    subcategories: list[str] = []


class _WebGenUITest(_Source):
    task: str
    expected_result: str
    task_category: _WebGenCategory | None = None


class _WebGenRecord(_Source):
    id: str
    instruction: str
    Category: _WebGenCategory | None = None
    application_type: str | None = None
    ui_instruct: list[_WebGenUITest]


class _ArtifactsItem(_Source):
    id: int | str
    title: str
    description: str = ""
    maxScore: float | None = None


class _ArtifactsRecord(_Source):
    index: int | str
    question: str
    checklist: list[_ArtifactsItem] = []
    # "class" is a Python keyword: read it through an alias.
    class_: str | None = pydantic.Field(None, alias="class")
    difficulty: str | None = None


def is_webgen(record: dict[str, Any]) -> bool:
    """True for a WebGen-Bench test record (``id``, ``instruction``, ``ui_instruct``)."""
    return {"id", "instruction", "ui_instruct"} <= record.keys()


def is_artifactsbench(record: dict[str, Any]) -> bool:
    """True for an ArtifactsBench record (``index``, ``question``, ``checklist``)."""
    return {"index", "question", "checklist"} <= record.keys()


def _category_text(category: _WebGenCategory | None) -> str | None:
    """"Functional Testing: Searching, Filtering" — primary category, then subcategories."""
    if category is None:
        return None
    if not category.subcategories:
        return category.primary_category
    return f"{category.primary_category}: {', '.join(category.subcategories)}"


def from_webgen(record: dict[str, Any]) -> task.Task:
    """Convert one WebGen-Bench record. Raises ``pydantic.ValidationError`` naming the
    source field when the record is malformed (e.g. ``ui_instruct.2.expected_result``)."""
    source = _WebGenRecord.model_validate(record)
    return task.Task(
        id=source.id,
        prompt=source.instruction,
        ui_tests=tuple(
            task.UITest(
                task=test.task,
                expected_result=test.expected_result,
                category=_category_text(test.task_category),
            )
            for test in source.ui_instruct
        ),
        labels=task.Labels(
            category=source.Category.primary_category if source.Category else None,
            application_type=source.application_type,
        ),
        source=WEBGEN_SOURCE,
    )


def classify_criterion(title: str, description: str = "") -> task.CriterionKind:
    """Kind of an ArtifactsBench checklist item (the rule is in the module docstring)."""
    text = title if title.strip() else description
    if _VISUAL.search(text):
        return "visual"
    if _CONTENT.search(text):
        return "content"
    return "functional"


def from_artifactsbench(record: dict[str, Any]) -> task.Task:
    """Convert one ArtifactsBench record: id ``ab-<index>``, the question as prompt,
    each checklist item as a criterion (title, then description) with a classified
    kind; ``class`` "Game Development-Puzzle" → category "Game Development",
    application type "Puzzle"; ``difficulty`` kept as is. Raises
    ``pydantic.ValidationError`` naming the source field when malformed."""
    source = _ArtifactsRecord.model_validate(record)
    category, application_type = None, None
    if source.class_:
        head, _, tail = source.class_.partition("-")
        category, application_type = head.strip() or None, tail.strip() or None
    return task.Task(
        id=f"ab-{source.index}",
        prompt=source.question,
        checklist=tuple(
            task.Criterion(
                id=str(item.id),
                kind=classify_criterion(item.title, item.description),
                text=f"{item.title}\n{item.description}".strip(),
            )
            for item in source.checklist
        ),
        labels=task.Labels(
            category=category, application_type=application_type, difficulty=source.difficulty
        ),
        source=ARTIFACTSBENCH_SOURCE,
    )
