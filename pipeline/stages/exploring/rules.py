"""Pure judgements the heuristic policy makes about candidates: is an action
destructive, which controls are "the same" across list items, which button submits a
free-standing field, how many items a page shows. Pure functions of observations;
they must not keep state or touch the page.
"""

from __future__ import annotations

import re
import urllib.parse

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import observing, reaching, values

# Words (in a name, id, class or title) of actions that tear state down. Testers build
# state up before they tear it down, so these wait until the constructive ones ran.
DESTRUCTIVE = re.compile(
    r"\b(delete|remove|clear|reset|trash|destroy|discard|erase|empty|wipe|purge|"
    r"log ?out|sign ?out|unsubscribe|new game|restart|start over)\b", re.IGNORECASE)
# In ids and classes only the unambiguous words count ("empty-state" is no action).
DESTRUCTIVE_HINT = re.compile(r"\b(delete|remove|clear|reset|trash|destroy)\b", re.IGNORECASE)
# Icon-only names of delete buttons ("x", "×", "🗑").
DELETE_ICONS = {"x", "×", "✕", "✖", "✗", "❌", "🗑", "🗑️"}
_POSITION = re.compile(r":nth-(of-type|child)\(\d+\)")
_NUMBERS = re.compile(r"\d+")
# Checkboxes a form usually refuses to go on without.
CONSENT = re.compile(r"\b(agree|terms|accept|consent|privacy|conditions)\b", re.IGNORECASE)


FILTER = re.compile(r"^(show\s+)?(all|active|completed?|done|pending|open|closed|finished|unfinished|"
                    r"todo|to do|in progress|archived?|starred|favou?rites?)(\s+(items|tasks|todos))?$", re.IGNORECASE)
FEW_ITEMS = 3  # a list with fewer items shows little through its filters
# Actions on a whole list at once ("Toggle all", "Mark all as done", "Select all"):
# like its filters, they say little until the list holds a few items.
BULK = re.compile(r"\b(toggle|mark|select|check|uncheck|complete|archive)[\s_-]+(all|every(thing)?)\b", re.IGNORECASE)


# The last part of a path that names a page (a route, a folder, an .html file), not a
# file to download (.pdf, .zip, .png).
PAGE_PATH = re.compile(r"(^|/)[^/.]*/?$|\.(html?|php|aspx?|jsp)$", re.IGNORECASE)


def view_of(url: str) -> str:
    """A page's view: its path and query (its hash is the same view, scrolled)."""
    parts = urllib.parse.urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def view_link(candidate: observing.Candidate, page_url: str) -> str | None:
    """The other view of the app a link leads to (its path and query): a same-origin
    http(s) link to a page other than this one — a router's ``<Link href="/stats">``,
    a site's nav bar. Such a link is a view to visit, not an exit: the page stays in
    the app, client-side or by a load. None for anything else: a link to this page or
    a hash on it (a hash router's views are its routes), a file to download, a link
    off the app."""
    if candidate.tag != "a" or candidate.external or not candidate.href:
        return None
    to, here = urllib.parse.urlsplit(candidate.href), urllib.parse.urlsplit(page_url)
    if to.scheme not in ("http", "https") or (to.scheme, to.netloc) != (here.scheme, here.netloc):
        return None
    if not PAGE_PATH.search(to.path or "/"):
        return None
    view = view_of(candidate.href)
    return None if view == view_of(page_url) else view


def filtering(candidate: observing.Candidate) -> bool:
    """Does it look like a list's filter (All / Active / Completed)? Outside list
    items, or alone in its own (a nav list's ``<li><a>Active</a></li>``)."""
    name = candidate.name.strip()
    alone = candidate.item is None or candidate.context.strip() == name
    return alone and bool(FILTER.match(name))


def bulk(candidate: observing.Candidate) -> bool:
    """Does it act on the whole list at once (Toggle all, Mark all as done)?"""
    return candidate.item is None and bool(BULK.search(f"{candidate.name} {candidate.hint}".replace("-", " ")))


def link_family(candidate: observing.Candidate) -> str | None:
    """The family of a link to a hash router's view (``#/active``, ``#!/stats``): its
    route with numbers blanked, so "#/active" and "#/completed" of one nav list are two
    (a list item's controls are otherwise one family, and a router gives all its links
    one handler) while "#/post/1" and "#/post/2" stay one. None for other links (a
    plain ``href="#"`` says nothing of where it leads; other paths are view_link's)."""
    if candidate.tag != "a" or not candidate.href or candidate.external:
        return None
    route = urllib.parse.urlsplit(candidate.href).fragment
    if not route.startswith(("/", "!/")):
        return None
    return "route|#" + _NUMBERS.sub("#", route)  # (the family of route_options' visit to it too)


def can_add_items(obs: observing.Observation) -> bool:
    """Is there a free-standing field to add items with (a todo list's input)?"""
    return any("type" in c.kinds and c.item is None and c.type not in ("search",) for c in obs.candidates)


def destructive(candidate: observing.Candidate) -> bool:
    """Would clicking it probably remove or reset something?"""
    name = candidate.name.strip().lower()
    if name in DELETE_ICONS:
        return True
    hint = candidate.hint.replace("-", " ").replace("_", " ")
    return bool(DESTRUCTIVE.search(name) or DESTRUCTIVE_HINT.search(hint))


def signature(kind: str, selector: str) -> str:
    """``kind|selector`` with the selector made position-explicit: an element's
    selector reads ``ul > li > input`` while it is alone and ``ul > li:nth-of-type(1)
    > input`` once it has a sibling; both are one signature."""
    parts = [p if ":nth-" in p or p == "body" else p + ":nth-of-type(1)" for p in selector.split(" > ")]
    return f"{kind}|{' > '.join(parts)}"


def family(sig: str) -> str:
    """The action with list positions erased: the checkbox of item 1 and of item 2 are
    one family (trying one says much about the other)."""
    return _POSITION.sub("", sig)


def item_count(obs: observing.Observation) -> int:
    """How many list items / rows / cards the page shows (through their controls)."""
    return len({c.item for c in obs.candidates if c.item is not None})


def adjacent_button(field: observing.Candidate, obs: observing.Observation) -> observing.Candidate | None:
    """The submit-like button next to a field outside any form: the first
    non-destructive button after it in document order whose parent is the field's
    parent or grandparent (``<div><input><button>Add</button></div>``). Buttons of
    list items further down or of another toolbar do not count."""
    after = False
    for c in obs.candidates:
        if c.selector == field.selector:
            after = True
        elif after and c.role == "button" and "click" in c.kinds and c.item == field.item:
            if c.parents and field.parents and c.parents[0] in field.parents and not destructive(c):
                return c
    return None


def form_fill(button: observing.Candidate, obs: observing.Observation, hints: values.CodeHints | None = None
              ) -> list[tuple[str, observing.Candidate, str | None]]:
    """What a tester fills in before pressing a form's button: each field of the
    same form that does not hold its usual value gets it, each select still on its placeholder with its
    first real option, each unchecked consent checkbox, one radio of each group none
    of which is checked — as (kind, candidate, value) in document order. ``hints``:
    what the app's code checks input against, so the usual value is one that passes."""
    if button.form < 0:
        return []
    fills: list[tuple[str, observing.Candidate, str | None]] = []
    groups_done: set[str] = set()
    fields = [c for c in obs.candidates if c.form == button.form and not c.covered and c.selector != button.selector]
    for c in fields:
        if "type" in c.kinds:
            first = values.values_for(c, hints)[0]
            if first.strip() and (c.value or "") != first:
                fills.append(("type", c, first))
        elif "select" in c.kinds and not (c.value or "") and any(o for o in c.options):
            fills.append(("select", c, next(o for o in c.options if o)))
        elif "check" in c.kinds and c.type == "checkbox" and c.checked is False \
                and (c.required or CONSENT.search(f"{c.name} {c.hint} {c.input_name or ''}")):
            fills.append(("check", c, None))
        elif "check" in c.kinds and c.type == "radio" and c.input_name and c.input_name not in groups_done:
            groups_done.add(c.input_name)
            if not any(x.type == "radio" and x.input_name == c.input_name and x.checked for x in fields):
                fills.append(("check", c, None))
    return fills


# Controls a person sees as one: what they try before guessing at the page.
CONTROL_TAGS = {"button", "a", "input", "select", "textarea", "summary", "label", "option"}
CONTROL_ROLES = {"button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
                 "menuitemradio", "option", "slider", "spinbutton", "combobox", "textbox", "searchbox", "treeitem"}
CONTROL_KINDS = ("click", "check", "select", "type", "upload")


def containers(obs: observing.Observation) -> set[str]:
    """Selectors of candidates whose box holds two or more other candidates' boxes: a
    page wrapper, a React root that listens for all of its children, a board around
    its cells. Acting on one is a guess at what its listener wants."""
    found: set[str] = set()
    boxes = [(c.selector, c.box) for c in obs.candidates if c.box[2] > 0 and c.box[3] > 0]
    for selector, (x, y, w, h) in boxes:
        inside = 0
        for other, (ox, oy, ow, oh) in boxes:
            if other != selector and ox >= x and oy >= y and ox + ow <= x + w and oy + oh <= y + h:
                inside += 1
                if inside >= 2:
                    found.add(selector)
                    break
    return found


def control(candidate: observing.Candidate, around: set[str]) -> bool:
    """Is it a control: a button, link, field, checkbox or select, an element with a
    control's role, or an element with a listener of its own that holds no other
    control (a card, a tile) — not a container (``around``) nor a canvas?"""
    if candidate.tag == "canvas" or candidate.selector in around:
        return False
    if candidate.tag in CONTROL_TAGS or candidate.role in CONTROL_ROLES:
        return True
    return any(k in candidate.kinds for k in CONTROL_KINDS)


def guess(action: evidence.Action, candidate: observing.Candidate | None, around: set[str]) -> bool:
    """A game-like move rather than the use of a control: a key pressed on the page, a
    press at some place of an element, or any action on a container or a canvas."""
    if action.kind in ("wait", "scroll", "resize", "load", "route", "back", "finish"):
        return False
    if candidate is None:
        return action.kind in ("key", "click", "hover", "drag")
    if action.value and action.value.startswith("at:"):
        return True
    return not control(candidate, around)


MOTION = {"mousemove", "pointermove", "touchmove", "pointerdown", "mousedown", "touchstart"}
POINTER = {"clientX", "clientY", "pageX", "pageY", "offsetX", "offsetY", "movementX", "movementY", "touches"}
KEY_TYPES = ("keydown", "keyup", "keypress")


def plays(obs: observing.Observation, reach: reaching.Reach | None) -> bool:
    """Does the page play: draw on a canvas, or listen to keys or pointer motion as a
    whole — when its code is read, only if the app's own code compares keys or reads
    the pointer's position (a framework listens to the document for its own ends:
    Next.js's keydown is no game)?"""
    if obs.canvases > 0:
        return True
    keys = obs.keyboard or any(item.type in KEY_TYPES for item in obs.page_listeners)
    motion = any(item.type in MOTION for item in obs.page_listeners)
    if reach is None:
        return keys or motion
    code = reach.code
    return (keys and any(facts.keys for facts in code.facts.values())) or (motion and bool(code.mentioned & POINTER))


def to_here(candidate: observing.Candidate | None, page_url: str) -> bool:
    """Is it a link to the very address the page is on (a nav bar's link to the view
    showing)? Following it changes nothing."""
    if candidate is None or candidate.tag != "a" or not candidate.href:
        return False
    return candidate.href.rstrip("#") == page_url.rstrip("#") or (
        candidate.href.endswith("#/") and page_url.rstrip("/#") == candidate.href[:-2].rstrip("/"))
