"""A same-origin link to another page of the app (a router's ``<Link href="/stats">``,
a site's nav bar) is a view to visit, not an exit: it is its own family — though a
router gives every link the same click handler — and worth a visit while that view was
never seen, or while coverage rose since the page was last there (hand-made
observations, no browser)."""

from __future__ import annotations

import dataclasses

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import inspecting
from iwcbench.pipeline.stages.exploring import heuristic, observing, offering, policy, rules

HOME = "http://127.0.0.1:1/"


def _c(ref: str, selector: str, role: str, name: str, **extra) -> observing.Candidate:
    tag = extra.pop("tag", {"button": "button", "link": "a"}.get(role, "div"))
    return observing.Candidate(ref=ref, selector=selector, tag=tag, role=role, name=name, kinds=("click",), **extra)


def _link(href: str, name: str = "Stats", **extra) -> observing.Candidate:
    return _c("l", "#nav > a", "link", name, href=href, **extra)


@pytest.mark.parametrize(("href", "here", "view"), [
    ("http://127.0.0.1:1/stats", HOME, "/stats"),  # another route
    ("http://127.0.0.1:1/stats?tab=2", "http://127.0.0.1:1/stats", "/stats?tab=2"),  # another query
    ("http://127.0.0.1:1/about.html", "http://127.0.0.1:1/index.html", "/about.html"),
    ("http://127.0.0.1:1/docs/", HOME, "/docs/"),
    ("http://127.0.0.1:1/", HOME, None),  # this very page
    ("http://127.0.0.1:1/#/active", HOME, None),  # a hash on it (a hash router's views are its routes)
    ("http://127.0.0.1:1/files/report.pdf", HOME, None),  # a file to download
    ("http://127.0.0.1:2/stats", HOME, None),  # another origin
    ("mailto:a@example.org", HOME, None),
])
def test_which_links_lead_to_another_view_of_the_app(href, here, view):
    assert rules.view_link(_link(href), here) == view


def test_a_link_off_the_app_or_not_a_link_is_no_view():
    assert rules.view_link(_link("https://example.org/stats", external=True), HOME) is None
    assert rules.view_link(_c("b", "#b", "button", "Stats", href="http://127.0.0.1:1/stats"), HOME) is None


# A Next.js page: its nav bar's two <Link>s share the router's click handler (one
# handler family), a form and a few keys' worth of other things to try.
ROUTER = (inspecting.Listener("click", "function linkClicked(e) { … }"),)
TASKS = _c("t", "body > nav > a:nth-of-type(1)", "link", "Tasks", href=HOME)
STATS = _c("s", "body > nav > a:nth-of-type(2)", "link", "Stats", href="http://127.0.0.1:1/stats")
OTHERS = tuple(_c(f"b{i}", f"#b{i}", "button", f"Do {i}") for i in range(6))


def _page(url: str = HOME, state: str = "home", step: int = 1) -> observing.Observation:
    return observing.Observation(step=step, url=url, title="t", doc=1.0, state=state, visual=state,
                                 candidates=(TASKS, STATS, *OTHERS), tree=f"- text: {state}", keyboard=False,
                                 canvases=0, scrollable=False,
                                 listeners={TASKS.selector: ROUTER, STATS.selector: ROUTER})


def _policy() -> heuristic.HeuristicPolicy:
    chosen = heuristic.HeuristicPolicy()
    chosen.begin(policy.Context(start_url=HOME, app_origin="http://127.0.0.1:1", seed=0, max_steps=50,
                                instrumented=True, step_timeout_s=10, plateau_steps=3))
    return chosen


def test_clicking_one_nav_link_says_nothing_of_the_other_route():
    chooser = _policy()
    offering.element_actions(chooser.memory, _page(), None)
    tasks, stats = rules.signature("click", TASKS.selector), rules.signature("click", STATS.selector)
    assert chooser.memory.family(stats) == "view|/stats"
    assert chooser.memory.family(tasks) != chooser.memory.family(stats)  # (the same handler notwithstanding)


def test_a_route_never_visited_is_followed_early_and_not_again_once_seen(monkeypatch):
    monkeypatch.setattr(heuristic, "EPSILON", 0.0)
    for seed in range(10):
        chooser = _policy()
        chooser.rng.seed(seed)
        chosen = []
        for step in range(1, 4):
            page = _page(step=step)
            action = chooser.choose(page)
            chosen.append(action.selector)
            chooser.observe(evidence.Step(index=step, action=action, ok=True, url=HOME), page)
        assert STATS.selector in chosen[:2], (seed, chosen)
    # once the page was on /stats, its link is worth no more than any other ...
    chooser = _policy()
    stats = rules.signature("click", STATS.selector)
    chooser.choose(_page(url="http://127.0.0.1:1/stats", state="stats", step=1))
    offering.element_actions(chooser.memory, _page(step=2), None)
    assert chooser.memory.steers.get(stats, 0.0) == 0.0
    # ... until coverage rose elsewhere: what the view shows may have changed
    add = evidence.Action(kind="click", target='button "Do 1"', selector="#b1")
    chooser.choose(_page(step=2))
    chooser.observe(evidence.Step(index=2, action=add, ok=True, url=HOME, coverage_gain=4.0), _page(step=2))
    offering.element_actions(chooser.memory, _page(step=3), None)
    assert chooser.memory.steers[stats] == offering.REVISIT > 0


def test_links_inside_list_items_stay_one_family():
    # (a product list's "Details" links: one item's page says much about the others)
    chooser = _policy()
    items = [dataclasses.replace(_link(f"http://127.0.0.1:1/item/{n}", name="Details"), ref=f"i{n}",
                                 selector=f"#list > li:nth-of-type({n}) > a", item=f"li{n}") for n in (1, 2)]
    page = dataclasses.replace(_page(), candidates=tuple(items))
    offering.element_actions(chooser.memory, page, None)
    families = {chooser.memory.family(rules.signature("click", c.selector)) for c in items}
    assert len(families) == 1 and not any(f.startswith("view|") for f in families)
