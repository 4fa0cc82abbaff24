"""Judging: the LLM-scored IWC dimensions of one app, from its stored evidence.

``judge_app`` gives five scores — ``aesthetics`` and ``usability`` (three-round
deliberation, 0–100) and ``alignment_functional`` / ``alignment_content`` /
``alignment_visual`` (the alignment agent, % of criteria satisfied) — plus
WebCoderBench's five static LLM metrics (``wcb``: webcoder.py). A judge that
cannot answer yields an unscored score with the reason, never 0; the prompts' digest,
the raw replies and the tokens are kept in ``Score.raw``. ``rescore`` re-judges the
evidence of a finished run without exploring again.

The dimensions of an app are judged at the same time. Judges whose every call depends
on the answer before (``INTERACTIVE``: the alignment agent) take the ``interactive``
client; the others may be given a batched one (kits/llm_batches) — their calls are the
same either way.

This stage reads evidence only through ``read(key)`` / the store, never explores, and
never imports another stage.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import hmac
import logging
from typing import Callable, Iterable

from iwcbench.pipeline.contracts import metrics, results, settings as settings_mod, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits import store as store_mod
from iwcbench.pipeline.stages.judging import aesthetics, alignment, deliberation, neutralising, usability, webcoder
from iwcbench.pipeline.stages.judging import bundle as bundle_mod

log = logging.getLogger(__name__)

SCORE_NAMES = metrics.names("judging")  # the metric table's rows this stage fills


def options(settings: settings_mod.Judging) -> deliberation.Options:
    return deliberation.Options(runs=settings.runs, min_usable=settings.min_usable_runs,
                                parse_retries=settings.parse_retries, max_adjustment=settings.max_adjustment,
                                judge_temperature=settings.temperature, protocol=settings.protocol)


Judge = Callable[[llm.Client, task.Task, bundle_mod.Bundle, settings_mod.Judging], dict[str, results.Score]]

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
# Agents: each call depends on the last answer, so a batch round per call would take hours.
INTERACTIVE: frozenset[str] = frozenset({"alignment"})
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
        return neutralising.new_nonce()
    message = item.id.encode() + b"\0" + hashlib.sha256(trace_bytes).digest()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]


def judge_app(item: task.Task, read: Callable[[str], bytes | None], client: llm.Client,
              settings: settings_mod.Judging = settings_mod.Judging(), *,
              interactive: llm.Client | None = None) -> dict[str, results.Score]:
    """All judged scores of one app (the dimensions of ``settings``). ``interactive``
    serves the ``INTERACTIVE`` judges (default: ``client``). Never raises for the app's
    or the API's trouble."""
    try:
        nonce = fence_nonce(client, item, read("trace.json") or b"")
        evidence = bundle_mod.Bundle.load(read, nonce)
    except bundle_mod.MissingEvidence as exc:
        return metrics.unscored(_names(settings), f"cannot judge: {exc}")
    scores: dict[str, results.Score] = {}
    dimensions = list(settings.dimensions)
    with concurrent.futures.ThreadPoolExecutor(max(1, len(dimensions))) as pool:
        judged = [pool.submit(JUDGES[d], (interactive or client) if d in INTERACTIVE else client,
                              item, evidence, settings) for d in dimensions]
    for future in judged:
        scores.update(future.result())
    model = client.config.model
    return {name: s.model_copy(update={"raw": {**(s.raw or {}), "judge_model": model}})
            for name, s in scores.items()}


def _names(settings: settings_mod.Judging) -> list[str]:
    return names_of(settings.dimensions)


def names_of(dimensions: Iterable[str]) -> list[str]:
    """The score names the judges of ``dimensions`` fill."""
    return [n for d in dimensions for n in FILLS[d]]


def rescore(store: store_mod.Store, tasks: dict[str, task.Task], client: llm.Client,
            settings: settings_mod.Judging = settings_mod.Judging(), *, suffix: str = "",
            models: Iterable[str] = (), interactive: llm.Client | None = None,
            parallel: int = 1) -> list[results.AppResult]:
    """Re-judge every stored app (``apps/*/*/result.json``) with ``client``'s model and
    write the results back. ``suffix`` keeps the old scores: the new ones are stored as
    ``aesthetics@<suffix>`` etc. instead of replacing them. Apps whose task is unknown,
    or that never ran (no trace), keep their result unchanged. ``parallel`` apps are
    judged at a time (a batched ``client`` gathers their calls into shared batches)."""
    wanted = set(models)

    def one(key: str) -> results.AppResult | None:
        result = results.AppResult.model_validate(store_mod.get_json(store, key))
        if wanted and result.model not in wanted:
            return None
        prefix = key[: -len("/result.json")]
        item = tasks.get(result.task_id)
        if item is None or not store.exists(f"{prefix}/trace.json"):
            log.info("rescore: skipping %s (%s)", prefix, "unknown task" if item is None else "no trace")
            return result

        def read(rel: str) -> bytes | None:
            try:
                return store.get_bytes(f"{prefix}/{rel}")
            except store_mod.NotFound:
                return None

        scope = client.ledger.scoped(prefix)
        new = judge_app(item, read, client.derive(ledger=scope), settings,
                        interactive=(interactive or client).derive(ledger=scope))
        if suffix:
            new = {f"{name}@{suffix}": s for name, s in new.items()}
        result = result.model_copy(update={"scores": {**result.scores, **new}})
        store_mod.put_model(store, key, result)
        return result

    keys = sorted(k for k in store.list("apps/") if k.endswith("/result.json"))
    with concurrent.futures.ThreadPoolExecutor(max(1, parallel)) as pool:
        done = list(pool.map(one, keys))
    return [r for r in done if r is not None]
