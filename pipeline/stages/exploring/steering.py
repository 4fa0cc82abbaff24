"""Which of the page's actions lead to code that has not run: the heuristic's
steering, from the listeners the page attached (observing.Observation.listeners)
and reaching.Reach's values. Pure functions of an observation and a Reach; they
must not keep state or touch the page.

An element action fires the listeners of the event types it causes (a click fires
click, mousedown, pointerup …; a submit button also fires its form's submit); its
value is the best handler value among them. Handlers that read the pointer's
position (clientX, offsetX …) or live on a canvas make their element worth
clicking at several places.
"""

from __future__ import annotations

import hashlib

from iwcbench.pipeline.stages.exploring import observing, reaching

FIRES = {
    "click": ("click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend", "change",
              "input", "submit"),
    "check": ("click", "change", "input", "mousedown", "pointerdown"),
    "type": ("input", "change", "keydown", "keyup", "keypress", "blur", "focus", "focusin", "focusout", "submit"),
    "select": ("change", "input"),
    "upload": ("change", "input"),
    "hover": ("mouseenter", "mouseover", "mousemove", "pointerenter", "pointerover", "pointermove", "mouseleave",
              "mouseout"),
    "drag": ("dragstart", "drag", "dragend", "mousedown", "pointerdown", "pointermove", "mousemove", "touchstart",
             "touchmove", "mouseup", "pointerup"),
    "key": ("keydown", "keyup", "keypress"),
    "dblclick": ("dblclick",),
    "touch": ("touchstart", "touchmove", "touchend", "touchcancel"),
    "rightclick": ("contextmenu", "mousedown", "mouseup", "pointerdown", "pointerup", "auxclick"),
}
POSITIONAL = ("clientX", "clientY", "offsetX", "offsetY", "pageX", "pageY", "layerX", "getBoundingClientRect")
# Places to press on a positional element: the middle, then a spread over its box.
POSITIONS = ((0.5, 0.5), (0.2, 0.25), (0.8, 0.75), (0.2, 0.75), (0.8, 0.25), (0.5, 0.15), (0.5, 0.85),
             (0.1, 0.5), (0.9, 0.5), (0.35, 0.6), (0.65, 0.4))
KEY_TYPES = FIRES["key"]


def action_value(reach: reaching.Reach, obs: observing.Observation, selector: str, kind: str) -> float:
    """The best value among the handlers this action fires on this element."""
    listeners = obs.listeners.get(selector, ())
    types = FIRES.get(kind, ())
    return max((reach.handler_value(item.handler) for item in listeners if item.type in types), default=0.0)


def drop_value(reach: reaching.Reach, obs: observing.Observation, target: str) -> float:
    return max((reach.handler_value(item.handler) for item in obs.listeners.get(target, ())
                if item.type in ("drop", "dragover", "dragenter")), default=0.0)


def page_key_value(reach: reaching.Reach, obs: observing.Observation) -> float:
    """What the page's own key handlers (window, document, body) could still add."""
    return max((reach.handler_value(item.handler) for item in obs.page_listeners if item.type in KEY_TYPES),
               default=0.0)


def positional(obs: observing.Observation, candidate: observing.Candidate) -> bool:
    """Does pressing it at another place do something else (a canvas, a seek bar)?"""
    if candidate.tag == "canvas":
        return True
    return any(word in item.handler for item in obs.listeners.get(candidate.selector, ()) for word in POSITIONAL)


def handler_family(obs: observing.Observation, selector: str, kind: str) -> str | None:
    """A name shared by elements whose listeners for this action run the same
    handlers (a chart's thirty dots), or None when it has none."""
    types = FIRES.get(kind, ())
    handlers = sorted({item.handler for item in obs.listeners.get(selector, ()) if item.type in types})
    if not handlers:
        return None
    return f"{kind}|handlers:{hashlib.sha1(chr(0).join(handlers).encode()).hexdigest()[:12]}"
