"""Which model, where: ``provider/model`` names (inspect_ai's convention), each
provider's API, key and endpoint, and a check that all of it is there before a run
spends anything.

A bare name (``claude-opus-4-5``) means Anthropic, so settings written before
providers existed keep their meaning. Everything else is ``provider/model``, split at
the first slash (``openai/Qwen/Qwen2.5-VL-32B-Instruct`` is the model
``Qwen/Qwen2.5-VL-32B-Instruct`` on an OpenAI-compatible endpoint). Two APIs serve all
providers: Anthropic's Messages API, and OpenAI's Chat Completions API, which OpenAI,
vLLM, SGLang, Ollama, llama.cpp's server, OpenRouter and Gemini's and xAI's compatible
endpoints all speak.

An endpoint comes from the caller (the settings' ``llm.endpoints`` by provider), else the
provider's environment variable (``OPENAI_BASE_URL``, ...), else its public default; a
self-hosted provider (``vllm``) has no default and must be given one. A key comes from
the provider's environment variable; self-hosted servers may take none.

What it must not do: send a model request (kits/llm and kits/llm/chat do), or know
what a purpose is (the caller names the settings field a problem is reported under).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Literal, Mapping

Api = Literal["anthropic", "openai"]


class ModelProblem(ValueError):
    """A model that cannot be called as named: bad name, no key, no endpoint, or an
    endpoint that does not answer. The message says what to set."""


@dataclasses.dataclass(frozen=True)
class Provider:
    name: str
    api: Api
    key_env: tuple[str, ...]  # environment variables holding the key, first set wins
    url_env: str  # environment variable holding the endpoint
    default_url: str | None  # None: the SDK's own (Anthropic) or none at all (self-hosted)
    key_required: bool = True
    max_tokens_field: str = "max_tokens"  # OpenAI's own API wants max_completion_tokens
    sdk_url: str | None = None  # where the SDK goes when default_url is None (a network policy must know)
    forces_any_tool: bool = True  # takes tool_choice "required" (llama.cpp's server takes a named tool only)

    @property
    def public_url(self) -> str | None:
        """Where its calls go when no endpoint is named: its default, or its SDK's own."""
        return self.default_url or self.sdk_url


PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    Provider("anthropic", "anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", None,
             sdk_url="https://api.anthropic.com"),
    Provider("openai", "openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", "https://api.openai.com/v1",
             max_tokens_field="max_completion_tokens"),
    Provider("google", "openai", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GEMINI_BASE_URL",
             "https://generativelanguage.googleapis.com/v1beta/openai/"),
    Provider("grok", "openai", ("XAI_API_KEY",), "XAI_BASE_URL", "https://api.x.ai/v1"),
    Provider("openrouter", "openai", ("OPENROUTER_API_KEY",), "OPENROUTER_BASE_URL",
             "https://openrouter.ai/api/v1"),
    Provider("vllm", "openai", ("VLLM_API_KEY",), "VLLM_BASE_URL", None, key_required=False),
    Provider("sglang", "openai", ("SGLANG_API_KEY",), "SGLANG_BASE_URL", None, key_required=False),
    Provider("ollama", "openai", ("OLLAMA_API_KEY",), "OLLAMA_BASE_URL", "http://localhost:11434/v1",
             key_required=False),
    Provider("llama-cpp", "openai", ("LLAMA_CPP_API_KEY",), "LLAMA_CPP_BASE_URL", None, key_required=False,
             forces_any_tool=False),
)}
NO_KEY = "no-key"  # what goes in the bearer token for a server that takes none


def split(name: str) -> tuple[str, str]:
    """(provider, model) of a model name; a bare name is Anthropic's. Raises
    ``ModelProblem`` for a name that names no known provider or no model."""
    text = name.strip()
    if not text:
        raise ModelProblem("the model name is empty")
    provider, slash, model = text.partition("/")
    if not slash:
        return "anthropic", text
    if provider not in PROVIDERS:
        raise ModelProblem(f"{name!r}: unknown provider {provider!r} (known: {', '.join(PROVIDERS)}; "
                           f"a model on another OpenAI-compatible server is openai/{text} with OPENAI_BASE_URL set)")
    if not model.strip():
        raise ModelProblem(f"{name!r}: no model after {provider}/")
    return provider, model


@dataclasses.dataclass(frozen=True)
class Target:
    """One model at one endpoint, with what calling it needs."""

    provider: Provider
    model: str  # the name the endpoint knows
    base_url: str | None  # None: the SDK's default (Anthropic only)
    api_key: str | None

    @property
    def name(self) -> str:
        return f"{self.provider.name}/{self.model}"

    @property
    def endpoint(self) -> str:
        """Where its answers come from, as the response cache keys them."""
        return f"{self.provider.name}@{self.base_url or 'default'}"

    def problems(self) -> list[str]:
        """What is missing before a call can succeed (empty: nothing)."""
        found = []
        if self.provider.key_required and not self.api_key:
            found.append(f"{self.name}: no API key: set {' or '.join(self.provider.key_env)}")
        if self.provider.api == "openai" and not self.base_url:
            found.append(f"{self.name}: no endpoint: set {self.provider.url_env} or llm.endpoints.{self.provider.name} "
                         "(--endpoint {0}=URL)".format(self.provider.name))
        return found


def resolve(name: str, base_url: str | None = None, api_key: str | None = None,
            environ: Mapping[str, str] | None = None) -> Target:
    """The ``Target`` of a model name: its endpoint ``base_url``, else the provider's
    environment variable, else its default; its key ``api_key``, else the provider's
    environment variable."""
    env = os.environ if environ is None else environ
    provider_name, model = split(name)
    provider = PROVIDERS[provider_name]
    url = base_url or env.get(provider.url_env) or provider.default_url
    key = api_key or next((env[v] for v in provider.key_env if env.get(v)), None)
    return Target(provider, model, url or None, key)
