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
