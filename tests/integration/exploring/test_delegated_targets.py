"""Event delegation, in real Chromium: a container listens for clicks and acts only
for the children its code tests for (``classList.contains('seat')``). Those children
have no listener of their own; told the code's targets, the explorer offers each of
them, and nothing else the container holds. Untold (a black-box app), it does not."""

from __future__ import annotations

import base64

import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import observing

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body>
<div id="hall">
  <p class="screen">Screen</p>
  <div class="row"><div class="seat">A1</div><div class="seat occupied">A2</div><div class="seat">A3</div></div>
</div>
<div class="seat" id="outside">B1</div>
<script>
document.getElementById('hall').addEventListener('click', (e) => {
  if (e.target.classList.contains('seat') && !e.target.classList.contains('occupied')) e.target.classList.toggle('selected');
});
</script>
</body></html>"""


def _look(targets: tuple[str, ...]) -> list[observing.Candidate]:
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode(PAGE.encode()).decode(), 20)
        return list(observing.observe(tab, 0, 20.0, targets).candidates)


def test_the_children_a_container_s_listener_acts_for_are_candidates():
    seats = [c for c in _look((".seat", ".occupied")) if "seat" in c.hint]
    assert [c.name for c in seats] == ["A1", "A2", "A3"]  # (not B1: no listener above it)
    assert all("click" in c.kinds for c in seats)


def test_without_the_code_s_targets_they_are_not():
    assert not [c for c in _look(()) if "seat" in c.hint]
