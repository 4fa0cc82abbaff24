"""Judging: the LLM-scored IWC dimensions of one app, from its stored evidence.

``judge_app`` gives five scores — ``aesthetics`` and ``usability`` (three-round
deliberation, 0–100) and ``alignment_functional`` / ``alignment_content`` /
``alignment_visual`` (the alignment agent, % of criteria satisfied) — plus
WebCoderBench's five static LLM metrics (``wcb``: webcoder.py). A judge that
cannot answer yields an unscored score with the reason, never 0; the prompts' digest,
the raw replies and the tokens are kept in ``Score.raw``. Re-judging a finished run's
evidence (runs/judging_pass) calls ``judge_app`` on each stored app.

The dimensions of an app are judged at the same time. Judges whose every call depends
on the answer before (``INTERACTIVE``: the alignment agent) take the ``interactive``
client; the others may be given a batched one (kits/llm/batches) — their calls are the
same either way.

This stage reads evidence only through the ``artifacts.Reader`` it is given (never the
store), never explores, and never imports another stage.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import logging
from typing import Callable, Iterable

from iwcbench.pipeline.contracts import artifacts, metrics, purposes, settings as settings_mod, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.judging import aesthetics, alignment, deliberation, usability, webcoder
from iwcbench.pipeline.kits.llm import fences
from iwcbench.pipeline.stages.judging import bundle as bundle_mod

log = logging.getLogger(__name__)

SCORE_NAMES = metrics.names("judging")  # the metric table's rows this stage fills


def options(settings: settings_mod.Judging) -> deliberation.Options:
    return deliberation.Options(runs=settings.runs, min_usable=settings.min_usable_runs,
                                parse_retries=settings.parse_retries, max_adjustment=settings.max_adjustment,
                                judge_temperature=settings.temperature, protocol=settings.protocol)


Judge = Callable[[llm.Client, task.Task, bundle_mod.Bundle, settings_mod.Judging], dict[str, metrics.Score]]

# Judged dimension → the judge filling its metric-table rows. A new dimension is its
# judge here plus its rows in contracts/metrics.py (and its name in settings.Dimension).
JUDGES: dict[str, Judge] = {
    "aesthetics": lambda client, item, evidence, s: {"aesthetics": aesthetics.judge(
        client, item.prompt, evidence, options(s), s.max_screenshots)},
    "usability": lambda client, item, evidence, s: {"usability": usability.judge(
        client, item.prompt, evidence, options(s))},
    "alignment": lambda client, item, evidence, s: alignment.judge(
        client, item, evidence, max_tool_calls=s.alignment_max_tool_calls, parse_retries=s.parse_retries,
        page_lines=s.alignment_page_lines, max_hits=s.alignment_max_hits),
    "wcb": lambda client, item, evidence, s: webcoder.judge(client, item, evidence, s.parse_retries),
}
# Agents: each call depends on the last answer, so a batch round per call would take hours
# (contracts/purposes says which purposes are batchable).
INTERACTIVE: frozenset[str] = frozenset(d for d in JUDGES if not purposes.of(d).batchable)
FILLS: dict[str, tuple[str, ...]] = {
    "aesthetics": ("aesthetics",), "usability": ("usability",),
    "alignment": tuple(n for n in SCORE_NAMES if n.startswith("alignment_")),
    "wcb": webcoder.NAMES,
}


def fence_nonce(client: llm.Client, item: task.Task, trace_bytes: bytes) -> str:
    """The fence code of one app's prompts: keyed by a secret kept beside the LLM
    cache (so an app cannot predict it, while a re-run reproduces it and the cache
    answers); fresh randomness when there is no cache."""
    secret = client.cache_secret()
    if secret is None:
        return fences.new_nonce()
    message = item.id.encode() + b"\0" + hashlib.sha256(trace_bytes).digest()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]


def judge_app(item: task.Task, files: artifacts.Reader, client: llm.Client,
              settings: settings_mod.Judging = settings_mod.Judging(), *,
              interactive: llm.Client | None = None) -> dict[str, metrics.Score]:
    """All judged scores of one app (the dimensions of ``settings``). ``interactive``
    serves the ``INTERACTIVE`` judges (default: ``client``). Never raises for the app's
    or the API's trouble."""
    try:
        nonce = fence_nonce(client, item, files.raw(artifacts.TRACE.key) or b"")
        evidence = bundle_mod.Bundle.load(files, nonce)
    except bundle_mod.MissingEvidence as exc:
        return metrics.unscored(_names(settings), f"cannot judge: {exc}")
    scores: dict[str, metrics.Score] = {}
    dimensions = []
    for d in settings.dimensions:
        blind = client.blind(f"{d}.judge") if purposes.of(d).images == "needs" else None
        if blind:  # decided before any call: its pictures would reach the model as lines of text
            scores.update(metrics.unscored(FILLS[d], f"not judged: {blind}, and {d} is judged on screenshots"))
        else:
            dimensions.append(d)
    with concurrent.futures.ThreadPoolExecutor(max(1, len(dimensions))) as pool:
        judged = [pool.submit(JUDGES[d], (interactive or client) if d in INTERACTIVE else client,
                              item, evidence, settings) for d in dimensions]
    for dimension, future in zip(dimensions, judged):
        serving = (interactive or client) if dimension in INTERACTIVE else client
        for name, s in future.result().items():
            # the model that answered this score's calls (a purpose may have its own)
            purpose = "wcb.alignment" if name in webcoder.ALIGNMENT.values() else dimension
            scores[name] = s.model_copy(update={"raw": {**(s.raw or {}), "judge_model": serving.model_for(purpose)}})
    return scores


def _names(settings: settings_mod.Judging) -> list[str]:
    return names_of(settings.dimensions)


def names_of(dimensions: Iterable[str]) -> list[str]:
    """The score names the judges of ``dimensions`` fill."""
    return [n for d in dimensions for n in FILLS[d]]

