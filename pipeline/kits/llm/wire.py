"""What every API behind the kit provides: a ``Wire`` carries one request in the kit's
own shape (the Messages API's: a system prompt, turns of text, image, tool-use and
tool-result blocks, tools with an input schema) to its endpoint and brings the answer
back as a ``Reply``, and it alone decides what its API allows.

Two wires exist: kits/llm/messages (Anthropic's Messages API) and kits/llm/chat
(OpenAI's Chat Completions, which every other provider speaks). Adding an API is adding
a wire; a stage never learns which one carried its call.

What a wire decides, so that nobody else branches on the API:
- ``forcing``: the ``tool_choice`` that makes the model call a tool, or None where the
  API refuses to force one under this configuration (Anthropic's extended thinking);
- ``options``: the request fields a configuration adds (thinking, temperature);
- ``marks_prompts``: whether prompt-cache breakpoints are the caller's to place
  (Messages) or the server caches prefixes by itself (Chat Completions);
- ``transient`` and ``errors``: which failures are worth another try, and which
  exceptions are the API's at all;
- ``batches``: the endpoint's batch API for kits/llm/batches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

if TYPE_CHECKING:
    from iwcbench.pipeline.kits.llm import batches as llm_batches, providers as llm_providers, replies


class Settings(Protocol):
    """The parts of ``llm.Config`` a wire reads."""

    @property
    def model(self) -> str: ...

    @property
    def thinking(self) -> bool: ...

    @property
    def temperature(self) -> float | None: ...


class Wire(Protocol):
    target: llm_providers.Target
    marks_prompts: bool

    def forcing(self, config: Settings, name: str | None = None) -> dict[str, Any] | None:
        """The tool choice forcing tool ``name`` (None: any tool), or None where not allowed."""

    def options(self, config: Settings) -> dict[str, Any]:
        """The request fields ``config`` adds to every body (before cache marks)."""

    def send(self, params: Mapping[str, Any], model: str) -> replies.Reply:
        """One attempt, no retry (kits/retrying is the kit's one retry policy)."""

    def transient(self, exc: BaseException) -> bool: ...

    def errors(self) -> tuple[type[BaseException], ...]: ...

    def reach(self) -> None:
        """Ask the endpoint for its list of models (free); raises the API's error."""

    def unreachable(self, exc: BaseException) -> bool: ...

    def batches(self) -> llm_batches.Api: ...


def retry_after(exc: BaseException) -> float | None:
    """The wait the API asked for (``retry-after-ms`` / ``retry-after``), in seconds:
    both SDKs keep the HTTP response on their status errors."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue  # an HTTP date: fall back to our own backoff
    return None


def status_transient(status: int) -> bool:
    """An HTTP status worth another try: timeouts, conflicts, rate limits, server errors."""
    return status in (408, 409, 429) or status >= 500
