"""WebCoderBench's five LLM metrics (seed 002, Table 3): static judges that read the
app's source code or look at its start screen, unlike IWC's judges, which work from
what the explorer saw.

* ``wcb_functionality`` (1): the source and the requirement → would the code do what
  was asked? 0-10 against a rubric, ×10.
* ``wcb_visual_experience`` (6): the start-page screenshot → layout, readability,
  polish; 0-10, ×10.
* ``wcb_functional_alignment`` / ``wcb_visual_alignment`` / ``wcb_content_alignment``
  (22-24): the source and the checklist's criteria of one kind → met or not per
  criterion, % met; a kind without criteria is unscored.

One call per metric, through ``llm.Client.create`` (cached: ``sample=0``), answered by
a strict tool. App text (the code) is fenced and neutralised; the requirement and the
criteria are ours. An unusable answer is asked again ``parse_retries`` times, then the
metric is unscored with the reason, never 0. This module must not explore or read
anything but what its bundle's reader gives it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Sequence


from iwcbench.pipeline.contracts import artifacts, metrics, quality as records, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.judging import bundle as bundle_mod
from iwcbench.pipeline.kits.llm import fences

NAMES = tuple(m.name for m in metrics.WEBCODER if m.kind == "llm")  # the metric-table rows filled here
ALIGNMENT = {"functional": "wcb_functional_alignment", "visual": "wcb_visual_alignment",
             "content": "wcb_content_alignment"}
MAX_CODE_CHARS = 60_000  # about 15k tokens of source per prompt; the rest is named, not shown
RATE = "submit_rating"
VERDICTS = "submit_code_verdicts"

_RATING_TOOL = {
    "name": RATE, "description": "Submit the rating.", "strict": True,
    "input_schema": {"type": "object", "additionalProperties": False, "required": ["problems", "rating", "summary"],
                     "properties": {"problems": {"type": "array", "items": {"type": "string"}},
                                    "rating": {"type": "integer", "enum": list(range(11))},
                                    "summary": {"type": "string"}}},
}
_VERDICT_TOOL = {
    "name": VERDICTS, "description": "Submit one verdict per criterion.", "strict": True,
    "input_schema": {"type": "object", "additionalProperties": False, "required": ["verdicts"],
                     "properties": {"verdicts": {"type": "array", "items": {
                         "type": "object", "additionalProperties": False, "required": ["id", "met", "reason"],
                         "properties": {"id": {"type": "string"}, "met": {"type": "boolean"},
                                        "reason": {"type": "string"}}}}}},
}

_FUNCTIONALITY = (
    "You review the source code of a web application that was generated from a user's requirement. "
    "Decide, by reading the code only, whether it would work as the user asked when opened in a browser: "
    "are the requested features implemented, wired to the page, and free of bugs that would break them "
    "(wrong selectors, unhandled states, logic errors, syntax errors)? List the problems you find, then rate "
    "0-10: 10 every requested feature works as asked; 8 all core features work, with small flaws; 5 about "
    "half of what was asked works or a core feature is broken; 2 almost nothing works; 0 it is not a working "
    f"application at all. Answer by calling {RATE}.")
_VISUAL = (
    "You look at the first screen of a web application as a visitor sees it in a 1280×800 browser window. "
    "Judge its general visual experience regardless of what it was asked to do: layout and alignment, "
    "spacing, readability of text, colour and contrast, visual hierarchy, polish (nothing broken, clipped, "
    "overlapping or unstyled). List the problems you see, then rate 0-10: 10 polished and professional; "
    "7 clean with minor flaws; 5 usable but plain or uneven; 2 broken or hard to read; 0 blank or unusable. "
    f"Answer by calling {RATE}.")
_ALIGNMENT = (
    "You check a generated web application's source code against acceptance criteria taken from the "
    "user's requirement. For each criterion decide, from the code alone, whether the application as "
    "written meets it: the feature, content or visual property must really be there (implemented and "
    "shown), not merely mentioned in a comment or a name. When the code does not settle it, answer not "
    f"met. Give every criterion one verdict with a short reason. Answer by calling {VERDICTS}.")


def code_text(sources: records.AppSources, nonce: str, limit: int = MAX_CODE_CHARS) -> tuple[str, list[str]]:
    """The app's files, fenced one by one, up to ``limit`` characters; the names of
    the files left out for room."""
    parts, left_out, used = [], [], 0
    for f in sources.files:
        if used + len(f.text) > limit:
            left_out.append(f.path)
            continue
        used += len(f.text)
        parts.append(f"File {f.path} ({f.language}):\n{fences.fence(f.text, nonce, f.path)}")
    return "\n\n".join(parts), left_out


def _ask(client: llm.Client, system: str, content: Sequence[dict[str, Any]], tool: dict, retries: int,
         purpose: str, check: llm.Check) -> tuple[dict | None, str, int]:
    """(answer, why there is none, calls): the tool's input once ``check`` accepts it."""
    answer = llm.ask_tool(client, system=system, content=content, tool=tool, purpose=purpose, check=check,
                          retries=retries)
    if answer.failed:
        return None, f"the judge could not answer: {answer.problem}", answer.calls
    if answer.value is None:
        return None, f"unusable answer after {answer.calls} tries: {answer.problem}", answer.calls
    return answer.value, "", answer.calls


def _rating_problem(answer: dict) -> str | None:
    rating = answer.get("rating")
    return None if isinstance(rating, int) and 0 <= rating <= 10 else "rating must be a whole number 0-10"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _rating_score(name: str, answer: dict | None, why: str, calls: int, digest: str) -> metrics.Score:
    if answer is None:
        return metrics.score(name, None, why, raw={"calls": calls, "prompt_digest": digest})
    problems = [str(p) for p in answer.get("problems", [])][:20]
    reason = f"rated {answer['rating']}/10: {str(answer.get('summary', '')).strip()[:300]}"
    return metrics.score(name, 10.0 * answer["rating"], reason, raw={
        "rating": answer["rating"], "problems": problems, "calls": calls, "prompt_digest": digest},
        rationale="\n".join(f"- {p}" for p in problems) or None)


def _requirement(item: task.Task, nonce: str) -> str:
    return f"<requirement>\n{fences.fence(item.prompt, nonce, 'requirement')}\n</requirement>"


@dataclasses.dataclass(frozen=True)
class _Asking:
    """What every question about one app shares: the client, the task, the code as the
    judge reads it (or why there is none)."""

    client: llm.Client
    item: task.Task
    nonce: str
    parse_retries: int
    code: str
    code_block: str
    no_code: str

    @property
    def rules(self) -> str:
        return fences.rules(self.nonce)


def judge(client: llm.Client, item: task.Task, evidence: bundle_mod.Bundle, parse_retries: int = 2
          ) -> dict[str, metrics.Score]:
    """The five WebCoderBench LLM metrics of one app."""
    nonce = evidence.nonce
    kept = evidence.files.load_or_none(artifacts.SOURCES)
    code, left_out = code_text(kept, nonce) if kept is not None else ("", [])
    omitted = (f"\n(Left out for length: {', '.join(left_out)}.)" if left_out else "")
    no_code = ("no source code was kept for this app (no sources.json)" if kept is None else
               "the app has no HTML, CSS or JavaScript of its own to read")
    asking = _Asking(client=client, item=item, nonce=nonce, parse_retries=parse_retries, code=code,
                     code_block=f"<source_code>\n{code}{omitted}\n</source_code>", no_code=no_code)
    out = {"wcb_functionality": _functionality(asking), "wcb_visual_experience": _visual(asking, evidence)}
    for kind, name in ALIGNMENT.items():
        out[name] = _alignment(asking, kind, name)
    return out


def _functionality(asking: _Asking) -> metrics.Score:
    if not asking.code:
        return metrics.score("wcb_functionality", None, f"not judged: {asking.no_code}")
    system = f"{_FUNCTIONALITY}\n\n{asking.rules}"
    content = [llm.text_block(f"{_requirement(asking.item, asking.nonce)}\n\n{asking.code_block}")]
    answer, why, calls = _ask(asking.client, system, content, _RATING_TOOL, asking.parse_retries,
                              "wcb.functionality", _rating_problem)
    return _rating_score("wcb_functionality", answer, why, calls, _digest(system, asking.code))


def _visual(asking: _Asking, evidence: bundle_mod.Bundle) -> metrics.Score:
    shot_key = next((s.screenshot for s in evidence.trace.steps if s.screenshot), None)
    shot = evidence.read(shot_key) if shot_key else None
    if shot is None:
        return metrics.score("wcb_visual_experience", None, "not judged: no screenshot of the start page")
    blind = asking.client.blind("wcb.visual")
    if blind:
        return metrics.score("wcb_visual_experience", None, f"not judged: {blind}, and it is judged on a screenshot")
    system = f"{_VISUAL}\n\n{asking.rules}"
    content = [llm.text_block(f"<screenshot> {shot_key}, the start page </screenshot>"), llm.image_block(shot)]
    answer, why, calls = _ask(asking.client, system, content, _RATING_TOOL, asking.parse_retries, "wcb.visual",
                              _rating_problem)
    return _rating_score("wcb_visual_experience", answer, why, calls,
                         _digest(system, hashlib.sha256(shot).hexdigest()))


def _alignment(asking: _Asking, kind: str, name: str) -> metrics.Score:
    """The share of the task's ``kind`` criteria the code meets."""
    criteria = [c for c in asking.item.checklist if c.kind == kind]
    if not criteria:
        return metrics.score(name, None, f"not judged: the task has no {kind} criteria")
    if not asking.code:
        return metrics.score(name, None, f"not judged: {asking.no_code}")
    listing = "\n".join(f"{c.id}: {c.text}" for c in criteria)
    system = f"{_ALIGNMENT}\n\n{asking.rules}"
    content = [llm.text_block(f"{_requirement(asking.item, asking.nonce)}\n\n<criteria>\n{listing}\n</criteria>"
                              f"\n\n{asking.code_block}")]
    ids = {c.id for c in criteria}

    def check(answer: dict) -> str | None:
        given = {v.get("id") for v in answer.get("verdicts", []) if isinstance(v, dict)}
        missing = sorted(ids - given)
        return f"no verdict for {', '.join(missing)}" if missing else None

    answer, why, calls = _ask(asking.client, system, content, _VERDICT_TOOL, asking.parse_retries,
                              f"wcb.alignment.{kind}", check)
    if answer is None:
        return metrics.score(name, None, why, raw={"calls": calls})
    verdicts = {v["id"]: v for v in answer["verdicts"] if isinstance(v, dict) and v.get("id") in ids}
    met = [i for i in sorted(ids) if verdicts[i].get("met") is True]
    return metrics.score(
        name, round(100.0 * len(met) / len(ids), 2), f"{len(met)} of {len(ids)} {kind} criteria met in the code",
        [f"{i}: {'met' if i in met else 'not met'}" for i in sorted(ids)][:8],
        {"verdicts": [{"id": i, "met": verdicts[i].get("met") is True,
                       "reason": str(verdicts[i].get("reason", ""))[:300]} for i in sorted(ids)],
         "calls": calls, "prompt_digest": _digest(system, listing, asking.code)},
        rationale="\n".join(f"{i} {'met' if i in met else 'not met'}: {str(verdicts[i].get('reason', ''))[:200]}"
                            for i in sorted(ids)))
