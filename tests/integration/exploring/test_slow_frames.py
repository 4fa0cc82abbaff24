"""A page whose frames are far slower than real time gets a coarse clock (issue 36):
in real Chromium under Playwright's clock, a canvas loop that works some 50-300 ms on each
frame (100 million square roots; its own clock is ours, so the work is counted, not
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


def _frames(work: int) -> tuple[list[tuple[int, int]], bool, list[str]]:
    """(frames drawn, page ms passed) of two advances of 2 s each; whether the clock
    turned coarse; the notes."""
    with browser.Session(browser.ContextOptions()) as session:
        session.virtual_time = True
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode((LOOP % work).encode()).decode(), 30)
        seen = [tab.evaluate("() => [window.frames_drawn, Date.now()]", None, 10)]
        for _ in range(2):
            tab.fast_forward(2000, 60)
            seen.append(tab.evaluate("() => [window.frames_drawn, Date.now()]", None, 10))
        notes = list(session._recorder.events.notes)
        return [(b[0] - a[0], b[1] - a[1]) for a, b in zip(seen, seen[1:])], tab.pace.coarse, notes


def test_a_page_with_slow_frames_jumps_and_says_so():
    (first, second), coarse, notes = _frames(100_000_000)
    assert coarse, (first, second)
    # the first advance ran frame by frame until a slice proved slow (or its real-time
    # budget cut it, on a loaded machine); the second jumps: 8 slices, one frame each
    assert first[1] >= 250
    assert second == (8, 2000), second  # every frame would be 2000 / 16 = 125
    assert any("its clock now jumps 250 ms at a time" in n for n in notes), notes


def test_a_light_page_has_every_frame_drawn():
    (first, second), coarse, notes = _frames(0)
    assert not coarse and first[1] == second[1] == 2000
    assert first[0] >= 100 and second[0] >= 100, (first, second)
    assert not any("clock now jumps" in n for n in notes)
