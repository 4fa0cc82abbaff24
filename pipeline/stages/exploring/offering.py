"""The heuristic explorer's options: every action the page offers in one observation
— on its elements (clicks, typing, choices, drags, the presses their own listeners ask
for, positional presses) and on the page as a whole (keys, waits, routes, resizes,
scrolls, a reload) — each with its signature, its family and what reaching says it
could still run. Scoring and choosing are heuristic.py's; this must not touch the
page, and it changes nothing in the explorer's memory but the families and steering
values it notes for the options it offers.
"""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import memory as memory_mod, observing, playing, reaching, rules, steering

DROP_TARGETS = 4  # drop targets an element is dragged to, each its own action
NEW_VIEW = 1.0  # steering value of a link to a view of the app not yet visited
REVISIT = 1.0  # of a link to a view visited before coverage last rose
RELOAD = "load|"
RELOADS = 3
RELOAD_EVERY = 8


def element_actions(memory: memory_mod.Memory, obs: observing.Observation, reach: reaching.Reach | None
                    ) -> list[tuple[str, evidence.Action]]:
    """The actions on the page's elements (noting each one's family and steering value)."""
    actions: list[tuple[str, evidence.Action]] = []
    drop = obs.drop_targets[0] if obs.drop_targets else None
    # (what something else covers would receive no click: a dialog is open over it)
    reachable = [c for c in obs.candidates if not c.covered] or list(obs.candidates)
    for c in reachable:
        if c.external:
            continue  # recorded by the explorer, never followed
        target = c.describe()
        in_item = c.item is not None
        # (a link to another view is that view's own family: clicking "Tasks" says
        # nothing of "Stats", though a router gives every link the same handler)
        view = rules.view_link(c, obs.url) if not in_item else None
        for kind in c.kinds:
            sig = rules.signature(kind, c.selector)
            shared = steering.handler_family(obs, c.selector, kind)
            memory.families[sig] = rules.family(sig) if in_item else (shared or sig)
            if view is not None and kind == "click":
                memory.families[sig] = f"view|{view}"
            elif kind == "click" and (link := rules.link_family(c)) is not None:
                memory.families[sig] = link
            if sig in memory.banned:
                continue
            if kind == "type":
                actions.append((sig, evidence.Action(kind="type", target=target, selector=c.selector)))
            elif kind == "select":
                if c.options:
                    actions.append((sig, evidence.Action(kind="select", target=target, selector=c.selector)))
            elif kind == "drag":
                value = f"to:{drop}" if drop and c.tag != "canvas" and drop != c.selector else None
                actions.append((sig, evidence.Action(kind="drag", target=target, selector=c.selector, value=value)))
                if value is not None:  # (each other drop target is another move: a board's columns)
                    for other in obs.drop_targets[1:DROP_TARGETS]:
                        if other != c.selector:
                            _offer(memory, actions, f"{sig}>{other}", evidence.Action(
                                kind="drag", target=target, selector=c.selector, value=f"to:{other}"), in_item,
                                steering.drop_value(reach, obs, other) if reach is not None else None)
            elif kind == "key":
                actions.append((sig, evidence.Action(kind="key", target=target, selector=c.selector)))
            else:
                at = f"at:{c.point[0]:g},{c.point[1]:g}" if c.point and kind in ("click", "hover") else None
                actions.append((sig, evidence.Action(kind=kind, target=target, selector=c.selector, value=at)))
            if reach is not None:
                steer = steering.action_value(reach, obs, c.selector, kind)
                if kind == "drag" and drop:
                    steer = max(steer, steering.drop_value(reach, obs, drop))
                memory.steers[sig] = steer
            if kind == "click" and (view is not None or rules.to_here(c, obs.url)):  # (to here: no hashchange)
                memory.steers[sig] = 0.0 if view is None else max(memory.steers.get(sig, 0.0), view_value(memory, view))
            if kind in ("click", "hover") and steering.positional(obs, c):
                for option in playing.positional_options(obs, c, sig, kind, memory.steers.get(sig, 0.0)):
                    memory.families[option.sig] = memory.families[sig]
                    if option.sig not in memory.banned:
                        actions.append((option.sig, option.action))
                        memory.steers[option.sig] = option.steer
        actions.extend(_extra_presses(memory, obs, c, reach, target, in_item))
    return actions

def view_value(memory: memory_mod.Memory, view: str) -> float:
    """What a link to another view of the app is worth: NEW_VIEW while the page was
    never on it, REVISIT when coverage rose since the page was last there (what it
    shows, or can do, may have changed: a stats page after tasks were added), else 0."""
    last = memory.views.get(view)
    if last is None:
        return NEW_VIEW
    return REVISIT if memory.last_gain > last else 0.0


def _extra_presses(memory: memory_mod.Memory, obs: observing.Observation, c: observing.Candidate,
                   reach: reaching.Reach | None,
                   target: str, in_item: bool) -> list[tuple[str, evidence.Action]]:
    """Presses an element's own listeners ask for: the keys its key handlers compare
    against, taps and swipes for touch handlers, a right click for a context menu,
    a double click."""
    actions: list[tuple[str, evidence.Action]] = []
    for option in playing.element_key_options(obs, c, reach) if reach is not None else ():
        _offer(memory, actions, option.sig, option.action, in_item, option.steer)

    def press(name: str, kind: str, value: str, fires: str) -> None:
        _offer(memory, actions, rules.signature(name, c.selector), evidence.Action(
            kind=kind, target=target, selector=c.selector, value=value), in_item,
            steering.action_value(reach, obs, c.selector, fires) if reach is not None else None)

    if any(t in c.listeners for t in steering.FIRES["touch"]):
        for name, value in (("tap", "touch:0,0"), ("swipe", "touch:-120,0"), ("swipe-right", "touch:120,0")):
            press(name, "drag", value, "touch")
    if "contextmenu" in c.listeners:
        press("rightclick", "click", "right", "rightclick")
    if "dblclick" in c.listeners:
        press("dblclick", "click", "double", "dblclick")
    return actions

def _offer(memory: memory_mod.Memory, actions: list[tuple[str, evidence.Action]], sig: str, action: evidence.Action,
           in_item: bool,
           steer: float | None) -> None:
    """One more action on an element, in its family (list positions erased inside a
    list item), unless it hung the page once; ``steer``: what reaching says of it."""
    memory.families[sig] = rules.family(sig) if in_item else sig
    if sig not in memory.banned:
        actions.append((sig, action))
        if steer is not None:
            memory.steers[sig] = steer

def page_actions(memory: memory_mod.Memory, obs: observing.Observation, reach: reaching.Reach | None,
                 nothing_else: bool, virtual: bool, desktop: str) -> list[tuple[str, evidence.Action]]:
    """Actions on the page as a whole: keys, waits, routes, resizes, scrolls, a reload."""
    reload = reload_option(memory, obs, reach)
    fast_tries = memory.tried_family[playing.FAST_WAIT]
    options = (playing.key_options(obs, reach) + playing.wait_options(obs, reach, nothing_else, virtual, fast_tries)
               + playing.route_options(obs, reach) + resize_options(memory, obs, desktop) + playing.scroll_options(obs))
    for option in options:
        memory.steers[option.sig] = option.steer
        if option.sig.startswith(playing.FAST_WAIT):
            memory.families[option.sig] = playing.FAST_WAIT
    return [(o.sig, o.action) for o in options + reload if o.sig not in memory.banned]

def resize_options(memory: memory_mod.Memory, obs: observing.Observation, desktop: str) -> list[playing.Option]:
    """To a phone's viewport, once; back to the desktop's after it."""
    options = playing.resize_options(obs, desktop)
    phone_done = memory.tried_family["resize|phone"] > 0
    return [o for o in options if (o.sig == "resize|phone") != phone_done
            and memory.tried_family[o.sig] == 0]

def reload_option(memory: memory_mod.Memory, obs: observing.Observation, reach: reaching.Reach | None
                  ) -> list[playing.Option]:
    """A reload of the start page, for an app that keeps what it has in storage:
    what it stored comes back through code that runs only at load. A few times
    per exploration, RELOAD_EVERY steps apart."""
    if reach is None or not reach.code.stores or memory.tried_family[RELOAD] >= RELOADS:
        return []
    if obs.step - memory.last_reload < RELOAD_EVERY:
        return []
    # Never while the app is getting somewhere (the last step gained) or has set a timer
    # that is still to fire (a level's briefing, a countdown): a reload throws that
    # state away, and what is stored is still there a few steps later.
    if memory.idle < 1 or reach.pending_timers():
        return []
    return [playing.Option(RELOAD, evidence.Action(kind="load", target="page"))]
