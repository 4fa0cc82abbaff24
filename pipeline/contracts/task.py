"""Tasks: one user requirement each, with optional acceptance criteria and UI tests."""

from __future__ import annotations

from typing import Literal

import pydantic

from iwcbench.pipeline.contracts import base

CriterionKind = Literal["functional", "content", "visual"]


class Criterion(base.Model):
    """One acceptance criterion of a checklist (judged yes/no by the alignment agent)."""

    id: str
    kind: CriterionKind
    text: str


class UITest(base.Model):
    """A WebGen-Bench style UI test: an instruction and the result a tester expects."""

    task: str
    expected_result: str
    category: str | None = None  # "Functional Testing: Searching" (importing's spelling)

    @property
    def primary_category(self) -> str | None:
        """WebGen-Bench's ``task_category.primary_category``: the part before the colon."""
        return self.category.split(":", 1)[0].strip() or None if self.category else None


class Labels(base.Model):
    """WebCoderBench requirement labels; all optional."""

    complexity: Literal["L1", "L2", "L3", "L4", "L5"] | None = None
    clarity: Literal["C1", "C2", "C3"] | None = None
    style: Literal["S1", "S2", "S3", "S4"] | None = None
    category: str | None = None
    # WebCoderBench's input modality: text only, text with images, text with URLs
    modality: Literal["text", "text_image", "text_url"] | None = None
    application_type: str | None = None
    difficulty: str | None = None  # source benchmark's own grade, e.g. ArtifactsBench "easy"


class Task(base.Stored):
    """One requirement. ``id`` names the app folder under ``apps/<model>/``."""

    id: str = pydantic.Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    prompt: str = pydantic.Field(min_length=1)
    checklist: tuple[Criterion, ...] = ()
    ui_tests: tuple[UITest, ...] = ()
    labels: Labels = Labels()
    source: str | None = None
