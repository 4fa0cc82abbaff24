"""How every settings section is written and how a problem with one is told: the
frozen, strict ``Section`` (snake_case in Python, camelCase as a Kubernetes resource
stores it), ``FieldProblem`` for a cross-field rule, and the one message that names
each bad field by its dotted path, which the CLI and the operator's condition share.
Pure data: no I/O.
"""

from __future__ import annotations

from typing import Any, Mapping

import pydantic
import pydantic.alias_generators


class FieldProblem(ValueError):
    """A cross-field rule broken; ``path`` names the field to change (snake_case)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class Section(pydantic.BaseModel):
    """A frozen settings model: unknown fields are an error; snake_case in Python,
    camelCase accepted too (the CRD's spelling)."""

    model_config = pydantic.ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True,
        alias_generator=pydantic.alias_generators.to_camel,
    )

    def wire(self) -> dict:
        """The camelCase dict as a Kubernetes resource stores it (unset optionals left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def field_path(item: Mapping[str, Any], alias: bool = False) -> str:
    """The dotted path of one pydantic error item; a FieldProblem's own path when the
    error came from a cross-field rule. ``alias``: camelCase (the CRD's spelling)."""
    problem = (item.get("ctx") or {}).get("error")
    if isinstance(problem, FieldProblem):
        parts = problem.path.split(".")
    else:
        parts = [str(p) for p in item["loc"]]
    if alias:
        parts = [pydantic.alias_generators.to_camel(p) for p in parts]
    return ".".join(parts)


def problem_message(item: Mapping[str, Any]) -> str:
    problem = (item.get("ctx") or {}).get("error")
    if isinstance(problem, FieldProblem):
        return problem.message
    return item["msg"].removeprefix("Value error, ")


def describe_error(error: pydantic.ValidationError) -> str:
    """A one-line-per-problem message naming each bad field by its dotted path."""
    lines = []
    for item in error.errors():
        where = field_path(item) or ("the settings document (--settings)" if item["type"] == "json_invalid" else "")
        lines.append(f"{where}: {problem_message(item)}" if where else problem_message(item))
    return "invalid configuration:\n  " + "\n  ".join(lines)
