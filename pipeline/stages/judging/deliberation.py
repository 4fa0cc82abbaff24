"""The three-round deliberation shared by aesthetics and usability.

advocate (strengths, each citing a place) → critic (defects, each citing a place) →
final judge, run ``runs`` times with the two reports held fixed. Each final judge
verifies the reports against the evidence, picks a 0–5 base and one signed
adjustment per aspect with a reason, through a tool with a strict schema; its score
is base + adjustments clipped to [0, 5]. The dimension score is the mean of the runs
left after dropping the highest and the lowest, × 20.

An answer that cannot be read is sent back with the reason (bounded), then that run
is dropped; with fewer than ``min_usable`` runs left the dimension is unscored with
the reason — never 0.

Calls that do not depend on each other go out together: the advocate and the critic;
then the first final judge alone, so that its prompt is in the API's prompt cache
(``reuse``) when the other runs, sent together, repeat it. Through a batched client
that is three batch rounds instead of seven; each request is the same either way. This module must not know where evidence comes from: the
caller hands it content blocks, the references that exist, and the fence nonce.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import math
from typing import Any, Collection, Sequence

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import fences

TOOL = "submit_verdict"


@dataclasses.dataclass(frozen=True)
class Aspect:
    id: str
    title: str


@dataclasses.dataclass(frozen=True)
class Dimension:
    name: str  # score name: "aesthetics", "usability"
    subject: str  # "the visual aesthetics", for prompts
    base_meaning: str  # what the base score summarises
    aspects: tuple[Aspect, ...]
    rules: str  # what counts as evidence and how to cite it


@dataclasses.dataclass(frozen=True)
class Options:
    runs: int = 5  # final-judge runs
    min_usable: int = 3  # fewer usable runs → unscored
    parse_retries: int = 2  # re-asks after an unreadable answer, per run
    max_adjustment: float = 1.0  # |adjustment| per aspect, score points
    judge_temperature: float | None = None  # final-judge runs; None: the client's own
    protocol: str = "deliberative"  # or "single": the final judge prompt alone, one run


class ParseError(ValueError):
    """The final judge's answer does not follow the verdict schema."""


def verdict_tool(dimension: Dimension, max_adjustment: float) -> dict[str, Any]:
    adjustment = {
        "type": "object", "additionalProperties": False, "required": ["delta", "reason"],
        "properties": {
            "delta": {"type": "number", "description": f"signed, between -{max_adjustment} and +{max_adjustment}; 0 when no adjustment is needed"},
            "reason": {"type": "string", "description": "the observation behind the adjustment, or why none is needed"},
        },
    }
    return {
        "name": TOOL,
        "description": f"Submit your verdict on {dimension.subject}.",
        "strict": True,
        "input_schema": {
            "type": "object", "additionalProperties": False,
            "required": ["discarded_claims", "added_observations", "base", "base_reason",
                         "adjustments", "citations", "summary"],
            "properties": {
                "discarded_claims": {"type": "array", "items": {"type": "string"},
                                     "description": "report claims the evidence does not support"},
                "added_observations": {"type": "array", "items": {"type": "string"},
                                       "description": "relevant observations both reports missed"},
                "base": {"type": "integer", "enum": [0, 1, 2, 3, 4, 5]},
                "base_reason": {"type": "string"},
                "adjustments": {
                    "type": "object", "additionalProperties": False,
                    "required": [a.id for a in dimension.aspects],
                    "properties": {a.id: {**adjustment, "description": a.title} for a in dimension.aspects},
                },
                "citations": {"type": "array", "items": {"type": "string"},
                              "description": "the evidence references your verdict rests on"},
                "summary": {"type": "string", "description": "two or three sentences"},
            },
        },
    }


def parse_verdict(reply: llm.Reply, dimension: Dimension, max_adjustment: float) -> tuple[float, dict[str, Any]]:
    """(score on 0–5, the verdict) or ParseError saying what is wrong."""
    uses = [u for u in reply.tool_uses if u.get("name") == TOOL]
    if not uses:
        raise ParseError(f"no {TOOL} call in the answer")
    return verdict_of(uses[-1].get("input"), dimension, max_adjustment)


def verdict_of(data: Any, dimension: Dimension, max_adjustment: float) -> tuple[float, dict[str, Any]]:
    """(score on 0–5, the verdict) of a verdict tool call's input, or ParseError."""
    if not isinstance(data, dict):
        raise ParseError("the verdict is not an object")
    base = data.get("base")
    if isinstance(base, bool) or not isinstance(base, (int, float)) or base not in (0, 1, 2, 3, 4, 5):
        raise ParseError(f"base must be an integer 0–5, got {base!r}")
    adjustments = data.get("adjustments")
    if not isinstance(adjustments, dict):
        raise ParseError("adjustments must be an object keyed by aspect")
    total = float(base)
    for aspect in dimension.aspects:
        item = adjustments.get(aspect.id)
        if not isinstance(item, dict):
            raise ParseError(f"missing adjustment for {aspect.id}")
        delta, reason = item.get("delta"), item.get("reason")
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not math.isfinite(delta):
            raise ParseError(f"{aspect.id}.delta must be a number, got {delta!r}")
        if abs(delta) > max_adjustment + 1e-9:
            raise ParseError(f"{aspect.id}.delta {delta} is outside ±{max_adjustment}")
        if not isinstance(reason, str) or not reason.strip():
            raise ParseError(f"{aspect.id}.reason is empty")
        total += float(delta)
    extra = set(adjustments) - {a.id for a in dimension.aspects}
    if extra:
        raise ParseError(f"unknown aspects: {sorted(extra)}")
    return min(5.0, max(0.0, total)), data


def trimmed_mean(values: Sequence[float]) -> float:
    """Mean after dropping one highest and one lowest value (needs three or more)."""
    if len(values) < 3:
        raise ValueError("a trimmed mean needs at least three values")
    ordered = sorted(values)
    kept = ordered[1:-1]
    return sum(kept) / len(kept)


def _role_prompt(role: str, dimension: Dimension, nonce: str) -> str:
    aspects = "; ".join(a.title for a in dimension.aspects)
    jobs = {
        "advocate": (
            f"You are the advocate in a three-round review of {dimension.subject} of a web "
            "application generated from a user's requirement. Find what the application does "
            "well. State each strength as a concrete observation and cite where it is seen. "
            "Do not give scores and do not list weaknesses: another reviewer covers those."),
        "critic": (
            f"You are the critic in a three-round review of {dimension.subject} of a web "
            "application generated from a user's requirement. Find its defects. State each "
            "defect as a concrete observation, cite where it is seen and say how much it "
            "matters to a user. Do not give scores and do not list strengths: another "
            "reviewer covers those."),
        "judge": (
            f"You are the final judge of {dimension.subject} of a web application generated "
            "from a user's requirement. An advocate and a critic have each written a report. "
            "Check every claim in both reports against the evidence yourself; discard the "
            "claims it does not support and add relevant observations both missed. Then pick "
            f"a base score from 0 to 5 for the {dimension.base_meaning} (0 nothing usable, "
            "1 very poor, 2 poor, 3 acceptable, 4 good, 5 excellent), and for each aspect a "
            "signed adjustment with its reason, writing 0 and saying so when no adjustment is "
            "needed. The final score is the base plus the adjustments, limited to 0–5. "
            f"Answer only by calling {TOOL}."),
    }
    return (f"{jobs[role]}\n\nAspects to consider: {aspects}.\n\nEvidence rules: {dimension.rules}\n\n"
            f"{fences.rules(nonce)}")


def deliberate(client: llm.Client, dimension: Dimension, requirement: str,
               evidence: Sequence[dict[str, Any]], known_refs: Collection[str], nonce: str,
               options: Options = Options()) -> metrics.Score:
    """Run the protocol over ``evidence`` (content blocks) and return the score."""
    scoped = client.derive(ledger=client.ledger.scoped(dimension.name))
    head = [llm.text_block(f"<requirement>\n{fences.fence(requirement, nonce, 'requirement')}\n</requirement>"),
            llm.text_block("<evidence>"), *evidence, llm.text_block("</evidence>")]
    digest = hashlib.sha256(json.dumps([_role_prompt("judge", dimension, nonce), head],
                                       sort_keys=True).encode()).hexdigest()
    single = options.protocol == "single"
    if single:  # Appendix D's baseline: no advocate, no critic, one final-judge run
        options = dataclasses.replace(options, runs=1, min_usable=1)
    raw: dict[str, Any] = {"protocol": "judge×1 (single round)" if single else
                           "advocate→critic→judge×%d" % options.runs, "prompt_sha256": digest}
    reports = _reports(scoped, dimension, head, nonce, single, raw)
    if isinstance(reports, metrics.Score):
        return reports
    if single:
        ask = [*head, llm.text_block(f"Judge the evidence and submit your verdict with {TOOL}.")]
    else:
        ask = [*head,
               llm.text_block(f"<advocate_report>\n{reports['advocate']}\n</advocate_report>"),
               llm.text_block(f"<critic_report>\n{reports['critic']}\n</critic_report>"),
               llm.text_block(f"Verify both reports against the evidence and submit your verdict with {TOOL}.")]
    judge = scoped if options.judge_temperature is None else scoped.derive(temperature=options.judge_temperature)
    final = _Final(judge, dimension, nonce, ask, options)
    outcomes = [final(0)]
    if options.runs > 1:
        with concurrent.futures.ThreadPoolExecutor(options.runs - 1) as pool:
            outcomes.extend(pool.map(final, range(1, options.runs)))
    runs = [entry for kind, entry in outcomes if kind == "run"]
    dropped = [entry for kind, entry in outcomes if kind == "dropped"]
    raw["runs"] = runs
    raw["dropped_runs"] = dropped
    if len(runs) < options.min_usable:
        why = "; ".join(f"run {d['sample']}: {d['reason']}" for d in dropped) or "no runs"
        return _unscored(dimension.name, f"only {len(runs)} of {options.runs} final-judge runs were usable "
                         f"(need {options.min_usable}): {why}", raw, scoped)
    return _combined(dimension, runs, single, known_refs, raw, scoped)


def _reports(scoped: llm.Client, dimension: Dimension, head: list[dict[str, Any]], nonce: str, single: bool,
             raw: dict[str, Any]) -> dict[str, str] | metrics.Score:
    """The advocate's and the critic's reports (none in the single protocol), neutralised;
    the unscored score when one of them gives none."""
    def report(role: str, ask: str) -> llm.Reply:
        return scoped.create(system=_role_prompt(role, dimension, nonce), sample=0,
                             purpose=f"{dimension.name}.{role}",
                             messages=[{"role": "user", "content": [*head, llm.text_block(ask)]}])

    roles = () if single else (("advocate", "List the strengths, each with its citation."),
                               ("critic", "List the defects, each with its citation."))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        asked = {role: pool.submit(report, role, ask) for role, ask in roles}
    reports = {}
    for role, future in asked.items():
        try:
            reply = future.result()
        except llm.LLMError as exc:
            return _unscored(dimension.name, f"the {role} call failed: {exc}", raw, scoped)
        if not reply.text.strip():
            return _unscored(dimension.name, f"the {role} gave an empty report", raw, scoped)
        # a report may quote app text: keep it from closing our tags or fences
        reports[role] = fences.neutralise(reply.text, nonce)
        raw[role] = reply.text
    return reports


@dataclasses.dataclass(frozen=True)
class _Final:
    """One final-judge run, by its sample index: ("run", the usable run) or ("dropped", why not)."""

    judge: llm.Client
    dimension: Dimension
    nonce: str
    ask: list[dict[str, Any]]
    options: Options

    def __call__(self, sample: int) -> tuple[str, dict[str, Any]]:
        options, dimension = self.options, self.dimension

        def problem(data: dict[str, Any]) -> str | None:
            try:
                verdict_of(data, dimension, options.max_adjustment)
            except ParseError as exc:
                return str(exc)
            return None

        answer = llm.ask_tool(self.judge, system=_role_prompt("judge", dimension, self.nonce), content=self.ask,
                              tool=verdict_tool(dimension, options.max_adjustment), purpose=f"{dimension.name}.judge",
                              check=problem, retries=options.parse_retries, sample=sample, reuse=options.runs > 1)
        if answer.failed:
            return "dropped", {"sample": sample, "reason": f"call failed: {answer.problem}"}
        if answer.value is None:
            return "dropped", {"sample": sample, "reason": f"unreadable after {answer.calls} answers: {answer.problem}",
                               "reply": answer.replies[-1].to_json()["content"] if answer.replies else []}
        score, verdict = verdict_of(answer.value, dimension, options.max_adjustment)
        return "run", {"sample": sample, "score": score, "attempts": answer.calls, "verdict": verdict}


def _combined(dimension: Dimension, runs: list[dict[str, Any]], single: bool, known_refs: Collection[str],
              raw: dict[str, Any], scoped: llm.Client) -> metrics.Score:
    """The score of the usable final-judge runs: their (trimmed) mean × 20, the
    citations that name real evidence, the middle run's summary as the rationale."""
    values = [r["score"] for r in runs]
    if len(values) >= 3:
        value = round(metrics.JUDGE_SCALE * trimmed_mean(values), 2)
        how = f"trimmed mean of {len(values)} final-judge scores {sorted(values)} (highest and lowest dropped) × 20"
    else:
        value = round(metrics.JUDGE_SCALE * sum(values) / len(values), 2)
        how = f"mean of {len(values)} final-judge score{'s' * (len(values) != 1)} {sorted(values)} × 20"
        if single:
            how = f"single-round judge score {values[0]} × 20"
    citations: list[str] = []
    unverified: list[str] = []
    for r in runs:
        for c in r["verdict"].get("citations", []):
            target = citations if c in known_refs else unverified
            if isinstance(c, str) and c not in target:
                target.append(c)
    raw["unverified_citations"] = unverified
    raw["tokens"] = scoped.ledger.totals()
    middle = sorted(runs, key=lambda r: (r["score"], r["sample"]))[len(runs) // 2]
    return metrics.score(dimension.name, value, how, citations, raw,
                         rationale=str(middle["verdict"].get("summary", "")))


def _unscored(name: str, reason: str, raw: dict[str, Any], scoped: llm.Client) -> metrics.Score:
    raw["tokens"] = scoped.ledger.totals()
    return metrics.score(name, None, reason, raw=raw)
