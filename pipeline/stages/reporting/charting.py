"""Small pictures made of markup: bars, diverging z bars, the coverage-over-steps chart.

Inputs are numbers the pipeline computed (never app text), so only labels we make
ourselves appear here. This module must not read evidence or write files.
"""

from __future__ import annotations

import math
from typing import Sequence

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.reporting import layout

COVERAGE_SERIES = (("statements", "S", "stm", "#0969da"),
                   ("functions", "F", "fn", "#8250df"),
                   ("branches", "B", "br", "#1b998b"))


def _fraction(value: float | None, scale: float) -> float:
    if value is None or not math.isfinite(value) or scale <= 0:
        return 0.0
    return max(0.0, min(1.0, value / scale))


def bar(value: float | None, scale: float = 100.0, kind: str = "") -> str:
    """A horizontal bar filled to ``value / scale``."""
    width = _fraction(value, scale) * 100
    return f'<span class="bar {kind}"><i style="width:{width:.1f}%"></i></span>'


def diverging(z: float | None, limit: float) -> str:
    """A bar growing right (above the pool mean) or left (below) from a centre line;
    ``limit`` is the |z| that fills one half."""
    if z is None or not math.isfinite(z):
        return '<span class="diverging"></span>'
    half = _fraction(abs(z), limit) * 50
    side = f"left:50%;width:{half:.1f}%" if z >= 0 else f"left:{50 - half:.1f}%;width:{half:.1f}%"
    return f'<span class="diverging"><i class="{"pos" if z >= 0 else "neg"}" style="{side}"></i></span>'


def coverage_bars(coverage: evidence.CoverageSummary) -> str:
    """Three compact labelled bars (statements, functions, branches)."""
    if all(getattr(coverage, name) is None for name, *_ in COVERAGE_SERIES):
        return '<span class="faint">no coverage</span>'
    cells = []
    for name, letter, kind, _ in COVERAGE_SERIES:
        value = getattr(coverage, name)
        cells.append(f'<span title="{name}">{letter}</span>{bar(value, 100, kind)}'
                     f'<span class="v">{layout.number(value, 0)}{"%" if value is not None else ""}</span>')
    return f'<div class="covbars">{"".join(cells)}</div>'


def coverage_final(coverage: evidence.CoverageSummary) -> str:
    """The final coverage as three wide bars; the app's own code beside them when
    library code was left out of it (what the scores count)."""
    rows = []
    for name, _, kind, _ in COVERAGE_SERIES:
        value = getattr(coverage, name)
        shown = f"{layout.number(value)}%" if value is not None else layout.DASH
        own = getattr(coverage, f"own_{name}", None)
        if own is not None and value is not None and round(own, 1) != round(value, 1):
            shown += f' · own code {layout.number(own)}%'
        rows.append(f"<span>{name}</span>{bar(value, 100, kind)}<span class=\"v\">{shown}</span>")
    return f'<div class="covfinal">{"".join(rows)}</div>'


def coverage_chart(steps: Sequence[evidence.Step], width: int = 560, height: int = 220) -> str:
    """Cumulative coverage after each step: one line per measure, statements shaded.
    Empty string when no step has a measurement (black box)."""
    points = {name: [(s.index, getattr(s.coverage, name)) for s in steps
                     if getattr(s.coverage, name) is not None]
              for name, *_ in COVERAGE_SERIES}
    if not any(points.values()):
        return ""
    left, right, top, bottom = 40, 14, 12, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    first = min(s.index for s in steps)
    last = max(max(s.index for s in steps), first + 1)

    def x(i: float) -> float:
        return left + (i - first) / (last - first) * plot_w

    def y(v: float) -> float:
        return top + (1 - max(0.0, min(100.0, v)) / 100) * plot_h

    parts = [f'<svg class="covchart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'role="img" aria-label="coverage over steps" font-size="11" '
             f'font-family="system-ui, sans-serif">']
    for level in (0, 25, 50, 75, 100):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(level):.1f}" y2="{y(level):.1f}" '
                     f'stroke="{"#c9d1d9" if level == 0 else "#eaeef2"}"/>'
                     f'<text x="{left - 6}" y="{y(level) + 4:.1f}" text-anchor="end" fill="#818b98">{level}%</text>')
    tick = max(1, math.ceil((last - first) / 12))
    for i in range(first, last + 1, tick):
        parts.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" text-anchor="middle" '
                     f'fill="#818b98">{i}</text>')
    parts.append(f'<text x="{width - right}" y="{height - 2}" text-anchor="end" fill="#818b98">step</text>')
    stm = points["statements"]
    if stm:
        area = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in stm)
        parts.append(f'<polygon points="{x(stm[0][0]):.1f},{y(0):.1f} {area} {x(stm[-1][0]):.1f},{y(0):.1f}" '
                     f'fill="#0969da" fill-opacity="0.08"/>')
    for name, letter, _, colour in COVERAGE_SERIES:
        series = points[name]
        if not series:
            continue
        line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in series)
        parts.append(f'<polyline class="series-{name}" points="{line}" fill="none" stroke="{colour}" '
                     f'stroke-width="2" stroke-linejoin="round"/>')
        for i, v in series:
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{colour}">'
                         f'<title>step {i}: {name} {v:.1f}%</title></circle>')
    parts.append("</svg>")
    legend = "".join(f'<span><span class="ln" style="border-color:{colour}"></span>{name}</span>'
                     for name, _, _, colour in COVERAGE_SERIES if points[name])
    return "".join(parts) + f'<div class="legend">{legend}</div>'
