"""Borda-count weights from a preference questionnaire (WebCoderBench §4.3).

Each response ranks the nine perspectives, then the metrics within each perspective.
An item ranked k-th of n gets ``n − k + 1`` points (n for the first, 1 for the last);
items a response ties share the mean of the points of the places they take. An item's
weight is its points summed over the responses, divided by the points of all items of
its ranking; a metric's weight is its perspective's weight times its weight within the
perspective, so the metric weights sum to 1.

The questionnaire is a CSV file (``parse``):

    respondent,persona,count,perspectives,code_quality,visual_quality,...

* ``perspectives``: the nine perspective names, best first, separated by ``>``; ``=``
  joins items the respondent ranks equal (``functional_alignment>code_quality=content_quality>…``).
* one column per perspective: its metrics (metric-table names) in the same syntax;
  empty means "no preference" (all tie), which is also how a one-metric perspective reads.
* ``persona`` (optional): the respondent's role, for ``--persona``; ``count`` (optional,
  default 1): how many identical responses the row stands for.
* lines starting with ``#`` are comments (where the responses came from).

Pure: text in, weights out. It must not read files or know the metric table; the
caller passes the perspectives and their metrics.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from typing import Mapping, Sequence

FIXED_COLUMNS = ("respondent", "persona", "count", "perspectives")


class QuestionnaireError(ValueError):
    """The questionnaire cannot be read; the message names the line and the problem."""


@dataclasses.dataclass(frozen=True)
class Response:
    respondent: str
    persona: str | None
    count: int
    perspectives: tuple[tuple[str, ...], ...]  # tiers, best first
    metrics: dict[str, tuple[tuple[str, ...], ...]]  # perspective → tiers, best first


@dataclasses.dataclass(frozen=True)
class Weights:
    perspectives: dict[str, float]
    within: dict[str, dict[str, float]]  # perspective → metric → weight within it
    metrics: dict[str, float]
    responses: int  # responses counted (rows × count)
    persona: str | None

    def document(self, source: str) -> dict:
        """The weights file ``iwc weights borda`` writes (``--weights FILE`` reads it)."""
        return {"kind": "iwc-bench weights", "method": "borda", "source": source,
                "persona": self.persona, "responses": self.responses,
                "perspectives": self.perspectives, "within": self.within, "weights": self.metrics}


def tiers(cell: str, items: Sequence[str], where: str) -> tuple[tuple[str, ...], ...]:
    """``a>b=c>d`` → ((a,), (b, c), (d,)); empty → one tier of every item. Every item
    must appear exactly once."""
    text = cell.strip()
    if not text:
        return (tuple(items),)
    ranked = tuple(tuple(n.strip() for n in tier.split("=")) for tier in text.split(">"))
    named = [n for tier in ranked for n in tier]
    unknown = sorted(set(named) - set(items))
    if unknown or any(not n for n in named):
        raise QuestionnaireError(f"{where}: unknown or empty name(s) {', '.join(map(repr, unknown)) or '(empty)'}; "
                                 f"expected {', '.join(items)}")
    repeated = sorted({n for n in named if named.count(n) > 1})
    if repeated:
        raise QuestionnaireError(f"{where}: ranked more than once: {', '.join(repeated)}")
    missing = [n for n in items if n not in named]
    if missing:
        raise QuestionnaireError(f"{where}: not ranked: {', '.join(missing)} (rank every item; '=' ties them)")
    return ranked


def parse(text: str, groups: Mapping[str, Sequence[str]]) -> list[Response]:
    """Responses of a questionnaire CSV; ``groups`` maps each perspective to its metrics."""
    # comments become blank lines, so the line numbers in messages stay the file's
    lines = ["" if line.lstrip().startswith("#") else line for line in text.lstrip("\ufeff").splitlines()]
    reader = csv.reader(io.StringIO("\n".join(lines) + "\n"))
    columns: list[str] | None = None
    out = []
    for cells in reader:
        line = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if columns is None:
            columns = [c.strip() for c in cells]
            if "perspectives" not in columns:
                raise QuestionnaireError(f"line {line}: no 'perspectives' column "
                                         "(the format is in docs/metrics-wcb.md)")
            extra = sorted(set(columns) - set(FIXED_COLUMNS) - set(groups))
            if extra:
                raise QuestionnaireError(f"line {line}: unknown column(s) {', '.join(extra)}")
            continue
        if len(cells) > len(columns):
            raise QuestionnaireError(f"line {line}: {len(cells)} cells for {len(columns)} columns")
        row = dict(zip(columns, cells))
        count_text = (row.get("count") or "").strip() or "1"
        if not count_text.isdigit() or int(count_text) < 1:
            raise QuestionnaireError(f"line {line}: count must be a positive whole number, not {count_text!r}")
        perspectives = tiers(row.get("perspectives") or "", list(groups), f"line {line}, perspectives")
        metrics = {p: tiers(row.get(p) or "", list(names), f"line {line}, {p}") for p, names in groups.items()}
        out.append(Response(respondent=(row.get("respondent") or "").strip() or f"line {line}",
                            persona=(row.get("persona") or "").strip() or None, count=int(count_text),
                            perspectives=perspectives, metrics=metrics))
    return out


def points(ranking: Sequence[Sequence[str]]) -> dict[str, float]:
    """Borda points of one ranking: n for the first of n items, 1 for the last; tied
    items share the mean of the places they take."""
    n = sum(len(tier) for tier in ranking)
    out, place = {}, 1
    for tier in ranking:
        first, last = place, place + len(tier) - 1
        share = ((n - first + 1) + (n - last + 1)) / 2
        for item in tier:
            out[item] = share
        place = last + 1
    return out


def _normalised(totals: Mapping[str, float]) -> dict[str, float]:
    whole = sum(totals.values())
    return {k: v / whole for k, v in totals.items()}


def weights(responses: Sequence[Response], groups: Mapping[str, Sequence[str]],
            persona: str | None = None) -> Weights:
    """Borda weights over ``responses`` (only ``persona``'s, when named)."""
    chosen = [r for r in responses if persona is None or r.persona == persona]
    if not chosen:
        known = sorted({r.persona for r in responses if r.persona})
        raise QuestionnaireError(f"no response from persona {persona!r} (personas: {', '.join(known) or 'none'})"
                                 if persona else "the questionnaire has no response")
    per_totals = {p: 0.0 for p in groups}
    within_totals = {p: {m: 0.0 for m in names} for p, names in groups.items()}
    for r in chosen:
        for item, value in points(r.perspectives).items():
            per_totals[item] += value * r.count
        for p, ranking in r.metrics.items():
            for item, value in points(ranking).items():
                within_totals[p][item] += value * r.count
    perspectives = _normalised(per_totals)
    within = {p: _normalised(t) for p, t in within_totals.items()}
    metrics = {m: perspectives[p] * w for p, ws in within.items() for m, w in ws.items()}
    return Weights(perspectives=perspectives, within=within, metrics=metrics,
                   responses=sum(r.count for r in chosen), persona=persona)


def read_weights_document(data: object) -> dict[str, float]:
    """The metric weights of a ``--weights FILE``: a file ``iwc weights borda`` wrote
    (its ``weights``) or a plain ``{metric: weight}`` mapping. Raises ValueError."""
    if isinstance(data, dict) and isinstance(data.get("weights"), dict):
        data = data["weights"]
    if not isinstance(data, dict) or not data:
        raise ValueError("a weights file is a {metric: weight} mapping or a file `iwc weights borda` wrote")
    out = {}
    for name, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"weight of {name!r} must be a number ≥ 0, not {value!r}")
        out[str(name)] = float(value)
    if sum(out.values()) <= 0:
        raise ValueError("every weight is 0")
    return out
