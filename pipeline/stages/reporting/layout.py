"""The page shell and the small HTML pieces every report page uses.

Everything that reaches a page from an app (titles, DOM text, console messages, URLs,
action targets) is untrusted: it goes through ``esc`` and is only ever element text
or an attribute value, never a URL, a tag or script. The page's own script is allowed
by its hash in the Content-Security-Policy, so an inline script that slipped through
would still not run. This module must not read evidence or write files.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import math
import pathlib
import string

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"
OUTCOMES = ("evaluated", "black_box", "start_failed", "not_runnable", "error")
OUTCOME_LABELS = {"evaluated": "evaluated", "black_box": "black box",
                  "start_failed": "start failed", "not_runnable": "not runnable here", "error": "error"}
DASH = "—"


def esc(value: object) -> str:
    """Text safe as element content and as a quoted attribute value."""
    return html.escape(str(value), quote=True)


def short(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis (not escaped)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: max(1, limit - 1)].rstrip() + "…"


def clipped(text: str, limit: int) -> str:
    """Escaped text cut to ``limit``; the full text is in the tooltip when cut."""
    cut = short(text, limit)
    if cut == " ".join(str(text).split()):
        return esc(cut)
    return f'<span title="{esc(text)}">{esc(cut)}</span>'


def number(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    return f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 2) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    text = f"{value:+.{digits}f}"
    return text.replace("-", "−")


def sort_value(value: float | None) -> str:
    """``data-v`` for a sortable numeric cell; empty sorts last."""
    return "" if value is None or not math.isfinite(value) else repr(float(value))


def outcome_chip(outcome: str) -> str:
    label = OUTCOME_LABELS.get(outcome, outcome)
    cls = outcome if outcome in OUTCOMES else "error"
    return f'<span class="chip {cls}">{esc(label)}</span>'


def z_text(z: float | None) -> str:
    if z is None or not math.isfinite(z):
        return f'<span class="z zero">z {DASH}</span>'
    cls = "pos" if z > 0.005 else "neg" if z < -0.005 else "zero"
    return f'<span class="z {cls}">z {signed(z)}</span>'


@functools.cache
def _template(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def page(title: str, body: str, depth: int, crumbs: str = "") -> str:
    """A whole HTML document. ``depth`` is how many folders below the report root
    the page lives (for the link home); ``body`` and ``crumbs`` are ready HTML."""
    script = _template("report.js")
    digest = base64.b64encode(hashlib.sha256(f"\n{script}\n".encode()).digest()).decode()
    doc = string.Template(_template("report.html")).substitute(
        title=esc(title),
        css=_template("report.css"),
        js=script,
        home="../" * depth + "index.html",
        crumbs=crumbs,
        body=body,
    )
    # Only the report's own script may run: allow it by hash, not 'unsafe-inline'.
    return doc.replace("script-src 'unsafe-inline'", f"script-src 'sha256-{digest}'", 1)


def card(title: str, body: str, hint: str = "", anchor: str = "") -> str:
    ident = f' id="{esc(anchor)}"' if anchor else ""
    extra = f' <span class="hint">{hint}</span>' if hint else ""
    return f'<section class="card"{ident}><h2>{esc(title)}{extra}</h2>\n{body}\n</section>'


def facts(rows: list[tuple[str, str]]) -> str:
    """A definition list; values are ready HTML."""
    items = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="facts">{items}</dl>'
