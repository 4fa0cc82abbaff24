"""A page whose frames are far slower than real time gets a coarse clock (issue 36):
in real Chromium under Playwright's clock, a canvas loop that works 100-300 ms on each
frame (120 million square roots; its own clock is ours, so the work is counted, not
timed) has its first slice of page time run frame by frame, then jumps, one frame per
slice, and the step says so; a light page has every frame drawn. The page's time
moves by the same amount either way."""

from __future__ import annotations

import base64

import pytest

from iwcbench.pipeline.kits import browser

pytestmark = pytest.mark.browser

LOOP = """<!doctype html><body><canvas id=c width=200 height=200></canvas><script>
window.frames_drawn = 0;
function frame() {
  let x = 0; for (let i = 0; i < %d; i++) x += Math.sqrt(i * 1.0001);
  window.frames_drawn++;
  document.getElementById('c').getContext('2d').fillRect(window.frames_drawn %% 200, 0, 1, 1);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
</script></body>"""


def _frames(work: int) -> tuple[int, bool, int, list[str]]:
    with browser.Session(browser.ContextOptions()) as session:
        session.virtual_time = True
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode((LOOP % work).encode()).decode(), 30)
        before = tab.evaluate("() => [window.frames_drawn, Date.now()]", None, 10)
        tab.fast_forward(2000, 30)
        after = tab.evaluate("() => [window.frames_drawn, Date.now()]", None, 10)
        notes = list(session._recorder.events.notes)
        return after[0] - before[0], tab.pace.coarse, after[1] - before[1], notes


def test_a_page_with_slow_frames_jumps_and_says_so():
    drawn, coarse, passed, notes = _frames(120_000_000)
    assert coarse and passed == 2000
    assert drawn < 40, drawn  # every frame would be 2000 / 16 = 125
    assert any("its clock now jumps 250 ms at a time" in n for n in notes), notes


def test_a_light_page_has_every_frame_drawn():
    drawn, coarse, passed, notes = _frames(0)
    assert not coarse and passed == 2000
    assert drawn >= 100, drawn
    assert not any("clock now jumps" in n for n in notes)
