"""The LLM kit: the one place that talks to a model, through one narrow interface.

What it gives the stages:
- ``Client.create`` (system prompt, messages with text, image and tool blocks, tools, a
  tool choice) returning a plain ``Reply``, whichever provider serves the model;
- ``ask_tool``: one tool's answer, forced where the API allows, checked and asked again
  with the problem named, or the reason there is none (kits/llm/asking); an agent loop
  that offers several tools asks ``Client.forcing`` for its tool choice;
- ``fences``: app text made inert inside a prompt (kits/llm/fences).

How it is built, one module per meaning:
- providers: ``provider/model`` names, each provider's API, key and endpoint (a bare
  name is Anthropic's);
- wire, messages, chat: a ``Wire`` per API (Anthropic's Messages, OpenAI's Chat
  Completions, which every other provider speaks); the wire alone decides what its API
  allows (forcing a tool, thinking, prompt-cache marks, batches, retryable errors);
- capabilities: pictures, tools and the context window per model, applied before
  anything is sent;
- client: the ``Client`` (routes per purpose, the one retry policy of kits/retrying,
  the response cache, the batcher), accounting (the ``Ledger``, priced as the API bills
  cache writes, cache reads and batches), caching (prompt-cache breakpoints), responses
  (the on-disk response cache), batches with message_batches and chat_batches (the
  two batch APIs, at half price), images (screenshots scaled for a model).

What it must not do: know what a judge or an explorer is, parse a judge's answer, or
import stages. Nothing else in the project imports ``anthropic`` (kits/llm/messages) or
``openai`` (kits/llm/chat and chat_batches).
"""

from __future__ import annotations

from iwcbench.pipeline.kits.llm.asking import Answer, Check, ask_tool
from iwcbench.pipeline.kits.llm.capabilities import Capabilities
from iwcbench.pipeline.kits.llm.client import (Batched, Batching, Client, Config, Effort, api_key_missing, check,
                                               wire_for)
from iwcbench.pipeline.kits.llm.replies import (BatchGone, ItemFailed, LLMError, NoBatches, Reply, image_block, short,
                                                text_block, tool_result_block)
from iwcbench.pipeline.kits.llm.wire import retry_after

__all__ = ["Answer", "Check", "BatchGone", "Batched", "Batching", "Capabilities", "Client", "Config", "Effort", "ItemFailed",
           "LLMError", "NoBatches", "Reply", "api_key_missing", "ask_tool", "check", "image_block", "retry_after",
           "short", "text_block", "tool_result_block", "wire_for"]
