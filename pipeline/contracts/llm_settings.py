"""The settings of the model side: how calls are made (``LLM``: effort, prompt caching,
endpoints per provider, and each model's capabilities) and how a local run spends on
them (``Spending``: batches and a budget, which never change what a score means).
Pure data: no I/O.
"""

from __future__ import annotations

from typing import Literal

import pydantic

from iwcbench.pipeline.contracts.sections import Section

Effort = Literal["low", "medium", "high", "xhigh", "max"]


class ModelTraits(Section):
    """What one model can take, where its family's defaults (kits/llm/capabilities) are
    wrong for it: a text-only model served locally, a small context window."""

    images: bool | None = pydantic.Field(
        None, description="the model reads pictures; false: a purpose that needs screenshots (aesthetics, "
        "appearance) is unscored with that reason, and the others get a line of text where a screenshot was "
        "(default: its family's, true for unknown models)")
    tools: bool | None = pydantic.Field(
        None, description="the model calls tools (every judge and agent answers through one; default: true)")
    context_tokens: int | None = pydantic.Field(
        None, ge=512, description="tokens the model's context window holds, prompt and answer together; a "
        "prompt that cannot fit is refused with that reason, an answer is cut to the room left (default: its "
        "family's, 128,000 for unknown models)")


class LLM(Section):
    effort: Effort | None = pydantic.Field(
        None, description="reasoning effort sent with every LLM call (tester and judges); unset = API default")
    prompt_caching: bool = pydantic.Field(
        True, description="mark the prompt prefixes a run sends again (the tester's history, the prompt the five "
        "final judges share, the alignment agent's context) for the API's prompt cache; the prompts are the "
        "same either way (default true)")
    endpoints: dict[str, str] = pydantic.Field(
        {}, description="base URL per provider, e.g. {\"openai\": \"http://vllm:8000/v1\"} (default: the "
        "provider's variable, OPENAI_BASE_URL, ANTHROPIC_BASE_URL, ..., then its public API)")
    request_timeout_s: float = pydantic.Field(
        120.0, gt=0, description="seconds one request may take before it is tried again; raise it for a slow "
        "self-hosted server (a CPU model reads an 8,000-token prompt in minutes) (default 120)")
    max_output_tokens: int = pydantic.Field(
        4096, ge=64, description="tokens one answer may hold at most, for every purpose (a stage may ask for "
        "fewer); lower it for a slow self-hosted model that rambles (default 4,096)")
    models: dict[str, ModelTraits] = pydantic.Field(
        {}, description="capabilities by model name as the settings name it (\"openai/smollm2\": {\"images\": "
        "false, \"contextTokens\": 8192}), where the family's defaults are wrong")

    def traits(self) -> dict[str, dict[str, object]]:
        """``models`` as kits/llm takes them: by model name, the fields set (the rest
        are the family's defaults)."""
        return {name: traits.model_dump(exclude_none=True) for name, traits in self.models.items()}


class Spending(Section):
    """How a run on this machine spends on the LLM API (``iwc run``, ``iwc rescore``).
    Not part of an evaluation: it never changes what a score means, so the config hash
    leaves it out (a resumed run may raise the budget or switch to batches), and an
    EvaluationRun has none (its pods judge one app each, interactively)."""

    batch_judges: bool = pydantic.Field(
        False, description="judge the non-interactive dimensions (aesthetics, usability, ...) through the "
        "batch APIs at half price (Anthropic's Message Batches; OpenAI's where the endpoint serves it, else "
        "one by one), once every app is explored; the alignment agent and the tester stay interactive "
        "(default false)")
    max_cost_usd: float | None = pydantic.Field(
        None, gt=0, description="start no new LLM work (an app's LLM exploration, an app's judging) once the "
        "run's LLM cost reaches this many US dollars; unjudged apps are unscored with the reason (default: "
        "no limit)")
    batch_poll_s: float = pydantic.Field(
        10.0, gt=0, description="seconds before the first look at a submitted batch, doubled each look (default 10)")
    batch_poll_max_s: float = pydantic.Field(
        120.0, gt=0, description="longest wait between two looks at a batch, seconds (default 120)")
    batch_wait_s: float = pydantic.Field(
        90_000.0, gt=0, description="seconds to wait for the batches; what has not ended by then stays "
        "pending for iwc run --resume (default 90,000: past the API's 24-hour expiry)")
    batch_apps: int = pydantic.Field(
        100, ge=1, description="apps judged at once in batch mode, each holding its evidence in memory "
        "(default 100)")
