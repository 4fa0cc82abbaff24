"""The seeds' own models, as settings: ``iwc run --seed-protocol NAME`` lays one of
these under the flags (a flag or ``--settings`` still wins), so that a benchmark
maintainer reproduces a paper's protocol by naming it. The user supplies the
endpoints and keys (``llm.endpoints``, ``VLLM_BASE_URL``, ``OPENAI_API_KEY``, ...).

- ``webgen`` (WebGen-Bench's card): the GUI agent is Qwen2.5-VL-32B-Instruct served by
  vLLM, the appearance judge GPT-4o.
- ``webcoder`` (WebCoderBench, §4): its LLM metrics only (``wcb``); Gemini-2.5-pro
  judges general quality, GPT-5-chat alignment with the checklists.
- ``iwc`` (IWC-Bench, §3.3 and §5.1): Claude-Opus-4.8 explores and scores; checklists
  are proposed by Claude-Opus-4.8, GPT-5.6-Sol and Grok-4.5 (the first merges).

The model ids are how each provider's API spells the paper's model names where we know
it (``gpt-4o``, ``gemini-2.5-pro``, ``gpt-5-chat-latest``); IWC-Bench's models are
named as the paper names them, lower-cased and hyphenated, since their API ids are not
published in it. Pure data.
"""

from __future__ import annotations

from typing import Any

SEED_PROTOCOLS: dict[str, dict[str, Any]] = {
    "webgen": {"uitests": {"model": "vllm/Qwen/Qwen2.5-VL-32B-Instruct", "appearance_model": "openai/gpt-4o"}},
    "webcoder": {"judging": {"model": "google/gemini-2.5-pro", "dimensions": ("wcb",),
                             "webcoder_model": "google/gemini-2.5-pro",
                             "webcoder_alignment_model": "openai/gpt-5-chat-latest"}},
    "iwc": {"exploration": {"policy": "llm"},
            "judging": {"model": "anthropic/claude-opus-4-8"}},
}
# The three models a seed paper had propose checklists (``iwc checklist --seed-protocol``;
# the first merges): a task's checklist is written once, before any run.
CHECKLIST_PROPOSERS: dict[str, tuple[str, str, str]] = {
    "iwc": ("anthropic/claude-opus-4-8", "openai/gpt-5.6-sol", "grok/grok-4.5"),
}
# IWC-Bench §5.4: the second judge of its robustness study
ROBUSTNESS_JUDGE = "google/gemini-3.7-flash"
