"""What a policy sees of the page: candidates with stable refs, a compact accessibility
tree, fingerprints. Built by observe.mjs in one call in an isolated world (the page's
globals cannot break it); this module only types it. ``snapshot`` serialises the DOM
(snapshot.mjs) with the marks of what changed while nobody acted (volatility.mjs), for
abstracting.
It must not act on the page.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Mapping

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser, injecting, inspecting

HERE = pathlib.Path(__file__).parent
LOOK = injecting.function(HERE / "observe.mjs")  # one look, then an idle window starts
SNAPSHOT = injecting.function(HERE / "snapshot.mjs")
# (perParent: candidates offered among one element's children, spread over them)
LIMITS = {"maxElements": 4000, "maxCandidates": 150, "perParent": 40, "treeChars": 12000}
HANG_S = 5.0  # a page that does not answer a script call for this long is hung
IDLE_MS = 100  # the least time between an observation and its snapshot: the idle window


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One element the explorer could act on. ``ref`` ("e7") is stable for the
    element's life in its document; ``selector`` is a CSS selector unique at
    observation time; ``kinds`` are the action kinds that make sense on it."""

    ref: str
    selector: str
    tag: str
    role: str
    name: str
    kinds: tuple[str, ...]
    type: str = ""  # input type, "textarea" or "contenteditable"
    href: str | None = None
    external: bool = False  # a link off the app's origin (never followed)
    form: int = -1  # index of its form in document.forms, -1 for none
    submit: bool = False
    value: str | None = None
    checked: bool | None = None
    min: str | None = None
    max: str | None = None
    step: str | None = None
    max_length: int | None = None
    min_length: int | None = None
    pattern: str | None = None  # its pattern attribute, as written ("[0-9]{6}")
    input_mode: str | None = None  # its inputmode attribute ("numeric")
    required: bool = False
    placeholder: str | None = None
    autocomplete: str | None = None
    input_name: str | None = None
    options: tuple[str, ...] = ()
    listeners: tuple[str, ...] = ()
    pointer: bool = False
    box: tuple[int, int, int, int] = (0, 0, 0, 0)
    item: str | None = None  # ref of the list item / row / card it belongs to
    context: str = ""  # that item's visible text ("Buy milk ×")
    parents: tuple[str, ...] = ()  # refs of its parent and grandparent elements
    hint: str = ""  # id, class and title: words a name may lack ("destroy")
    accept: str | None = None  # a file input's accept attribute ("" when it has none); None: no file input
    covered: bool = False  # something else is on top of it (a dialog's backdrop)
    point: tuple[float, float] | None = None  # where a press lands on it, if not its middle

    def describe(self) -> str:
        """``button "Add task"``: how a person would name it."""
        name = self.name.replace('"', "'")
        if name:
            return f'{self.role} "{name}"'
        if self.context:
            context = self.context.replace('"', "'")
            return f'{self.role} in "{context}"'
        return f"{self.role} {self.selector}"


@dataclasses.dataclass(frozen=True)
class Observation:
    """The page as a policy sees it before choosing step ``step``."""

    step: int
    url: str
    title: str
    doc: float  # performance.timeOrigin: changes with every new document
    state: str  # hash of structure + visible text
    visual: str  # also form values and canvas thumbnails: decides screenshots
    candidates: tuple[Candidate, ...]
    tree: str  # "- button "Add" [ref=e3]" lines, indented by nesting
    keyboard: bool  # window/document/body listen to keys
    canvases: int
    scrollable: bool
    # what an action may change beside the DOM (effects.mjs): the data the app keeps
    # (storage, cookies; "" none), its canvases' pixels ("" none read) and how many
    # canvases could not be read (WebGL drawn straight to the screen)
    kept: str = ""
    pixels: str = ""
    unread: int = 0
    external_links: tuple[str, ...] = ()
    drop_targets: tuple[str, ...] = ()
    global_listeners: tuple[str, ...] = ()
    focused: str | None = None
    coverage: evidence.CoverageSummary = evidence.CoverageSummary()
    elapsed_s: float = 0.0
    budget_left: int = 0  # steps still allowed
    # Event listeners by candidate selector (the element's and its form's) and of
    # window / document / body, when the explorer read them (instrumented apps).
    listeners: Mapping[str, tuple[inspecting.Listener, ...]] = dataclasses.field(default_factory=dict)
    page_listeners: tuple[inspecting.Listener, ...] = ()

    def by_ref(self, ref: str) -> Candidate | None:
        return next((c for c in self.candidates if c.ref == ref), None)

    def on_canvas(self, action: evidence.Action) -> bool | None:
        """Is ``action`` aimed at a canvas (``evidence.Step.on_canvas``)? None when it names
        no element, or one this look did not list."""
        if action.selector is None:
            return None
        tag = next((c.tag for c in self.candidates if c.selector == action.selector), None)
        return None if tag is None else tag == "canvas"


_RENAMES = {"maxLength": "max_length", "minLength": "min_length", "inputName": "input_name", "inputMode": "input_mode"}


def _candidate(raw: dict) -> Candidate:
    fields = {f.name for f in dataclasses.fields(Candidate)}
    data = {_RENAMES.get(k, k): v for k, v in raw.items()}
    data = {k: v for k, v in data.items() if k in fields}
    for key in ("kinds", "options", "listeners", "box", "parents"):
        data[key] = tuple(data.get(key) or ())
    data["point"] = tuple(data["point"]) if data.get("point") else None
    data["name"] = data.get("name") or ""
    data["context"] = data.get("context") or ""
    data["hint"] = data.get("hint") or ""
    return Candidate(**data)


def observe(tab: browser.Tab, step: int, deadline_s: float, targets: tuple[str, ...] = ()) -> Observation:
    """Look at the page once. Raises browser.BrowserError (PageHung when the page
    does not answer within ``deadline_s``). ``targets``: selectors the app's code
    tests clicked elements against (code facts): such an element inside one that
    listens for clicks is a candidate, though it has no listener of its own."""
    raw = tab.isolated(LOOK, {**LIMITS, "nonce": tab.session.nonce, "targets": list(targets)}, deadline_s)
    return Observation(
        step=step,
        url=raw["url"],
        title=raw.get("title") or "",
        doc=float(raw.get("doc") or 0.0),
        state=raw["state"],
        visual=raw["visual"],
        candidates=tuple(_candidate(c) for c in raw.get("candidates", ())),
        tree=raw.get("tree") or "",
        keyboard=bool(raw.get("keyboard")),
        canvases=int(raw.get("canvases") or 0),
        kept=str(raw.get("kept") or ""),
        pixels=str(raw.get("pixels") or ""), unread=int(raw.get("unread") or 0),
        scrollable=bool(raw.get("scrollable")),
        external_links=tuple(dict.fromkeys(raw.get("externalLinks") or ())),
        drop_targets=tuple(raw.get("dropTargets") or ()),
        global_listeners=tuple(raw.get("globalListeners") or ()),
        focused=raw.get("focused"),
    )


@dataclasses.dataclass(frozen=True)
class Snapshot:
    data: bytes  # the serialised DOM, cut at the snapshot's limit
    volatile: tuple[evidence.VolatileMark, ...]  # what changed while nobody acted
    drawing: bool = False  # the canvases' pixels changed while nobody acted


def snapshot(tab: browser.Tab, max_bytes: int, deadline_s: float, drawn: str | None = None) -> Snapshot:
    """The serialised DOM (cut at ``max_bytes``) and the marks of elements that changed
    while nobody acted, taken in the same instant, and (given the look's ``drawn``
    pixels) whether the canvases drew meanwhile; a page on which nothing can change
    on its own is not waited for (snapshot.mjs). Under Playwright's clock the idle
    window passes in the page's time, at once: its timers and frames of the next
    IDLE_MS run, each in its own task (so in its own mutation batch), and nobody waits
    for them in real time. Raises browser.BrowserError."""
    idle_ms = IDLE_MS
    if tab.virtual_time:
        tab.fast_forward(IDLE_MS, deadline_s)
        idle_ms = 0
    arg = {"idleMs": idle_ms, "nonce": tab.session.nonce, "wait": tab.virtual_time}
    if drawn is not None:
        arg["drawn"] = drawn
    raw = tab.isolated(SNAPSHOT, arg, deadline_s + idle_ms / 1000)
    marks = tuple(evidence.VolatileMark(path=m["path"], text=bool(m.get("text")),
                                        attributes=tuple(m.get("attributes") or ()),
                                        children=bool(m.get("children")))
                  for m in (raw.get("volatile") or ()))
    return Snapshot(cut(raw.get("html") or "", max_bytes), marks, bool(raw.get("drawing")))


def cut(html: str, max_bytes: int) -> bytes:
    """A serialised DOM as bytes, cut at ``max_bytes`` with a marker saying so."""
    data = html.encode("utf-8")
    if len(data) <= max_bytes:
        return data
    marker = f"\n<!-- iwc-bench: snapshot cut at {max_bytes} of {len(data)} bytes -->\n".encode()
    return data[: max_bytes - len(marker)].decode("utf-8", "ignore").encode() + marker
