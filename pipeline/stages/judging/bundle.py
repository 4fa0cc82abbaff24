"""One app's stored evidence as the judges see it: loaded once, rendered as text.

Reads trace.json, graph.json, DOM snapshots and screenshots through the caller's
``artifacts.Reader`` (keys relative to the app prefix). Renders the trace and the state
graph as numbered lines in which every value the app controls is fenced. It must not
judge, and must not fetch anything the reader does not give it.
"""

from __future__ import annotations

import dataclasses
import html.parser

from iwcbench.pipeline.contracts import artifacts, evidence
from iwcbench.pipeline.kits.llm import fences


class MissingEvidence(ValueError):
    """The evidence a judge needs is not in the store (reason for an unscored score)."""


@dataclasses.dataclass
class Bundle:
    trace: evidence.Trace
    graph: evidence.StateGraph | None
    files: artifacts.Reader
    nonce: str

    @classmethod
    def load(cls, files: artifacts.Reader, nonce: str) -> Bundle:
        try:
            trace = files.load(artifacts.TRACE)
        except artifacts.Unreadable as exc:
            raise MissingEvidence(f"{artifacts.TRACE.key} is not a valid trace: {exc.problems} problem(s)") from exc
        if trace is None:
            raise MissingEvidence(f"no {artifacts.TRACE.key} in the evidence")
        # (the trace alone is still evidence, without a readable graph; the overview says so)
        graph = files.load_or_none(artifacts.GRAPH)
        return cls(trace, graph, files, nonce)

    def read(self, key: str) -> bytes | None:
        """Any file of the app's evidence (a DOM snapshot, a screenshot), or None."""
        return self.files.raw(key)

    # ------------------------------------------------------------------ lookups

    def state_of_step(self) -> dict[int, str]:
        if self.graph is None:
            return {}
        return {step: node.id for node in self.graph.nodes for step in node.steps}

    def refs(self) -> set[str]:
        """Every reference a judge may cite: steps, states, edges, snapshot keys."""
        refs = {f"step {s.index}" for s in self.trace.steps}
        for s in self.trace.steps:
            refs.update(k for k in (s.dom, s.screenshot) if k)
        if self.graph is not None:
            refs.update(n.id for n in self.graph.nodes)
            refs.update(f"{e.source}->{e.target}" for e in self.graph.edges)
            refs.update(k for n in self.graph.nodes for k in (n.dom, n.screenshot) if k)
        return refs

    def text(self, key: str) -> str | None:
        data = self.read(key)
        return None if data is None else data.decode("utf-8", "replace")

    # ------------------------------------------------------------------ renderings

    def trace_lines(self) -> list[str]:
        """One line per step (plus indented detail lines), app values fenced."""
        fence = self._inline
        states = self.state_of_step()
        lines = [f"exploration by the {self.trace.explorer} explorer; stop reason: "
                 f"{fence(self.trace.stop_reason or 'none')}"]
        for s in self.trace.steps:
            a = s.action
            what = a.kind + (f" on {fence(a.target)}" if a.target else "")
            if a.value is not None:
                what += f" with value {fence(a.value)}"
            status = "ok" if s.ok else f"FAILED ({fence(s.error or 'no reason')})"
            state = f" → {states[s.index]}" if s.index in states else ""
            gain = f", coverage +{s.coverage_gain:.1f} pt" if s.coverage_gain else ""
            lines.append(f"step {s.index}: {what} — {status}{state}{gain}; url {fence(s.url)}")
            if a.intent:
                lines.append(f"    tester's intent: {fence(a.intent)}")
            for label, values in (("page error", s.page_errors), ("console error", s.console_errors),
                                  ("dialog", s.dialogs), ("blocked request", s.blocked_requests),
                                  ("note", s.notes)):
                for v in values[:5]:
                    lines.append(f"    {label}: {fence(v)}")
                if len(values) > 5:
                    lines.append(f"    … {len(values) - 5} more {label}s")
            refs = [k for k in (s.dom, s.screenshot) if k]
            if refs:
                lines.append(f"    evidence: {', '.join(refs)}")
        if self.trace.summary:
            lines.append(f"tester's final summary: {fence(self.trace.summary, 2000)}")
        return lines

    def graph_lines(self) -> list[str]:
        if self.graph is None:
            return ["(no state graph was stored)"]
        fence = self._inline
        lines = [f"{len(self.graph.nodes)} states, {len(self.graph.edges)} transitions"]
        for n in self.graph.nodes:
            shot = f", screenshot {n.screenshot}" if n.screenshot else ""
            dom = f", DOM {n.dom}" if n.dom else ""
            lines.append(f"{n.id}: title {fence(n.title or '(none)')}, first seen at step {n.first_step}, "
                         f"visited at steps {list(n.steps)}{dom}{shot}")
        for e in self.graph.edges:
            lines.append(f"{e.source}->{e.target}: {fence(e.action)} at steps {list(e.steps)}"
                         + ("" if e.ok else " (action failed)"))
        return lines

    def state_overview(self) -> list[str]:
        """Per state: title, URL and the first visible words of its DOM."""
        if self.graph is None:
            return ["(no state graph; use the trace)"]
        lines = []
        for n in self.graph.nodes:
            words = ""
            if n.dom:
                words = " ".join(_visible_text(self.text(n.dom) or "").split())[:240]
            lines.append(f"{n.id} ({n.dom or 'no DOM'}): {self._inline(words or '(no text)', 260)}")
        return lines

    def _inline(self, value: str, limit: int = 300) -> str:
        return fences.inline(value, self.nonce, limit)


def _visible_text(markup: str) -> str:
    class Text(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.parts: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag: str, attrs: object) -> None:
            if tag in ("script", "style", "noscript", "template"):
                self.skip += 1

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style", "noscript", "template") and self.skip:
                self.skip -= 1

        def handle_data(self, data: str) -> None:
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(markup)
    return " ".join(parser.parts)

