"""What counts as the same state: the DOM normal form."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages import abstracting


def page(body: str, head: str = "<title>Todos</title>") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def same(a: str, b: str) -> bool:
    return abstracting.normalize_dom(a) == abstracting.normalize_dom(b)


@pytest.mark.parametrize(("before", "after"), [
    ("<p>It is 12:04:33</p>", "<p>It is 12:04:34</p>"),
    ("<p>Time 9:59 AM</p>", "<p>Time 10:00 PM</p>"),
    ("<span>00:04.27</span>", "<span>00:05.91</span>"),
    ("<p>Saved 2024-05-01T10:00:00.123Z</p>", "<p>Saved 2025-11-30T17:26:59+02:00</p>"),
    ("<p>Today is May 3, 2024</p>", "<p>Today is June 14, 2026</p>"),
    ("<p>Due Mon, 3 May 2024</p>", "<p>Due Tuesday, 12 Nov 2024</p>"),
    ("<p>Due 05/03/2024</p>", "<p>Due 11/30/2026</p>"),
    ("<p>Due 2024-05-03</p>", "<p>Due 2026-11-30</p>"),
    ("<li data-id='1714557600000'>x</li>", "<li data-id='1714557600999'>x</li>"),
    ("<li>id 1714557600000</li>", "<li>id 1764523619000</li>"),
    ("<li>c2b0e6a4-0a6f-4a52-8b86-7f0c1b2f9e11</li>", "<li>0f3d8a52-9a1e-4c1f-b3d2-5f6e7a8b9c0d</li>"),
    ("<p>edited 5 minutes ago</p>", "<p>edited 12 minutes ago</p>"),
    ("<input type='hidden' value='9f86d081884c7d659a2feaa0c55ad015'>",
     "<input type='hidden' value='a3c5f0e1b2d4c6e8f0a1b3c5d7e9f1a2'>"),
])
def test_clocks_dates_and_generated_values_do_not_make_a_new_state(before, after):
    assert same(page(before), page(after))


@pytest.mark.parametrize(("before", "after"), [
    ("<p>0 items left</p>", "<p>1 item left</p>"),
    ("<li class='todo'>a</li>", "<li class='todo completed'>a</li>"),  # a toggled class is meaning
    ("<div class='modal'>x</div>", "<div class='modal' style='display: none'>x</div>"),
    ("<button aria-expanded='false'>m</button>", "<button aria-expanded='true'>m</button>"),
    ("<input type='checkbox'>", "<input type='checkbox' checked>"),
    ("<button>Go</button>", "<button disabled>Go</button>"),
    ("<div data-state='closed'>m</div>", "<div data-state='open'>m</div>"),
    ("<a href='#/all'>All</a>", "<a href='#/active'>All</a>"),
    ("<svg><rect></rect></svg>", "<svg><rect></rect><rect></rect></svg>"),  # a bar added
    ("<p>Price 3.14</p>", "<p>Price 3.15</p>"),
    ("<p>version 1.2.3</p>", "<p>version 1.2.4</p>"),
])
def test_changes_a_user_sees_make_a_new_state(before, after):
    assert not same(page(before), page(after))


@pytest.mark.parametrize(("before", "after"), [
    ("<script>let t = 1</script><p>x</p>", "<script>let t = 2</script><p>x</p>"),
    ("<style>p{color:red}</style><p>x</p>", "<style>p{color:blue}</style><p>x</p>"),
    ("<noscript>enable js 1</noscript><p>x</p>", "<p>x</p>"),
    ("<template><li>row</li></template><p>x</p>", "<p>x</p>"),
    ("<!-- rendered at 1 --><p>x</p>", "<!-- rendered at 2 --><p>x</p>"),
    ("<p style='color: red; width: 10%'>x</p>", "<p style='color: blue; width: 55%'>x</p>"),
    ("<p class='css-1x2y3z card'>x</p>", "<p class='card css-9q8w7e'>x</p>"),
    ("<p class='Button_primary__3xYz9 big'>x</p>", "<p class='big Button_primary__8kLm2'>x</p>"),
    ("<p class='b a a'>x</p>", "<p class='a b'>x</p>"),
    ("<p id=':r1:'>x</p>", "<p id=':r7:'>x</p>"),
    ("<p data-count='3'>x</p>", "<p data-count='4'>x</p>"),
    ("<p data-v-7ba5bd90>x</p>", "<p data-v-1c2d3e4f>x</p>"),
    ("<button onclick='go(1)'>x</button>", "<button onclick='go(2)'>x</button>"),
    ("<button tabindex='0'>x</button>", "<button tabindex='-1'>x</button>"),
    ("<input aria-describedby='radix-:r3:'>", "<input aria-describedby='radix-:r9:'>"),
    ("<svg><g transform='rotate(30)'><line x1='0' y2='5'/></g></svg>",
     "<svg><g transform='rotate(36)'><line x1='0' y2='9'/></g></svg>"),  # clock hand moving
    ("<img src='logo.png?v=1'>", "<img src='logo.png?v=2'>"),
    ("<img src='data:image/png;base64,AAAA'>", "<img src='data:image/png;base64,BBBB'>"),
    ("<p>a   b\n\n c</p>  \n ", "<p> a b c </p>"),
])
def test_volatile_markup_is_ignored(before, after):
    assert same(page(before), page(after))


def test_stable_ids_and_roles_are_kept():
    normal = abstracting.normalize_dom(page("<ul id='todo-list' role='list'><li>a</li></ul>"))
    assert 'id="todo-list"' in normal and 'role="list"' in normal
    assert not same(page("<ul id='todo-list'></ul>"), page("<ul id='done-list'></ul>"))


def test_placeholders_are_readable_in_the_normal_form():
    normal = abstracting.normalize_dom(page("<p>Updated 12:04 on 2024-05-03</p>"))
    assert "Updated {time} on {date}" in normal
    assert "<script" not in abstracting.normalize_dom(page("<script>x</script>"))


def test_normal_form_is_deterministic_and_ignores_attribute_order():
    a = page("<input type='text' name='q' placeholder='Search' required>")
    b = page("<input required placeholder='Search' name='q' type='text'>")
    assert abstracting.normalize_dom(a) == abstracting.normalize_dom(a) == abstracting.normalize_dom(b)


def test_a_cut_snapshot_marker_does_not_change_the_state():
    body = "<p>x</p>"
    cut = page(body) + "\n<!-- iwc-bench: snapshot cut at 2000000 of 2400000 bytes -->\n"
    assert same(page(body), cut)
