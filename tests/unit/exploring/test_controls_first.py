"""Every control before any guess, and every view (issue 37, parts 2 and 3), on
hand-made observations: a page's container and its page-wide keys wait until each
control was tried once; a page that plays may spend a share of its steps on them; a
nav list's hash-route links are views of their own; an edit field whose key handler
hides its keys is offered Enter and Escape."""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import inspecting
from iwcbench.pipeline.stages.exploring import heuristic, observing, playing, policy, rules, terms


def _candidate(ref: str, selector: str, role: str, name: str, kinds: tuple[str, ...], **extra) -> observing.Candidate:
    tag = extra.pop("tag", {"button": "button", "link": "a", "textbox": "input", "checkbox": "input"}.get(role, "div"))
    return observing.Candidate(ref=ref, selector=selector, tag=tag, role=role, name=name, kinds=kinds, **extra)


def _page(*candidates: observing.Candidate, **extra) -> observing.Observation:
    base = dict(step=1, url="http://127.0.0.1:1/index.html#/", title="t", doc=1.0, state="s0", visual="s0",
                candidates=candidates, tree="", keyboard=False, canvases=0, scrollable=False)
    return observing.Observation(**{**base, **extra})


def _policy() -> heuristic.HeuristicPolicy:
    chooser = heuristic.HeuristicPolicy()
    chooser.begin(policy.Context(start_url="http://127.0.0.1:1/index.html", app_origin="http://127.0.0.1:1",
                                 seed=0, max_steps=50, instrumented=True, step_timeout_s=10, plateau_steps=3))
    return chooser


# A React-like habit tracker: its root holds every control and listens for all of them
# (clicks, drags, hovers, keys), as React's delegated listeners make it look.
ROOT = _candidate("e0", "#root", "generic", "", ("click", "hover", "drag", "key"), box=(0, 0, 1280, 800),
                  listeners=("click", "keydown", "mousedown", "mousemove"))
CONTROLS = (
    _candidate("e1", "#all", "button", "All", ("click",), box=(10, 10, 60, 30)),
    _candidate("e2", "#done", "button", "Done", ("click",), box=(80, 10, 60, 30)),
    _candidate("e3", "#todo", "button", "To do", ("click",), box=(150, 10, 60, 30)),
    _candidate("e4", "#remove", "button", "Remove", ("click",), box=(220, 10, 60, 30)),
    _candidate("e5", "#card", "generic", "Read 10 pages", ("click",), box=(10, 60, 300, 40), listeners=("click",)),
)


def test_a_container_is_what_holds_other_controls():
    page = _page(ROOT, *CONTROLS)
    around = rules.containers(page)
    assert around == {"#root"}
    assert not rules.control(ROOT, around)
    assert all(rules.control(c, around) for c in CONTROLS)  # the card has a listener of its own: a control
    canvas = _candidate("e9", "#c", "canvas", "", ("click", "drag"), tag="canvas", box=(0, 0, 300, 300))
    assert not rules.control(canvas, around)


def test_what_is_a_guess():
    around = {"#root"}
    assert rules.guess(evidence.Action(kind="key", target="page", value="ArrowUp"), None, around)
    assert rules.guess(evidence.Action(kind="drag", target="generic", selector="#root"), ROOT, around)
    assert rules.guess(evidence.Action(kind="click", target="button", selector="#all", value="at:0.2,0.2"),
                       CONTROLS[0], around)
    assert not rules.guess(evidence.Action(kind="click", target="button", selector="#all"), CONTROLS[0], around)
    assert not rules.guess(evidence.Action(kind="wait", target="page", value="800"), None, around)
    assert not rules.guess(evidence.Action(kind="route", target="page", value="#/x"), None, around)


def test_every_control_is_tried_before_the_container_is_guessed_at():
    chooser, page = _policy(), _page(ROOT, *CONTROLS)
    picked = []
    for _ in range(len(CONTROLS)):
        action = chooser.choose(page)
        picked.append(action.selector)
        chooser.observe(evidence.Step(index=1, action=action, ok=True, url=page.url), page)
    assert sorted(picked) == sorted(c.selector for c in CONTROLS), picked


def test_a_page_that_plays_may_guess_in_proportion():
    """A page listening to keys as a whole (a game) spends up to half of its steps on
    game-like moves while controls are left: it neither ignores the keys nor does
    nothing else."""
    chooser = _policy()
    page = _page(ROOT, *CONTROLS, keyboard=True, page_listeners=(inspecting.Listener(type="keydown", handler="k"),))
    guesses = 0
    for _ in range(len(CONTROLS)):
        action = chooser.choose(page)
        guesses += rules.guess(action, next((c for c in page.candidates if c.selector == action.selector), None),
                               {"#root"})
        chooser.observe(evidence.Step(index=1, action=action, ok=True, url=page.url), page)
    assert guesses <= (len(CONTROLS) + 1) // 2 + 1


def test_a_nav_lists_hash_route_links_are_views_of_their_own():
    def link(ref: str, name: str, route: str) -> observing.Candidate:
        return _candidate(ref, f"ul.filters > li:nth-of-type({ref[-1]}) > a", "link", name, ("click",),
                          href=f"http://127.0.0.1:1/index.html#{route}", item=f"i{ref}", context=name)
    links = (link("e1", "All", "/"), link("e2", "Active", "/active"), link("e3", "Completed", "/completed"))
    assert [rules.link_family(c) for c in links] == ["route|#/", "route|#/active", "route|#/completed"]
    assert all(rules.filtering(c) for c in links)  # alone in their list items: a list's filters
    post = _candidate("e4", "a", "link", "Post", ("click",), href="http://127.0.0.1:1/#/post/12")
    assert rules.link_family(post) == "route|#/post/#"
    plain = _candidate("e5", "a", "link", "Menu", ("click",), href="http://127.0.0.1:1/index.html#")
    assert rules.link_family(plain) is None
    # a todo named "Done" is not a filter: its list item holds more than its name
    todo = _candidate("e6", "li > button", "button", "Done", ("click",), item="i9", context="Done Buy milk ×")
    assert not rules.filtering(todo)


class _Reach:
    """A reach that reads no key from any handler (a framework's wrapper)."""

    def handler_keys(self, source: str) -> list[tuple[str, float]]:
        return []


def test_an_edit_field_whose_keys_cannot_be_read_gets_enter_and_escape_and_tab_when_focused():
    field = _candidate("e1", "li > input.edit", "textbox", "Edit todo", ("type",), type="text")
    listeners = {field.selector: (inspecting.Listener(type="keyup", handler="(e) => invoker(e)"),
                                  inspecting.Listener(type="blur", handler="(e) => invoker(e)"))}
    page = _page(field, listeners=listeners)
    keys = [o.action.value for o in playing.element_key_options(page, field, _Reach())]
    assert keys == ["Enter", "Escape"]
    focused = _page(field, listeners=listeners, focused=field.selector)
    assert [o.action.value for o in playing.element_key_options(focused, field, _Reach())] == ["Enter", "Escape", "Tab"]
    box = _candidate("e2", "#agree", "checkbox", "Agree", ("check",), type="checkbox")
    assert playing.element_key_options(_page(box, listeners={box.selector: listeners[field.selector]}), box,
                                       _Reach()) == []


def test_a_link_to_another_view_waits_for_items_as_a_filter_does():
    """A stats view shows nothing of an empty list: a link to it weighs like a filter
    (EARLY_FILTER) until the list has a few items, then it is a view to visit."""
    field = _candidate("e1", "#new", "textbox", "New task", ("type",), type="text")
    stats = _candidate("e2", "nav > a", "link", "Stats", ("click",), href="http://127.0.0.1:1/stats")
    chooser, page = _policy(), _page(field, stats)
    first = chooser.choose(page)
    assert first.selector == "#new"
    sig = rules.signature("click", stats.selector)
    assert chooser.memory.family(sig) == "view|/stats"
    link = evidence.Action(kind="click", target="Stats", selector=stats.selector)
    assert terms.early_filter(_situation(chooser, page), sig, link)
    items = tuple(_candidate(f"i{n}", f"li:nth-of-type({n}) > button", "button", "Done", ("click",), item=f"r{n}",
                             context=f"Task {n} Done") for n in range(1, 4))
    full = _page(field, stats, *items)
    assert not terms.early_filter(_situation(chooser, full), sig, link)


def _situation(chooser: heuristic.HeuristicPolicy, page: observing.Observation) -> terms.Situation:
    return terms.Situation(page, heuristic.place(page), chooser.memory, frozenset(), frozenset(), frozenset(),
                           chooser.rng, {c.selector: c for c in page.candidates})


class _Routes:
    """A reach whose code routes to a router table's paths."""

    class code:  # noqa: N801 - the attribute a reach has
        routes = ("/", "/active", "/completed", "#/about")

    def handler_value(self, source: str) -> float:
        return 0.0


def test_a_hash_routers_table_paths_are_visited_as_hashes():
    """Vue Router with createWebHashHistory: the table says "/active", the page's
    address reads "#/": the view is visited by setting the hash "#/active"."""
    hashed = _page(url="http://127.0.0.1:1/index.html#/")
    assert [o.action.value for o in playing.route_options(hashed, _Routes())] == ["#/active", "#/completed", "#/about"]
    plain = _page(url="http://127.0.0.1:1/")
    assert [o.action.value for o in playing.route_options(plain, _Routes())] == ["/active", "/completed", "#/about"]


def test_an_action_on_the_whole_list_waits_for_items():
    toggle_all = _candidate("e1", "#toggle-all", "checkbox", "Toggle All Input", ("check",), hint="toggle-all")
    mark = _candidate("e2", "#mark", "button", "Mark all as done", ("click",))
    one = _candidate("e3", "li > button", "button", "Toggle all", ("click",), item="r1", context="Toggle all x")
    assert rules.bulk(toggle_all) and rules.bulk(mark) and not rules.bulk(one)
    assert not rules.bulk(_candidate("e4", "#all", "link", "All", ("click",)))


def test_a_framework_listening_to_the_document_does_not_make_a_page_play():
    """Next.js listens for keydown on the document for its own ends: with the code read,
    a page plays only if the app's own code compares keys (or reads the pointer)."""
    class Facts:
        def __init__(self, keys):
            self.keys = keys

    class Reach:
        def __init__(self, keys, mentioned=frozenset()):
            self.code = type("Code", (), {"facts": {"app.js": Facts(keys)}, "mentioned": set(mentioned)})()

    page = _page(keyboard=True, page_listeners=(inspecting.Listener(type="keydown", handler="f"),))
    assert rules.plays(page, None)
    assert not rules.plays(page, Reach([]))
    assert rules.plays(page, Reach(["ArrowUp"]))
    moving = _page(page_listeners=(inspecting.Listener(type="mousemove", handler="f"),))
    assert not rules.plays(moving, Reach([]))
    assert rules.plays(moving, Reach([], {"clientX"}))
    assert rules.plays(_page(canvases=1), Reach([]))


def test_a_link_to_the_view_showing_goes_nowhere():
    here = _candidate("e1", "nav > a:nth-of-type(2)", "link", "Stats", ("click",), href="http://127.0.0.1:1/#/stats")
    assert rules.to_here(here, "http://127.0.0.1:1/#/stats")
    assert not rules.to_here(here, "http://127.0.0.1:1/#/")
    home = _candidate("e2", "nav > a:nth-of-type(1)", "link", "Tasks", ("click",), href="http://127.0.0.1:1/#/")
    assert rules.to_here(home, "http://127.0.0.1:1/") and not rules.to_here(home, "http://127.0.0.1:1/#/stats")


def test_a_link_to_another_view_does_not_hold_a_destructive_action_back():
    """On a stats view, "Clear all" is the one thing left to do: the nav bar's link back
    to the tasks builds nothing up, so it does not make "Clear all" wait."""
    tasks = _candidate("e1", "nav > a:nth-of-type(1)", "link", "Tasks", ("click",), href="http://127.0.0.1:1/#/")
    clear = _candidate("e2", "#clear", "button", "Clear all", ("click",))
    chooser = _policy()
    page = _page(tasks, clear, url="http://127.0.0.1:1/#/stats")
    options = [(rules.signature("click", c.selector), evidence.Action(kind="click", target=c.name, selector=c.selector))
               for c in (tasks, clear)]
    harmful, held = chooser._destructive(page, options)
    assert harmful == {rules.signature("click", "#clear")} and held == set()


def test_a_delete_once_tried_waits_while_the_list_is_short():
    field = _candidate("e1", "#new", "textbox", "New task", ("type",), type="text")
    delete = _candidate("e2", "li:nth-of-type(1) > button", "button", "Delete", ("click",), item="r1",
                        context="Buy milk Delete")
    chooser = _policy()
    sig = rules.signature("click", delete.selector)
    chooser.memory.families[sig] = rules.family(sig)
    options = [(rules.signature("type", "#new"), evidence.Action(kind="type", target="New task", selector="#new")),
               (sig, evidence.Action(kind="click", target="Delete", selector=delete.selector))]
    chooser.memory.tried_family[rules.signature("type", "#new")] += 1
    assert chooser._destructive(_page(field, delete), options)[1] == set()  # never tried: it may go
    chooser.memory.tried_family[rules.family(sig)] += 1
    assert chooser._destructive(_page(field, delete), options)[1] == {sig}  # tried, one item: it waits
    more = tuple(_candidate(f"x{n}", f"li:nth-of-type({n}) > button", "button", "Delete", ("click",), item=f"r{n}",
                            context="Task Delete") for n in (2, 3))
    assert chooser._destructive(_page(field, delete, *more), options)[1] == set()  # three items: it may go


def test_a_clear_key_outside_the_list_is_not_held_for_the_list():
    """A calculator's "C" (its class says clear) shares one handler with the digits: that
    the digits were pressed says nothing of it, and it is no list item's delete."""
    display = _candidate("e0", "#result", "textbox", "", ("type",), type="text")
    clear = _candidate("e1", "button.clear", "button", "C", ("click",), hint="clear")
    seven = _candidate("e2", "button.number", "button", "7", ("click",))
    chooser = _policy()
    sigs = [rules.signature("click", c.selector) for c in (clear, seven)]
    for sig in sigs:
        chooser.memory.families[sig] = "handler|digits"
    chooser.memory.tried_family["handler|digits"] += 1
    chooser.memory.tried_family[rules.signature("type", "#result")] += 1
    options = [(rules.signature("type", "#result"), evidence.Action(kind="type", target="result", selector="#result")),
               *((sig, evidence.Action(kind="click", target=c.name, selector=c.selector)) for sig, c in zip(sigs, (clear, seven)))]
    harmful, held = chooser._destructive(_page(display, clear, seven), options)
    assert harmful == {sigs[0]} and held == set()
