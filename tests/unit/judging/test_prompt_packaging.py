"""Prompt caching and batches change how the judges' requests are packaged, never what
they say: with ``cache_control`` taken off (and a string content read as the one text
block the API reads it as), every request is the one the judges sent before caching
existed, and the one they send with caching off or through a batch."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pathlib
import re

from PIL import Image
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, reader, sample_files

from iwcbench.pipeline.kits import llm, llm_batches, llm_caching
from iwcbench.pipeline.stages import judging

# The requests of judge_app on the sample evidence (fence secret bytes 0..31), sorted,
# as sent by the judges before prompt caching (main at f6b68a6, the last commit without
# it, measured with its own code): 2 advocates, 2 critics, 2 × 5 final judges,
# 3 alignment-agent turns and WebCoderBench's one static judge the sample has evidence for.
BEFORE_CACHING = sorted([
    "3fad6894371ca319", "7d2fa3fca32859b7", "814ab766e8a96e5b", "823665a260e5e0db", "97e5310cac1706ae",
    "a0ce9138d214a2c0", *["bf42a1b622141fb4"] * 5, "d043aa1e1d1c1406", *["dc910d9cfbd7e974"] * 5,
    "febbfe8b9599bd4e",
])


def content_digest(body: dict) -> str:
    """The request's content: no packaging, pictures by their pixels (not their PNG
    encoding), tool-use ids (a counter of the fake's) blanked."""
    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "base64":
                with Image.open(io.BytesIO(base64.b64decode(node["data"]))) as img:
                    return {"pixels": hashlib.sha256(img.convert("RGB").tobytes()).hexdigest(), "size": img.size}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return re.sub(r"toolu_\d+", "toolu_N", node) if isinstance(node, str) else node
    return hashlib.sha256(json.dumps(walk(llm_caching.unpacked(body)), sort_keys=True).encode()).hexdigest()[:16]


def _judge(fake, tmp_path: pathlib.Path, batched: bool = False, **config) -> list[dict]:
    fake.handler = ScriptedJudge()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fence-secret").write_bytes(bytes(range(32)))
    client = llm.Client(llm.Config(model="claude-sonnet-test", base_url=fake.url, cache_dir=str(cache), **config),
                        api_key="x")
    if not batched:
        judging.judge_app(TODO_TASK, reader(sample_files()), client)
        return [r.body for r in fake.requests]
    timing = llm_batches.Timing(poll_s=0.02, poll_max_s=0.05, quiet_s=0.05)
    with llm_batches.Batcher(client, timing=timing) as batcher:
        judging.judge_app(TODO_TASK, reader(sample_files()), client.batched(batcher), interactive=client)
    return [r.body for r in fake.requests] + list(fake.batches.items)


def test_cached_requests_say_exactly_what_the_requests_before_caching_said(fake_anthropic, tmp_path):
    bodies = _judge(fake_anthropic, tmp_path)
    assert sum(llm_caching.breakpoints(b) for b in bodies) > 0, "caching is on by default"
    assert all(llm_caching.breakpoints(b) <= 4 for b in bodies)
    assert sorted(content_digest(b) for b in bodies) == BEFORE_CACHING


def test_caching_off_sends_the_same_content_without_any_breakpoint(fake_anthropic, tmp_path):
    bodies = _judge(fake_anthropic, tmp_path, prompt_caching=False)
    assert all(llm_caching.breakpoints(b) == 0 for b in bodies)
    assert sorted(content_digest(b) for b in bodies) == BEFORE_CACHING


def test_batched_judges_send_the_same_content(fake_anthropic, tmp_path):
    bodies = _judge(fake_anthropic, tmp_path, batched=True)
    assert len(fake_anthropic.batches.items) == 15  # the deliberated judges and WebCoderBench's went through batches
    assert len(fake_anthropic.requests) == 3  # the alignment agent stayed interactive
    assert sorted(content_digest(b) for b in bodies) == BEFORE_CACHING
