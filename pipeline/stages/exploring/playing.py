"""Actions besides acting once on one element: key plays, holds, waits, scrolling and
presses at several places of a positional element (a canvas, a seek bar).

Keys come from the app's code when it compares against any (reaching.Reach.key_plays:
the keys whose branches never ran first, with their modifiers, held keys held, key
arrays as sequences); otherwise from the keys games usually read. Waiting is offered
when timers were scheduled whose callbacks never ran, and — cheaply — always, so an
app that only animates still gets explored. Pure: an observation and a Reach (None
in black box) in, ``Option``s out; it must not touch the page.
"""

from __future__ import annotations

import dataclasses
import random

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import observing, reaching, rules, steering

ARROWS = ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight")
KEY_GROUPS = {
    "arrows": ARROWS,
    "space": ("Space",),
    "enter": ("Enter",),
    "wasd": ("w", "a", "s", "d"),
    "escape": ("Escape",),
}
MAX_KEY_PLAYS = 16  # code-derived key plays offered per step (the most promising)
HOLD_MAX_MS = 1500  # the longest hold (a step's time grows with it)
VIRTUAL_HOLD_MAX_MS = 12_000  # in virtual time a hold costs no more than a tap
FAST_MS = 20_000  # virtual time let pass for timers whose code never ran (doubling on repeats)
FAST_MAX_MS = 60_000
TIMER_WAIT_MS = (400, 2500)  # a wait for pending timers lasts this long at least / at most
IDLE_WAIT_MS = 800
IDLE_WAIT = "wait|"  # the wait offered whatever the code says (it promises nothing)
FAST_WAIT = "wait|fast:"  # (+ its ms) each length a new option: a longer wait is another try
POSITIONS_OFFERED = 5  # places per positional element, per kind


@dataclasses.dataclass(frozen=True)
class Option:
    """One action the heuristic could choose: ``sig`` names it across steps,
    ``steer`` is what reaching says it could still add (0 when unknown)."""

    sig: str
    action: evidence.Action
    steer: float = 0.0


def _listens_to_keys(obs: observing.Observation) -> bool:
    return obs.keyboard or obs.canvases > 0 or any(item.type in steering.KEY_TYPES for item in obs.page_listeners)


def key_options(obs: observing.Observation, reach: reaching.Reach | None) -> list[Option]:
    if not _listens_to_keys(obs):
        return []
    plays = reach.key_plays()[:MAX_KEY_PLAYS] if reach is not None else []
    if reach is not None and plays:
        handlers = steering.page_key_value(reach, obs)
        return [Option(f"key|play:{p.value}", evidence.Action(kind="key", target="page", value=p.value),
                       steer=p.weight if handlers > 0 or p.weight >= 1 else 0.5 * p.weight) for p in plays]
    options = [Option(f"key|{group}", evidence.Action(kind="key", target="page")) for group in KEY_GROUPS]
    options.append(Option("key|hold", evidence.Action(kind="key", target="page")))
    return options


def wait_options(obs: observing.Observation, reach: reaching.Reach | None, nothing_else: bool,
                 virtual: bool = False, fast_tries: int = 0) -> list[Option]:
    """A wait for timers whose code never ran; in virtual time, game time let pass at
    once (the ball falls, the clock runs out, the next wave comes) — twice as long
    as the last time, up to FAST_MAX_MS (``fast_tries``: fast waits so far), and
    the idle wait costs nothing."""
    delays = reach.pending_timers() if reach is not None else []
    options = []
    if delays and virtual:
        ms = min(FAST_MAX_MS, FAST_MS * 2 ** min(fast_tries, 8))
        options.append(Option(f"{FAST_WAIT}{ms}", evidence.Action(kind="wait", target="page", value=f"fast:{ms}"),
                              steer=1.2))
    elif delays:
        lo, hi = TIMER_WAIT_MS
        ms = int(min(hi, max(lo, min(delays))))
        options.append(Option("wait|timer", evidence.Action(kind="wait", target="page", value=str(ms)), steer=1.0))
    idle = f"fast:{IDLE_WAIT_MS}" if virtual else str(IDLE_WAIT_MS)
    options.append(Option(IDLE_WAIT, evidence.Action(kind="wait", target="page", value=idle),
                          steer=0.5 if nothing_else else 0.0))
    return options


ROUTE_TYPES = ("hashchange", "popstate")
MAX_ROUTES = 12


def route_options(obs: observing.Observation, reach: reaching.Reach | None) -> list[Option]:
    """The views the app's code routes to (code facts), but the one showing: each worth
    what its hashchange / popstate handlers could still add."""
    if reach is None or not reach.code.routes:
        return []
    here = obs.url.split("#", 1)
    hash_now = "#" + here[1] if len(here) > 1 else ""
    path_now = "/" + here[0].split("://", 1)[-1].partition("/")[2]
    value = max((reach.handler_value(item.handler) for item in obs.page_listeners if item.type in ROUTE_TYPES),
                default=0.0)
    # (a hash router — its address reads "#/…" — serves its table's paths as hashes:
    # Vue Router's createWebHashHistory, React Router's HashRouter)
    hashed = hash_now.startswith(("#/", "#!/"))
    options = []
    for route in dict.fromkeys(_as_hash(r, hash_now) if hashed else r for r in reach.code.routes[:MAX_ROUTES]):
        if route in (hash_now, path_now):
            continue
        options.append(Option(f"route|{route}", evidence.Action(kind="route", target="page", value=route),
                              steer=value))
    return options


def _as_hash(route: str, hash_now: str) -> str:
    """A router table's path as the hash router of this page writes it ("/active" on
    a page at "#!/" is "#!/active")."""
    if not route.startswith("/"):
        return route
    return ("#!" if hash_now.startswith("#!") else "#") + route


PHONE = "390x844"


def resize_options(obs: observing.Observation, desktop: str) -> list[Option]:
    """A phone-sized viewport (and back to ``desktop``, "1280x800") for a page that
    listens to resize: its layout code runs only then."""
    if not any(item.type == "resize" for item in obs.page_listeners):
        return []
    return [Option("resize|phone", evidence.Action(kind="resize", target="page", value=PHONE)),
            Option("resize|desktop", evidence.Action(kind="resize", target="page", value=desktop))]


def scroll_options(obs: observing.Observation) -> list[Option]:
    if not obs.scrollable:
        return []
    return [Option("scroll|down", evidence.Action(kind="scroll", target="page", value="0,600")),
            Option("scroll|up", evidence.Action(kind="scroll", target="page", value="0,-600"))]


ELEMENT_KEYS = 4  # keys offered per element with key handlers
FIELD_KEYS = (("Enter", 0.5), ("Escape", 0.5))


def element_key_options(obs: observing.Observation, c: observing.Candidate, reach: reaching.Reach) -> list[Option]:
    """Keys pressed on an element whose own key handlers compare against them (Escape
    and Enter in a list item's edit field, Delete on a selected card), focused first;
    Enter and Escape on a field whose key handler's keys cannot be read; Tab on the
    focused element when it has a blur handler (leaving it is what that waits for)."""
    sources = {item.handler for item in obs.listeners.get(c.selector, ()) if item.type in steering.KEY_TYPES}
    keys: dict[str, float] = {}
    for source in sources:
        for name, weight in reach.handler_keys(source):
            keys[name] = max(keys.get(name, 0.0), weight)
    if sources and not keys and c.type and c.type not in ("checkbox", "radio"):
        # (a field's key handler whose keys cannot be read — a framework's wrapper, as
        # Vue's `@keyup.escape`, compares inside its own code): the keys an edit field
        # answers, Enter to commit and Escape to cancel
        keys = dict(FIELD_KEYS)
    ranked = sorted(keys.items(), key=lambda item: (-item[1], item[0]))[:ELEMENT_KEYS]
    blurs = obs.focused == c.selector and any(item.type in ("blur", "focusout") for item in obs.listeners.get(c.selector, ()))
    if blurs:  # (leaving the focused field is what its blur handler waits for: Tab moves the focus on)
        ranked.append(("Tab", 0.5))
    return [Option(rules.signature(f"key:{name}", c.selector), evidence.Action(kind="key", target=c.describe(), selector=c.selector,
                                                                value=name), steer=weight) for name, weight in ranked]


def positional_options(obs: observing.Observation, c: observing.Candidate, base_sig: str, kind: str,
                       steer: float) -> list[Option]:
    """Presses (or hovers) at several places of a canvas or a position-reading
    element; the middle is the element's plain action and is not repeated."""
    options = []
    for i, (fx, fy) in enumerate(steering.POSITIONS[1:POSITIONS_OFFERED + 1], start=1):
        options.append(Option(f"{kind}@{i}|{base_sig.split('|', 1)[1]}", evidence.Action(
            kind=kind, target=c.describe(), selector=c.selector, value=f"at:{fx:g},{fy:g}"), steer=steer))
    return options


def concrete_key(sig: str, rng: random.Random) -> str:
    """The keys of a generic group for this step (code-derived plays carry theirs)."""
    group = sig.split("|", 1)[1]
    if group == "hold":
        return f"hold:{rng.choice(ARROWS)}:{rng.choice((300, 600))}"
    keys = KEY_GROUPS.get(group) or ARROWS + ("Space", "Enter")
    count = rng.randint(1, 4) if len(keys) > 1 else 1
    return " ".join(rng.choice(keys) for _ in range(count))
