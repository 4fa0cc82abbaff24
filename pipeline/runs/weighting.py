"""Weights from files: Borda weights of a questionnaire (``iwc weights borda``) and the
metric weights a ``--weights FILE`` names. The arithmetic is stages/aggregating/borda."""

from __future__ import annotations

import json
import pathlib

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.runs import inputs
from iwcbench.pipeline.stages.aggregating import borda

def borda_document(questionnaire: pathlib.Path, persona: str | None = None) -> dict:
    """The weights file of a questionnaire CSV (only ``persona``'s responses when named)."""
    try:
        text = questionnaire.read_text(encoding="utf-8")
    except OSError as exc:
        raise inputs.BadInput(f"cannot read the questionnaire {questionnaire}: {exc.strerror}") from exc
    groups = metrics.webcoder_groups()
    try:
        found = borda.weights(borda.parse(text, groups), groups, persona)
    except borda.QuestionnaireError as exc:
        raise inputs.BadInput(f"{questionnaire}: {exc}") from exc
    return found.document(questionnaire.name)


def read_weights(path: pathlib.Path) -> dict[str, float]:
    """The {metric: weight} of a weights file (a Borda document or a plain mapping)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise inputs.BadInput(f"--weights: cannot read {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise inputs.BadInput(f"--weights: {path} is not JSON: {exc}") from exc
    try:
        return borda.read_weights_document(data)
    except ValueError as exc:
        raise inputs.BadInput(f"--weights {path}: {exc}") from exc
