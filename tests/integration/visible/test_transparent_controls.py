"""A control made transparent to be drawn by something else is still a control (issue
37, part 2), in real Chromium: TodoMVC's item toggle, an ``opacity: 0`` checkbox laid
over its label's picture of one, is a candidate the explorer checks; a transparent
checkbox under something else, a 1×1 one, or one inside a transparent panel is not;
a checkbox hidden behind its ``<label for>`` is reached through the label, once."""

from __future__ import annotations

import base64

import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import observing

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body style="margin:0; font: 16px sans-serif">
<ul style="list-style:none; padding:0">
  <li style="position:relative; height:50px">
    <input id="toggle" type="checkbox" style="opacity:0; position:absolute; top:0; left:0; width:40px; height:40px; margin:0">
    <label style="display:block; padding:12px 12px 12px 50px">Buy milk</label>
  </li>
</ul>
<div style="position:relative; height:50px">
  <input id="under" type="checkbox" style="opacity:0; position:absolute; top:0; left:0; width:40px; height:40px; margin:0">
  <div style="position:absolute; top:0; left:0; width:60px; height:50px; background:#eee">cover</div>
</div>
<input id="speck" type="checkbox" style="opacity:0; width:1px; height:1px">
<div style="opacity:0"><input id="panel" type="checkbox" style="width:40px; height:40px"></div>
<input id="all" type="checkbox" style="opacity:0; position:absolute; width:1px; height:1px"><label for="all">Mark all</label>
<select id="sort" style="opacity:0; width:120px; height:30px"><option>Newest</option><option>Oldest</option></select>
</body></html>"""


def test_a_transparent_control_on_top_is_a_candidate():
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto("data:text/html;base64," + base64.b64encode(PAGE.encode()).decode(), 20)
        seen = observing.observe(tab, 0, 20.0)
    by = {c.selector: c for c in seen.candidates}
    assert "check" in by["#toggle"].kinds
    assert "select" in by["#sort"].kinds
    assert not {"#under", "#speck", "#panel", "#all"} & set(by)
    mark_all = [c for c in seen.candidates if c.name == "Mark all"]
    assert len(mark_all) == 1 and mark_all[0].tag == "label" and "check" in mark_all[0].kinds
