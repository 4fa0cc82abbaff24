"""What a model can take: pictures, tool calls, and how many tokens fit in its context
window. Known model families have defaults; settings override them per model
(``llm.models``), and an unknown model is assumed to be a current hosted one (pictures,
tools, 128k tokens) until the settings say otherwise.

The client reads them before it sends anything (kits/llm/__init__): a request holding
pictures for a model that reads none loses them for a line of text saying so, a prompt
that cannot fit the window is refused with the reason, and a purpose that cannot do
without pictures is told once, at the start of the run (``Capabilities.images``), so
that no call is sent only to be refused.

The token count here is an estimate (about four characters a token for text and JSON,
a fixed cost per picture); it only has to tell a prompt that fits from one that cannot.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping, Sequence

IMAGE_TOKENS = 1_600  # a downscaled screenshot, as the APIs bill it (about 1.15 megapixels / 750)
CHARS_PER_TOKEN = 3.5  # English prose and code run 3.5-4.5; the lower figure errs towards "does not fit"


@dataclasses.dataclass(frozen=True)
class Capabilities:
    images: bool = True
    tools: bool = True
    context_tokens: int = 128_000


# (substring of the lower-case model name, its capabilities): the first match wins
KNOWN: tuple[tuple[str, Capabilities], ...] = (
    ("claude", Capabilities(True, True, 200_000)),
    ("gpt-4o", Capabilities(True, True, 128_000)),
    ("gpt-4.1", Capabilities(True, True, 1_047_576)),
    ("gpt-5", Capabilities(True, True, 400_000)),
    ("o3", Capabilities(True, True, 200_000)),
    ("o4-mini", Capabilities(True, True, 200_000)),
    ("gemini", Capabilities(True, True, 1_048_576)),
    ("grok-4", Capabilities(True, True, 256_000)),
    ("qwen2.5-vl", Capabilities(True, True, 128_000)),
    ("qwen3-vl", Capabilities(True, True, 256_000)),
    ("smollm", Capabilities(False, True, 8_192)),
    ("deepseek", Capabilities(False, True, 128_000)),
    ("qwen", Capabilities(False, True, 128_000)),
    ("llama", Capabilities(False, True, 128_000)),
)
DEFAULT = Capabilities()


def of(model: str, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> Capabilities:
    """``model``'s capabilities: its family's defaults, then what ``overrides[model]`` sets."""
    name = model.lower()
    found = next((caps for key, caps in KNOWN if key in name), DEFAULT)
    given = {k: v for k, v in ((overrides or {}).get(model) or {}).items() if v is not None}
    return dataclasses.replace(found, **given) if given else found


def images_in(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for m in messages for b in _blocks(m.get("content")) if b.get("type") == "image")


def without_images(messages: Sequence[Mapping[str, Any]], model: str) -> list[dict[str, Any]]:
    """``messages`` with each picture replaced by a line saying the model reads none."""
    note = {"type": "text", "text": f"[a screenshot was here; {model} reads no images]"}
    return [{**m, "content": _strip(m.get("content"), note)} for m in messages]


def prompt_tokens(params: Mapping[str, Any]) -> int:
    """An estimate of the prompt's tokens: text and JSON by length, pictures at a fixed cost."""
    pictures = images_in(params.get("messages") or ())
    text = json.dumps([params.get("system"), params.get("tools"), _text_only(params.get("messages") or ())],
                      ensure_ascii=False)
    return int(len(text) / CHARS_PER_TOKEN) + pictures * IMAGE_TOKENS


def _blocks(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return []
    found = []
    for block in content:
        if isinstance(block, dict):
            found.append(block)
            found.extend(_blocks(block.get("content")))  # pictures inside a tool result
    return found


def _strip(content: Any, note: dict[str, Any]) -> Any:
    if not isinstance(content, list):
        return content
    out = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "image":
            out.append(dict(note))
        elif isinstance(block, dict) and isinstance(block.get("content"), list):
            out.append({**block, "content": _strip(block["content"], note)})
        else:
            out.append(block)
    return out


def _text_only(messages: Sequence[Mapping[str, Any]]) -> list[Any]:
    return [_strip(m.get("content"), {"type": "text", "text": ""}) for m in messages]
