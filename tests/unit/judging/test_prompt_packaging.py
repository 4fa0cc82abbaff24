"""Prompt caching and batches change how the judges' requests are packaged, never what
they say: with ``cache_control`` taken off (and a string content read as the one text
block the API reads it as), every request is the one the judges send with caching off
(the code path without any packaging), and the one they send through a batch."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pathlib
import re

from PIL import Image
from fakes.judge_evidence import TODO_TASK, ScriptedJudge, reader, sample_files

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import batches as llm_batches, caching as llm_caching
from iwcbench.pipeline.stages import judging

# The judges' protocol on the sample evidence: 2 advocates, 2 critics, 2 × 5 final judges
# (the same request five times per dimension), 3 alignment-agent turns and
# WebCoderBench's one static judge the sample has evidence for.
REQUESTS = 18
REPEATED = [5, 5]  # the final judges: one request, sent five times, per dimension


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
    cache.mkdir(parents=True)
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


def _shape(digests: list[str]) -> tuple[int, list[int]]:
    counts = sorted(digests.count(d) for d in set(digests))
    return len(digests), [c for c in counts if c > 1]


def test_caching_off_is_the_judges_protocol_without_any_breakpoint(fake_anthropic, tmp_path):
    bodies = _judge(fake_anthropic, tmp_path, prompt_caching=False)
    assert all(llm_caching.breakpoints(b) == 0 for b in bodies)
    assert _shape([content_digest(b) for b in bodies]) == (REQUESTS, REPEATED)


def test_cached_requests_say_exactly_what_uncached_requests_say(fake_anthropic, tmp_path):
    plain = sorted(content_digest(b) for b in _judge(fake_anthropic, tmp_path / "off", prompt_caching=False))
    fake_anthropic.reset()
    bodies = _judge(fake_anthropic, tmp_path / "on")
    assert sum(llm_caching.breakpoints(b) for b in bodies) > 0, "caching is on by default"
    assert all(llm_caching.breakpoints(b) <= 4 for b in bodies)
    assert sorted(content_digest(b) for b in bodies) == plain


def test_batched_judges_send_the_same_content(fake_anthropic, tmp_path):
    plain = sorted(content_digest(b) for b in _judge(fake_anthropic, tmp_path / "off", prompt_caching=False))
    fake_anthropic.reset()
    bodies = _judge(fake_anthropic, tmp_path / "batched", batched=True)
    assert len(fake_anthropic.batches.items) == 15  # the deliberated judges and WebCoderBench's went through batches
    assert len(fake_anthropic.requests) == 3  # the alignment agent stayed interactive
    assert sorted(content_digest(b) for b in bodies) == plain
