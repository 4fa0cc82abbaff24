"""Abstraction: DOM snapshots + trace → state-transition graph (IWC-Bench §4.3).

Each snapshot is reduced to a normal form; snapshots with the same normal form are one
state, and the actions between them are the edges. This module is pure: it reads DOM
text only through the ``read_dom`` callable it is given, and it must not touch the
browser, the store or the network.

Normal form (``normalize_dom``), decided so that a ticking clock is not a new state
but a user-visible change of meaning is:

* Dropped whole: comments, doctype, ``script``/``style``/``noscript``/``template``
  with their contents (code and styling, not state).
* Attributes are kept (sorted by name), except:
  - ``style``: reduced to the only declarations that hide content (``display:none``,
    ``visibility:hidden``), because generated apps open and close dialogs that way;
    every other declaration (animations, positions, widths of progress bars) goes.
  - ``class``: tokens sorted and de-duplicated; tokens that look generated (CSS-in-JS
    and CSS-modules hashes: ``css-1x2y3z``, ``sc-bdVaJa``, ``Button__3xYz9``,
    ``jsx-3563535``) are dropped. Other tokens are kept: a toggled ``completed``,
    ``active``, ``open`` or ``dark`` class changes what the user sees, so it is a
    different state.
  - ``id``: dropped when it looks generated (React ``:r1:``/``«r1»``, hashes);
    otherwise kept.
  - ``data-*``: dropped when the name looks generated (``data-v-7ba5bd90``) or the
    value is a bare number (counters, timestamps, row ids); kept otherwise
    (``data-state="open"`` carries meaning).
  - dropped outright: inline event handlers (``on*``: code), attribute names that
    look generated (Angular ``_ngcontent-*``), ``tabindex`` (roving focus flips it),
    ``nonce``/``integrity`` and ARIA id references (``aria-describedby``,
    ``aria-labelledby``, ``aria-controls``, ``aria-owns``, ``aria-activedescendant``,
    ...), which point at generated ids. ARIA states (``aria-expanded``,
    ``aria-checked``, ``aria-pressed``, ``aria-selected``, ``aria-hidden``, ...) are
    kept: they are state.
  - geometry (``d``, ``points``, ``transform``, ``x``/``y``/``cx``/``r``...,
    ``width``/``height``, ``viewBox``, dash offsets): the name is kept, the value is
    not, so an animated SVG (clock hands, a chart easing in) is one state while a bar
    added to a chart is a new one.
  - URLs (``href``, ``src``, ``action``, ``poster``, ``srcset``): the query string is
    dropped (cache busters); ``data:``, ``blob:`` and ``javascript:`` URLs are
    reduced to their scheme. Fragments are kept (hash routes are state).
* Text and kept attribute values: whitespace collapsed, whitespace-only text dropped,
  and volatile values replaced by placeholders: UUIDs ``{uuid}``, ISO timestamps
  ``{datetime}``, dates (numeric and with month names) ``{date}``, clock and
  stopwatch strings (``12:34``, ``1:02:03 PM``, ``00:04.27``) ``{time}``, relative
  times (``5 minutes ago``) ``{ago}``, digit runs of 10 or more (epoch seconds and
  milliseconds) ``{n}``, hex runs of 16 or more (tokens, hashes) ``{hex}``.

* Volatile parts: what the explorer saw change while nobody acted (``Step.volatile``:
  a word a timer rewrites every 40 ms, a blinking class, a ticker's children) is not
  state. A marked element's own text becomes ``{volatile}``, its marked attributes are
  dropped, and the contents of an element whose children changed become one
  ``{volatile}``. Marks address elements by their element-child indices from
  ``<html>``, counted here over the snapshot's tags, which the browser wrote in the
  same instant it computed the marks.

Limits, by design: typed text lives in input *properties*, which a DOM snapshot does
not carry, so typing alone is not a state change unless the app renders something;
canvas pixels are invisible to this abstraction (a canvas game is few states).

Graph (``abstract``): states ``S0``, ``S1``... in order of first visit (the load step
creates ``S0``). One edge per (from-state, to-state, action label), carrying every
step that took it; ``ok`` is False when any of those steps could not be performed.
A step without a DOM (the page crashed or hung, or the run stopped while reading it)
goes to the sentinel state ``S_crash`` (empty digest): the failing action stays
visible as an edge into it. The step after a crash gets no edge, because the explorer
reopened the start page and the action's source state is unknown; the state it
reached still lists the step.

Effects (``effects``): an action had an effect when it changed something a user can
see or the app keeps, read against the step before it: the normalized DOM (another
state), the URL, the data the app keeps (localStorage, sessionStorage, cookies), a
canvas's pixels, a request the page sent, a dialog or a window it opened. A form
control's own value is not one: the browser changes it whatever the app does (a
select nothing listens to still shows its new option), so a check or a select counts
only by what the app made of it. A handler that runs and throws, or only logs, changes none of these:
no effect, whatever code it ran.

An effect is read where the action happened (issue 46). Pixels speak for an action aimed
at a canvas (``Step.on_canvas``) or at the page as a whole (keys to the page, back, a
route): when nothing else changed and a canvas could not tell (it drew while nobody
acted, or it is WebGL drawn straight to the screen and reads back blank), whether such an
action had an effect cannot be told, and the step is listed apart. An action on another
element is read through the DOM, the address, the kept data, requests, dialogs and
windows, so a decorative animation never hides a dead control: pixels count for it only
on a page whose canvases were never seen drawing by themselves (at any step of the trace:
one idle window can miss a slow animation, and its next frame would be credited to the
click), where a still canvas is the baseline and a change is the control's (a button
that draws a chart). An unread canvas tells such an action nothing either way.
Each edge lists its steps without an effect (``idle``) and those that cannot be told
(``unsure``); the graph says it read them (``graph["effects"]``).
"""

from __future__ import annotations

import hashlib
import html as html_mod
import html.parser
import re
from typing import Callable, cast

import networkx

from iwcbench.pipeline.contracts import evidence

EFFECTS_VERSION = "2"  # graph["effects"]: the edges list their steps without an effect (2: read where
# the action happened)
NORMAL_FORM_VERSION = "2"  # bump when the normal form changes: digests change with it
CRASH = "S_crash"

_SKIPPED = frozenset({"script", "style", "noscript", "template"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                   "meta", "param", "source", "track", "wbr"})
_DROPPED_ATTRS = frozenset({
    "tabindex", "nonce", "integrity", "aria-activedescendant", "aria-describedby",
    "aria-labelledby", "aria-controls", "aria-owns", "aria-flowto", "aria-details",
    "aria-errormessage",
})
_GEOMETRY_ATTRS = frozenset({
    "d", "points", "transform", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx",
    "ry", "dx", "dy", "width", "height", "viewbox", "offset", "stroke-dasharray",
    "stroke-dashoffset", "path", "rotate",
})
_URL_ATTRS = frozenset({"href", "src", "action", "poster", "srcset", "xlink:href"})
_HIDING = {("display", "none"), ("visibility", "hidden")}

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+"
# Order matters: the most specific shapes first, so an ISO timestamp is not read as
# a date followed by a time.
_PLACEHOLDERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "{uuid}"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])"),
     "{datetime}"),
    (re.compile(rf"\b(?:{_DAY})?{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"), "{date}"),
    (re.compile(rf"\b(?:{_DAY})?\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?(?:,?\s+\d{{4}})?\b"), "{date}"),
    (re.compile(r"(?<![\d.])(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})(?![\d.])"), "{date}"),
    (re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?(?:\s?[AaPp]\.?[Mm]\b\.?)?(?![\d:])"), "{time}"),
    (re.compile(r"\b(?:a|an|one|\d+)\s+(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\s+ago\b", re.I),
     "{ago}"),
    (re.compile(r"(?<!\d)\d{10,}(?!\d)"), "{n}"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{16,}(?![0-9a-f])", re.I), "{hex}"),
)
_SPACE = re.compile(r"\s+")
VOLATILE = "{volatile}"
_GENERATED_PREFIX = re.compile(r"^(?:css|sc|jsx|svelte|emotion|astro|makeStyles|jss)[-_]", re.I)
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?$")


def _text(value: str) -> str:
    """Whitespace collapsed and volatile values replaced by placeholders."""
    value = _SPACE.sub(" ", value).strip()
    for pattern, placeholder in _PLACEHOLDERS:
        value = pattern.sub(placeholder, value)
    return value


def _looks_generated(token: str) -> bool:
    """A class token, id or attribute name made by a tool rather than a person."""
    if _GENERATED_PREFIX.match(token) or token.startswith((":", "«", "_ng")):
        return True
    for run in _ALNUM_RUN.findall(token):
        if re.search(r"\d{5,}", run):
            return True
        # hashes interleave letters and digits ("3xYz9"); "1920px" or "h1" do not
        switches = sum(1 for a, b in zip(run, run[1:]) if a.isdigit() != b.isdigit())
        if len(run) >= 5 and switches >= 2:
            return True
    return False


def _url(value: str) -> str:
    value = value.strip()
    scheme = value.split(":", 1)[0].lower() if ":" in value else ""
    if scheme in ("data", "blob", "javascript"):
        return scheme + ":"
    base, _, rest = value.partition("?")
    fragment = rest.partition("#")[2] if rest else ""
    return _text(base + (f"#{fragment}" if fragment else ""))


def _style(value: str) -> str | None:
    kept = []
    for declaration in value.split(";"):
        name, _, val = declaration.partition(":")
        pair = (name.strip().lower(), val.replace("!important", "").strip().lower())
        if pair in _HIDING:
            kept.append(f"{pair[0]}:{pair[1]}")
    return ";".join(sorted(set(kept))) or None


def _attribute(name: str, value: str | None) -> str | None:
    """The attribute's normal value; None drops the attribute."""
    value = value or ""
    if name in _DROPPED_ATTRS or name.startswith("on") or _looks_generated(name):
        return None
    if name == "style":
        return _style(value)
    if name == "class":
        tokens = sorted({t for t in value.split() if not _looks_generated(t)})
        return " ".join(_text(t) for t in tokens) or None
    if name == "id":
        return None if _looks_generated(value) else _text(value)
    if name.startswith("data-") and _NUMBER.match(value.strip()):
        return None
    if name in _GEOMETRY_ATTRS:
        return ""
    if name in _URL_ATTRS:
        return _url(value)
    return _text(value)


class _Normaliser(html.parser.HTMLParser):
    def __init__(self, marks: tuple[evidence.VolatileMark, ...] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0  # depth inside script/style/noscript/template
        self.in_title = False
        self.title: list[str] = []
        self.marks = {m.path: m for m in marks}
        self.open: list[list] = []  # per open element: [path, children so far, mark]
        self.roots = 0  # elements seen at the top (the first is <html>)
        self.masking = 0  # depth inside an element whose children are volatile

    def _path(self) -> str:
        """The element-child path of the element starting now (counted, never reused)."""
        if not self.open:
            self.roots += 1
            return "" if self.roots == 1 else f"!{self.roots}"
        parent = self.open[-1]
        path = f"{parent[0]}.{parent[1]}" if parent[0] else str(parent[1])
        parent[1] += 1
        return path

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], mark: evidence.VolatileMark | None) -> str:
        kept = {}
        for name, value in attrs:
            name = name.lower()
            if mark is not None and name in mark.attributes:
                continue
            normal = _attribute(name, value)
            if normal is not None:
                kept[name] = normal
        parts = [tag] + [f'{k}="{html_mod.escape(v)}"' if v else k for k, v in sorted(kept.items())]
        return "<" + " ".join(parts) + ">"

    def _emit_data(self, text: str) -> None:
        if self.out and self.out[-1] == VOLATILE and text == VOLATILE:
            return  # one marker per run, however the text was split
        self.out.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping:
            self.skipping += tag in _SKIPPED
            return
        if self.masking:
            self.masking += tag not in _VOID
            return
        path = self._path()
        if tag in _SKIPPED:
            self.skipping += 1
            return
        mark = self.marks.get(path)
        self.in_title = tag == "title"
        self.out.append(self._tag(tag, attrs, mark))
        if tag in _VOID:
            return
        self.open.append([path, 0, mark])
        if mark is not None and mark.children:
            self.masking = 1
            self._emit_data(VOLATILE)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping or self.masking:
            return
        path = self._path()
        if tag in _SKIPPED:
            return
        self.out.append(self._tag(tag, attrs, self.marks.get(path)))
        if tag not in _VOID:
            self.out.append(f"</{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            self.skipping -= tag in _SKIPPED
            return
        if tag in _VOID or tag in _SKIPPED:
            return
        if self.masking:
            self.masking -= 1
            if self.masking:
                return
        if tag == "title":
            self.in_title = False
        if self.open:
            self.open.pop()
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.skipping or self.masking:
            return
        mark = self.open[-1][2] if self.open else None
        volatile = mark is not None and mark.text
        if self.in_title:
            self.title.append(VOLATILE if volatile else data)
        text = _text(data)
        if text:
            self._emit_data(VOLATILE if volatile else html_mod.escape(text, quote=False))


def _parse(page: str, marks: tuple[evidence.VolatileMark, ...] = ()) -> tuple[str, str]:
    parser = _Normaliser(marks)
    parser.feed(page)
    parser.close()
    return "\n".join(parser.out), _SPACE.sub(" ", "".join(parser.title)).strip()


def normalize_dom(html: str, marks: tuple[evidence.VolatileMark, ...] = ()) -> str:
    """The DOM's normal form (see the module docstring): one token per line. ``marks``:
    the snapshot's volatile elements (``Step.volatile``)."""
    return _parse(html, marks)[0]


def digest_of(normal_form: str) -> str:
    return hashlib.sha256(normal_form.encode("utf-8")).hexdigest()[:16]


def pixels_speak(step: evidence.Step) -> bool:
    """Is ``step``'s action aimed where a canvas's pixels show its effect: at a canvas, or
    at the page as a whole (no element)? An element not known to be something else counts
    as one (a trace from before ``Step.on_canvas`` was recorded reads as it did then)."""
    return step.action.selector is None or step.on_canvas is not False


def effects(before: evidence.Step, step: evidence.Step, moved: bool,
            drawn: bool = False) -> tuple[str, ...] | None:
    """What ``step``'s action changed, read against the step ``before`` it (``moved``: it
    ended in another state than ``before``; ``drawn``: the page's canvases were seen
    drawing by themselves in the trace): "page", "address", "kept data", "canvas",
    "request", "dialog", "window"; () for none; None when nothing else changed and a
    canvas cannot tell (see the module's docstring)."""
    found = []
    if moved:
        found.append("page")
    if step.url != before.url:
        found.append("address")
    was, now = before.looks, step.looks
    unsure = False
    if was is not None and now is not None:
        if now.kept != was.kept:
            found.append("kept data")
        if pixels_speak(step):
            if now.pixels != was.pixels and not was.drawing:  # (drawing by itself: not the action's to claim)
                found.append("canvas")
            unsure = was.drawing or bool(now.unread or was.unread)
        elif now.pixels != was.pixels and not drawn:
            found.append("canvas")
    if step.requests:
        found.append("request")
    if step.dialogs:
        found.append("dialog")
    if any(note.startswith("popup closed") for note in step.notes):
        found.append("window")
    if not found and unsure:
        return None
    return tuple(found)


def abstract(trace: evidence.Trace, read_dom: Callable[[str], str | None]) -> evidence.StateGraph:
    """The state-transition graph of a trace. ``read_dom`` maps a step's ``dom`` key to
    the snapshot text (None when missing)."""
    nodes: dict[str, dict] = {}
    state_by_digest: dict[str, str] = {}
    parsed: dict[str, tuple[str, str]] = {}  # raw snapshot hash → (digest, title)
    edges: dict[tuple[str, str, str], dict] = {}
    previous: str | None = None
    last: evidence.Step | None = None
    drawn = any(s.looks is not None and s.looks.drawing for s in trace.steps)
    for step in trace.steps:
        page = read_dom(step.dom) if step.dom else None
        if page is None:
            state, digest, title = CRASH, "", "no DOM: the page was lost at this step"
        else:
            raw = hashlib.sha256(page.encode("utf-8", "replace")).hexdigest()
            raw += "".join(m.model_dump_json() for m in step.volatile)
            if raw not in parsed:  # no-effect actions repeat the same snapshot
                normal, title = _parse(page, step.volatile)
                parsed[raw] = (digest_of(normal), title)
            digest, title = parsed[raw]
            state = state_by_digest.setdefault(digest, f"S{len(state_by_digest)}")
        node = nodes.setdefault(state, {
            "id": state, "digest": digest, "first_step": step.index, "steps": [],
            "dom": step.dom if page is not None else None, "screenshot": None,
            "title": title, "url": step.url,
        })
        node["steps"].append(step.index)
        node["screenshot"] = node["screenshot"] or step.screenshot
        if previous is not None and previous != CRASH:
            label = step.action.label()
            edge = edges.get((previous, state, label))
            if edge is None:
                key = sum(1 for (s, t, _) in edges if (s, t) == (previous, state))
                edge = edges[(previous, state, label)] = {
                    "source": previous, "target": state, "key": key, "action": label,
                    "steps": [], "ok": True, "idle": [], "unsure": []}
            edge["steps"].append(step.index)
            edge["ok"] = edge["ok"] and step.ok
            if state != CRASH and last is not None:
                made = effects(last, step, state != previous, drawn)
                if made is None:
                    edge["unsure"].append(step.index)
                elif not made:
                    edge["idle"].append(step.index)
        previous, last = state, step
    return evidence.StateGraph(
        graph={"normal_form": NORMAL_FORM_VERSION, "effects": EFFECTS_VERSION},
        nodes=tuple(evidence.StateNode(**{**n, "steps": tuple(n["steps"])}) for n in nodes.values()),
        edges=tuple(evidence.StateEdge(**{**e, "steps": tuple(e["steps"]), "idle": tuple(e["idle"]),
                                          "unsure": tuple(e["unsure"])}) for e in edges.values()),
    )


def to_networkx(graph: evidence.StateGraph) -> networkx.MultiDiGraph:
    """The graph as a networkx MultiDiGraph (node attributes: the StateNode fields)."""
    data = graph.model_dump(mode="python", exclude={"schema_version"})
    # (directed and multigraph, node_link_graph makes a MultiDiGraph; its stub says Graph whatever the flags)
    return cast(networkx.MultiDiGraph, networkx.node_link_graph(data, directed=True, multigraph=True, edges="edges"))


def from_networkx(g: networkx.MultiDiGraph) -> evidence.StateGraph:
    """Back from networkx (the inverse of ``to_networkx``)."""
    return evidence.StateGraph.model_validate(networkx.node_link_data(g, edges="edges"))
