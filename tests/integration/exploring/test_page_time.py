"""Under Playwright's clock the page's time is ours: it starts at one fixed instant,
paused, and moves only by what the steps let pass, so a timer-driven page explored
twice gives the same steps and the same snapshots, whatever the machine was doing."""

from __future__ import annotations

import hashlib

import pytest

pytestmark = pytest.mark.browser


def _seen(run) -> list[tuple[str, str]]:
    return [(s.action.label(), hashlib.sha1(run.files[s.dom]).hexdigest() if s.dom else "") for s in run.steps]


def test_a_timer_driven_page_is_explored_the_same_way_twice(corpus):
    first = corpus.explore("solar-clock", max_steps=15)
    second = corpus.explore("solar-clock", max_steps=15)
    assert first.result.trace.virtual_time and second.result.trace.virtual_time
    assert _seen(first) == _seen(second)
    assert first.result.trace.final_coverage == second.result.trace.final_coverage


TRANSITION = """<!doctype html><style>#b{width:0;height:10px;transition:width 1s linear}#b.on{width:1000px}
@keyframes fade{from{opacity:0}to{opacity:1}} #b.on{animation:fade 400ms linear}</style><div id=b></div>
<script>window.ended = []; document.addEventListener('transitionend', () => ended.push('transition'));
document.addEventListener('animationend', () => ended.push('animation'));</script>"""


def test_css_transitions_and_animations_move_with_the_page_clock_not_real_time():
    """A 1 s transition and a 400 ms animation, started, then a real second spent
    elsewhere: they have not moved; 250 ms of page time later they are a quarter
    (and 250/400) done, and once the clock has let their length pass they end, with
    their end events — the next look sees the same page whatever the machine's load."""
    import base64
    import time

    from iwcbench.pipeline.kits import browser

    read = "() => [getComputedStyle(b).width, getComputedStyle(b).opacity, ended.join()]"
    with browser.Session(browser.ContextOptions()) as session:
        session.virtual_time = True
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode(TRANSITION.encode()).decode(), 30)
        tab.evaluate("() => document.getElementById('b').classList.add('on')", None, 10)
        time.sleep(1.2)  # real time, not the page's: nothing may move
        assert tab.evaluate(read, None, 10) == ["0px", "0", ""]
        tab.fast_forward(250, 30)
        width, opacity, ended = tab.evaluate(read, None, 10)
        assert (width, round(float(opacity), 3), ended) == ("250px", 0.625, "")
        tab.fast_forward(1000, 30)
        assert tab.evaluate(read, None, 10) == ["1000px", "1", "animation,transition"]


def test_an_animation_in_a_same_origin_frame_moves_with_the_page_clock_too():
    import base64

    from iwcbench.pipeline.kits import browser

    page = ('<iframe srcdoc="<style>@keyframes k{from{opacity:0}to{opacity:1}} p{animation:k 1s linear}</style>'
            '<p id=p>y"></iframe>')
    read = "() => getComputedStyle(document.querySelector('iframe').contentDocument.getElementById('p')).opacity"
    with browser.Session(browser.ContextOptions()) as session:
        session.virtual_time = True
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode(page.encode()).decode(), 30)
        assert tab.evaluate(read, None, 10) == "0"
        tab.fast_forward(250, 30)
        assert tab.evaluate(read, None, 10) == "0.25"
