"""Requirement alignment: an agent that checks each acceptance criterion against the
runtime evidence with tools, and the three sub-scores it yields.

It starts from the state graph and a per-state overview, then may call (within a
bounded budget) ``search`` (a regular expression over DOM snapshots and the trace,
line-numbered hits), ``read`` (a page of a DOM snapshot or of the trace, with line
numbers), ``view_screenshot`` (the picture itself) and ``view_graph`` (the whole graph
or one state's transitions), and ends with ``submit_verdicts``: per criterion a yes/no
verdict, the evidence it rests on, a short analysis and a confidence. A yes must cite
runtime evidence that exists (a step, a state, a snapshot); a yes without it counts as
no. Sub-scores: 100 × satisfied / criteria, per kind. It must not see source code.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from iwcbench.pipeline.contracts import metrics, task
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.judging import bundle as bundle_mod
from iwcbench.pipeline.kits.llm import fences

SUBMIT = "submit_verdicts"
KINDS = ("functional", "content", "visual")
MAX_PATTERN = 300  # characters; longer patterns are refused (they risk slow matching)
MAX_LINE = 300  # characters of one line shown in a hit


def _tools(sources: list[str]) -> list[dict[str, Any]]:
    source_help = "'trace', 'dom' (every snapshot), or one snapshot key such as " + (sources[0] if sources else "dom/0001.html")
    return [
        {"name": "search", "description": "Regular-expression search (Python syntax, case-insensitive) "
         "over the DOM snapshots and/or the exploration trace. Returns matching lines as key:line: text.",
         "input_schema": {"type": "object", "additionalProperties": False, "required": ["pattern", "source"],
                          "properties": {"pattern": {"type": "string"},
                                         "source": {"type": "string", "description": source_help}}}},
        {"name": "read", "description": "Read one page of a DOM snapshot or of the trace, with line numbers.",
         "input_schema": {"type": "object", "additionalProperties": False, "required": ["source", "page"],
                          "properties": {"source": {"type": "string", "description": "'trace' or a snapshot key"},
                                         "page": {"type": "integer", "description": "1-based"}}}},
        {"name": "view_screenshot", "description": "Look at a screenshot by its key (shots/NNNN.png).",
         "input_schema": {"type": "object", "additionalProperties": False, "required": ["key"],
                          "properties": {"key": {"type": "string"}}}},
        {"name": "view_graph", "description": "The state graph; with a state id, that state and its transitions.",
         "input_schema": {"type": "object", "additionalProperties": False, "required": ["state"],
                          "properties": {"state": {"type": "string", "description": "a state id, or '' for all"}}}},
        {"name": SUBMIT, "description": "Submit one verdict per acceptance criterion. Ends the review.",
         "input_schema": {"type": "object", "additionalProperties": False, "required": ["verdicts"],
                          "properties": {"verdicts": {"type": "array", "items": {
                              "type": "object", "additionalProperties": False,
                              "required": ["criterion_id", "satisfied", "evidence", "analysis", "confidence"],
                              "properties": {
                                  "criterion_id": {"type": "string"},
                                  "satisfied": {"type": "boolean"},
                                  "evidence": {"type": "array", "items": {"type": "string"},
                                               "description": "references: 'step 4', 'S2', 'dom/0004.html:37', 'shots/0004.png'"},
                                  "analysis": {"type": "string"},
                                  "confidence": {"type": "number", "description": "0 to 1"}}}}}}},
    ]


class Tools:
    """The agent's view of the evidence: line-oriented, paginated, fenced."""

    def __init__(self, evidence: bundle_mod.Bundle, page_lines: int, max_hits: int) -> None:
        self.evidence = evidence
        self.page_lines = page_lines
        self.max_hits = max_hits
        self.sources = sorted({s.dom for s in evidence.trace.steps if s.dom})
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, source: str) -> list[str] | None:
        if source not in self._lines:
            if source == "trace":
                self._lines[source] = self.evidence.trace_lines()
            elif source in self.sources:
                text = self.evidence.text(source)
                # snapshots are often one huge line: one tag per line makes hits readable
                self._lines[source] = None if text is None else re.sub(r">\s*<", ">\n<", text).splitlines()
            else:
                self._lines[source] = None
        return self._lines[source]

    def run(self, name: str, args: dict[str, Any]) -> tuple[str | list[dict[str, Any]], bool]:
        """(tool result content, is_error)."""
        try:
            if name == "search":
                return self.search(str(args.get("pattern", "")), str(args.get("source", "dom"))), False
            if name == "read":
                return self.read(str(args.get("source", "trace")), int(args.get("page", 1))), False
            if name == "view_screenshot":
                return self.view_screenshot(str(args.get("key", ""))), False
            if name == "view_graph":
                return self.view_graph(str(args.get("state", ""))), False
        except ValueError as exc:
            return f"error: {exc}", True
        return f"error: no tool named {name!r}", True

    def search(self, pattern: str, source: str) -> str:
        if len(pattern) > MAX_PATTERN:
            raise ValueError(f"pattern longer than {MAX_PATTERN} characters")
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"bad regular expression: {exc}") from exc
        targets = self.sources if source == "dom" else [source]
        hits: list[str] = []
        total = 0
        for key in targets:
            lines = self.lines(key)
            if lines is None:
                raise ValueError(f"unknown source {key!r}; sources: trace, dom, {', '.join(self.sources[:20])}")
            for number, line in enumerate(lines, 1):
                if regex.search(line):
                    total += 1
                    if len(hits) < self.max_hits:
                        hits.append(f"{key}:{number}: {line.strip()[:MAX_LINE]}")
        if not hits:
            return f"no match for /{pattern}/ in {source}"
        more = f"\n({total - len(hits)} more hits not shown; narrow the pattern)" if total > len(hits) else ""
        return f"{total} hit(s):\n" + fences.fence("\n".join(hits), self.evidence.nonce, "search") + more

    def read(self, source: str, page: int) -> str:
        lines = self.lines(source)
        if lines is None:
            raise ValueError(f"unknown source {source!r}; sources: trace, {', '.join(self.sources[:20])}")
        pages = max(1, -(-len(lines) // self.page_lines))
        if not 1 <= page <= pages:
            raise ValueError(f"{source} has pages 1 to {pages}")
        start = (page - 1) * self.page_lines
        chunk = [f"{start + i + 1:5d}| {line[:MAX_LINE * 2]}" for i, line in enumerate(lines[start:start + self.page_lines])]
        return f"{source} page {page} of {pages}:\n" + fences.fence("\n".join(chunk), self.evidence.nonce, source)

    def view_screenshot(self, key: str) -> list[dict[str, Any]]:
        known = {s.screenshot for s in self.evidence.trace.steps if s.screenshot}
        if key not in known:
            raise ValueError(f"unknown screenshot {key!r}; known: {', '.join(sorted(known)[:30])}")
        data = self.evidence.read(key)
        if data is None:
            raise ValueError(f"{key} is missing from the store")
        return [llm.text_block(f"screenshot {key}"), llm.image_block(data)]

    def view_graph(self, state: str) -> str:
        graph = self.evidence.graph
        if not state or graph is None:
            return "\n".join(self.evidence.graph_lines())
        node = next((n for n in graph.nodes if n.id == state), None)
        if node is None:
            raise ValueError(f"no state {state!r}")
        lines = [line for line in self.evidence.graph_lines()
                 if line.startswith(f"{state}:") or line.startswith(f"{state}->") or f"->{state}:" in line]
        return "\n".join(lines)


def _system(nonce: str, budget: int) -> str:
    return (
        "You check whether a web application, generated from a user's requirement, satisfies "
        "each of its acceptance criteria. You cannot see its source code; you see what a "
        "tester recorded while using it: a state graph, a trace of steps, DOM snapshots and "
        "screenshots. Use the tools to find the evidence each criterion needs "
        f"(at most {budget} tool calls), then call {SUBMIT} once with a verdict for every "
        "criterion.\n\n"
        "A criterion is satisfied only if the running application shows it: the feature is "
        "present, reachable, and was observed to work (functional criteria: available features, "
        "interactions performed and the state changes they caused; content criteria: the "
        "required text, data and resources; visual criteria: the required appearance and "
        "components). Code or markup that was never exercised, or a claim the app makes about "
        "itself, is not enough. There is no partial credit: if the evidence is missing or "
        "contradictory, the answer is no. Cite the references you relied on (\"step 4\", \"S2\", "
        "\"dom/0004.html:37\", \"shots/0004.png\"), and give a short analysis and a confidence "
        "between 0 and 1.\n\n" + fences.rules(nonce))


def _opening(item: task.Task, evidence: bundle_mod.Bundle, tools: Tools) -> str:
    """The agent's first message: the requirement, the criteria, the graph and what it may read."""
    nonce = evidence.nonce
    criteria = "\n".join(f"{c.id} [{c.kind}]: {c.text}" for c in item.checklist)
    return "\n\n".join([
        f"<requirement>\n{fences.fence(item.prompt, nonce, 'requirement')}\n</requirement>",
        f"<criteria>\n{fences.neutralise(criteria, nonce)}\n</criteria>",
        "<graph>\n" + "\n".join(evidence.graph_lines()) + "\n</graph>",
        "State overview (first words of each state's page):\n" + "\n".join(evidence.state_overview()),
        "Snapshots available: " + (", ".join(tools.sources) or "none") + "; the trace is 'trace'.",
    ])


@dataclasses.dataclass
class _Progress:
    """The agent's conversation so far: tool calls spent, failed answers, verdicts."""

    log: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    calls: int = 0
    failures: int = 0
    verdicts: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    problem: str | None = "no verdicts were submitted"


def _answer(uses: list[dict[str, Any]], tools: Tools, item: task.Task, progress: _Progress
            ) -> tuple[list[dict[str, Any]], bool]:
    """The tool results for one reply's tool uses, and whether its verdicts were accepted."""
    answers = []
    submitted = False
    for use in uses:
        if use["name"] == SUBMIT:
            got, progress.problem = _read_verdicts(use.get("input"), item)
            progress.verdicts.update(got)
            progress.log.append({"tool": SUBMIT, "verdicts": len(got), "problem": progress.problem})
            if progress.problem is None:
                submitted = True
                answers.append(llm.tool_result_block(use["id"], "received"))
            else:
                progress.failures += 1
                answers.append(llm.tool_result_block(use["id"], f"not accepted: {progress.problem}", is_error=True))
            continue
        progress.calls += 1
        content, is_error = tools.run(use["name"], use.get("input") or {})
        progress.log.append({"tool": use["name"], "input": use.get("input"), "error": is_error,
                             "result_chars": len(content) if isinstance(content, str) else None})
        answers.append(llm.tool_result_block(use["id"], content, is_error))
    return answers, submitted


def judge(client: llm.Client, item: task.Task, evidence: bundle_mod.Bundle, *, max_tool_calls: int = 40,
          parse_retries: int = 2, page_lines: int = 80, max_hits: int = 40) -> dict[str, metrics.Score]:
    """The three alignment sub-scores for one app (unscored ones carry the reason)."""
    names = {k: f"alignment_{k}" for k in KINDS}
    if not item.checklist:
        return metrics.unscored(names.values(), "task has no checklist; run iwc checklist")
    scoped = client.derive(ledger=client.ledger.scoped("alignment"))
    tools = Tools(evidence, page_lines, max_hits)
    nonce = evidence.nonce
    messages: list[dict[str, Any]] = [{"role": "user", "content": [llm.text_block(_opening(item, evidence, tools))]}]
    all_tools = _tools(tools.sources)
    submit_only = [t for t in all_tools if t["name"] == SUBMIT]
    progress = _Progress()
    for _ in range(max_tool_calls + parse_retries + 2):
        out_of_budget = progress.calls >= max_tool_calls
        choice = scoped.forcing(SUBMIT if out_of_budget else None, "alignment.agent")
        try:
            reply = scoped.create(system=_system(nonce, max_tool_calls), messages=messages,
                                  tools=submit_only if out_of_budget else all_tools,
                                  tool_choice=choice, sample=0, purpose="alignment.agent", reuse=True)
        except llm.LLMError as exc:
            return _all_unscored(names, f"the alignment agent's call failed: {exc}", progress.log, scoped)
        messages.append(reply.as_message())
        uses = reply.tool_uses
        if not uses:
            progress.failures += 1
            if progress.failures > parse_retries:
                break
            messages.append({"role": "user", "content": [llm.text_block(
                f"Use the tools, then call {SUBMIT} with a verdict for every criterion.")]})
            continue
        answers, submitted = _answer(uses, tools, item, progress)
        if submitted or progress.failures > parse_retries:
            break
        messages.append({"role": "user", "content": answers})
    return _scores(item, progress.verdicts, evidence, names, progress.log, progress.calls, scoped, progress.problem)


def _read_verdicts(data: Any, item: task.Task) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The well-formed verdicts, and what is wrong (None when every criterion has one)."""
    ids = {c.id for c in item.checklist}
    got: dict[str, dict[str, Any]] = {}
    problems = []
    for v in (data or {}).get("verdicts", []) if isinstance(data, dict) else []:
        if not isinstance(v, dict) or v.get("criterion_id") not in ids:
            problems.append(f"unknown criterion {v.get('criterion_id') if isinstance(v, dict) else v!r}")
            continue
        if not isinstance(v.get("satisfied"), bool):
            problems.append(f"{v['criterion_id']}: satisfied must be true or false")
            continue
        conf = v.get("confidence")
        got[v["criterion_id"]] = {
            "satisfied": v["satisfied"],
            "evidence": [e for e in v.get("evidence", []) if isinstance(e, str)],
            "analysis": str(v.get("analysis", "")),
            "confidence": float(conf) if isinstance(conf, (int, float)) and not isinstance(conf, bool) else None,
        }
    missing = [c.id for c in item.checklist if c.id not in got]
    if missing:
        problems.append("no verdict for " + ", ".join(missing))
    return got, ("; ".join(problems) or None)


def _runtime_refs(cited: list[str], known: set[str]) -> list[str]:
    """The citations that name existing runtime evidence ("dom/0003.html:42" → its file)."""
    out = []
    for c in cited:
        ref = c.strip()
        base = re.sub(r":\d+$", "", ref)
        if ref in known or base in known:
            out.append(ref)
    return out


def _scores(item: task.Task, verdicts: dict[str, dict[str, Any]], evidence: bundle_mod.Bundle,
            names: dict[str, str], log: list[dict[str, Any]], calls: int, scoped: llm.Client,
            problem: str | None) -> dict[str, metrics.Score]:
    known = evidence.refs()
    tokens = scoped.ledger.totals()
    scores = {}
    for kind in KINDS:
        crit = [c for c in item.checklist if c.kind == kind]
        name = names[kind]
        if not crit:
            scores[name] = metrics.score(name, None, f"the checklist has no {kind} criteria")
            continue
        missing = [c.id for c in crit if c.id not in verdicts]
        raw = {"tool_calls": calls, "log": log, "tokens": tokens}
        if missing:
            scores[name] = metrics.score(name, None, (
                f"the alignment agent gave no usable verdict for {', '.join(missing)}: {problem}"), raw=raw)
            continue
        kept: list[dict[str, Any]] = []
        cited: list[str] = []
        lines: list[str] = []
        for c in crit:
            v = dict(verdicts[c.id])
            refs = _runtime_refs(v["evidence"], known)
            if v["satisfied"] and not refs:
                v["satisfied"] = False
                v["note"] = "yes without runtime evidence counted as no"
            kept.append({"id": c.id, **v})
            cited.extend(r for r in refs if r not in cited)
            lines.append(f"{c.id} {'yes' if v['satisfied'] else 'no'}: {v['analysis']}")
        yes = sum(1 for v in kept if v["satisfied"])
        raw["verdicts"] = kept
        scores[name] = metrics.score(
            name, round(100 * yes / len(crit), 2), f"{yes} of {len(crit)} {kind} criteria satisfied",
            cited, raw, rationale="\n".join(lines))
    return scores


def _all_unscored(names: dict[str, str], reason: str, log: list[dict[str, Any]],
                  scoped: llm.Client) -> dict[str, metrics.Score]:
    raw = {"log": log, "tokens": scoped.ledger.totals()}
    return metrics.unscored(names.values(), reason, raw=raw)
