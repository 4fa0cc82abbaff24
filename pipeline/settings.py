"""One nested settings object for a run. Every field says its unit and default.

Built from the CLI (``iwc run``) or from an EvaluationRun spec; validated here so that
a bad value fails with a message that names the field.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

import pydantic


class _Section(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")


class Exploration(_Section):
    policy: Literal["heuristic", "llm", "random"] = "heuristic"  # random: the seeded baseline
    max_steps: int = pydantic.Field(100, ge=1, le=1000, description="steps per app (default 100)")
    seed: int = pydantic.Field(0, ge=0, description="seed of the explorer's choices")
    step_timeout_s: float = pydantic.Field(10.0, gt=0, description="seconds one action may take")
    app_timeout_s: float = pydantic.Field(300.0, gt=0, description="seconds for a whole exploration")
    load_timeout_s: float = pydantic.Field(20.0, gt=0, description="seconds for the first page load")
    plateau_steps: int = pydantic.Field(3, ge=1, description="steps without coverage gain = plateau")
    stop_after_idle_steps: int = pydantic.Field(
        15, ge=1, description="heuristic: stop after this many steps that found nothing new")
    viewport_width: int = pydantic.Field(1280, ge=320, description="pixels")
    viewport_height: int = pydantic.Field(800, ge=240, description="pixels")
    max_dom_bytes: int = pydantic.Field(2_000_000, ge=10_000, description="DOM snapshot cap, bytes")
    model: str | None = pydantic.Field(
        None, description="LLM tester model for policy llm (default: the judge model)")


class Instrumentation(_Section):
    timeout_s: float = pydantic.Field(120.0, gt=0, description="seconds for one app's Node process")
    max_file_bytes: int = pydantic.Field(5_000_000, ge=1, description="larger scripts stay uninstrumented")


class Input(_Section):
    max_archive_bytes: int = pydantic.Field(
        200_000_000, ge=1, description="cap on an app archive's extracted size, bytes")
    max_archive_members: int = pydantic.Field(20_000, ge=1, description="files per archive")


class Sandbox(_Section):
    mirror_dir: str | None = pydantic.Field(
        None, description="CDN mirror cache folder (default: ~/.cache/iwc-bench/cdn)")
    mirror_fetch: bool = pydantic.Field(
        True, description="fill the mirror from the npm registry on a miss")
    npm_registry: str = pydantic.Field("https://registry.npmjs.org", description="npm registry URL")


class Scoring(_Section):
    judge: str | None = pydantic.Field(None, description="LLM judge model; None = offline scores only")
    accessibility: bool = pydantic.Field(True, description="run axe-core on each new state")
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = pydantic.Field(
        None, description="reasoning effort sent to the LLM (tester and judges); None = API default")
    llm_cache_dir: str | None = pydantic.Field(
        None, description="LLM response cache folder (default: OUT/llm-cache)")


class RunSettings(_Section):
    tasks: str = pydantic.Field(description="tasks.jsonl path or URI")
    apps: str = pydantic.Field(description="folder (or URI) holding apps/<model>/<task_id>")
    out: str = pydantic.Field(description="output folder or store URI")
    workers: int = pydantic.Field(1, ge=1, le=64, description="apps evaluated in parallel")
    models: tuple[str, ...] = pydantic.Field((), description="only these models (default all)")
    exploration: Exploration = Exploration()
    instrumentation: Instrumentation = Instrumentation()
    input: Input = Input()
    sandbox: Sandbox = Sandbox()
    scoring: Scoring = Scoring()

    @pydantic.model_validator(mode="after")
    def _llm_tester_has_a_model(self) -> "RunSettings":
        if self.exploration.policy == "llm" and not (self.exploration.model or self.scoring.judge):
            raise ValueError(
                "exploration.model: the llm explorer needs a model (--explorer-model or --judge)")
        return self

    def tester_model(self) -> str | None:
        return self.exploration.model or self.scoring.judge

    def config_hash(self) -> str:
        """Hash of everything that changes results (not where they are written)."""
        data = self.model_dump(mode="json", exclude={"out", "workers"})
        data["scoring"].pop("llm_cache_dir", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def describe_error(error: pydantic.ValidationError) -> str:
    """A one-line-per-problem message naming each bad field by its dotted path."""
    lines = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: {message}" if where else message)
    return "invalid configuration:\n  " + "\n  ".join(lines)
