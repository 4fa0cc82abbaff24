"""One "visible" (kits/page/visible.mjs): in real Chromium, the explorer's observer and
the quality stage's probe see the same buttons of a page built from the cases where
their two definitions used to disagree, and the blank-page check agrees with them.

Before (observe.js and probe.js at 303f030, on this page): observe.js pruned its walk
at any element it found invisible, so it missed the ``visibility: visible`` button in a
hidden panel, the buttons in a zero-height and in a ``display: contents`` wrapper; probe.js
judged each element by its own style, so it counted the buttons in an ``opacity: 0``
panel, in a collapsed (``max-height: 0; overflow: hidden``) accordion and in a
``content-visibility: hidden`` box. Only the observer counted the 1×1 "visually hidden"
button; both counted a closed ``<details>``'s button and an off-canvas drawer's, which
nobody sees.
"""

from __future__ import annotations

import base64

import pytest

from iwcbench.pipeline.kits import browser, inspecting
from iwcbench.pipeline.stages.exploring import observing
from iwcbench.pipeline.stages.quality import tooling

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body style="margin:0">
<button>plain</button>
<div style="visibility:hidden"><button style="visibility:visible">shown in a hidden panel</button>
  <button>hidden with its panel</button></div>
<div style="height:0"><button style="position:absolute; top:300px">outside a zero-height wrapper</button></div>
<div style="display:contents"><button>in a display-contents wrapper</button></div>
<div style="opacity:0"><button>in a transparent panel</button></div>
<div style="max-height:0; overflow:hidden"><button>in a collapsed accordion</button></div>
<details><summary>more</summary><button>in a closed details</button></details>
<nav style="position:fixed; top:0; left:0; width:200px; transform:translateX(-100%)"><button>in an off-canvas drawer</button></nav>
<button style="position:absolute; width:1px; height:1px; margin:-1px; overflow:hidden; clip:rect(0,0,0,0)">visually hidden</button>
<table><tr style="visibility:collapse"><td><button>in a collapsed row</button></td></tr></table>
<div style="content-visibility:hidden"><button>in a skipped box</button></div>
<span aria-hidden="true"><button>in an aria-hidden span</button></span>
</body></html>"""
SEEN = {"plain", "shown in a hidden panel", "outside a zero-height wrapper", "in a display-contents wrapper",
        "more", "in an aria-hidden span"}


def _page(html: str) -> str:
    return "data:text/html;base64," + base64.b64encode(html.encode()).decode()


def test_the_explorer_and_the_probe_see_the_same_buttons():
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto(_page(PAGE), 20)
        seen = observing.observe(tab, 0, 20.0)
        facts = tab.evaluate(tooling.probe_expression(), None, 20.0)
    explorer = {c.name for c in seen.candidates if c.tag in ("button", "summary")}
    probe = {t["text"] for t in facts["texts"] if t["role"] == "button" or t["tag"] == "summary"}
    assert explorer == SEEN
    assert probe == SEEN


def test_a_page_whose_only_content_nobody_sees_is_blank():
    hidden = ('<!doctype html><body><div style="opacity:0"><canvas width=200 height=200></canvas></div>'
              '<div style="max-height:0; overflow:hidden"><img width=100 height=100 src="data:image/gif;base64,'
              'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="></div></body>')
    shown = hidden.replace('style="opacity:0"', "")
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto(_page(hidden), 20)
        assert inspecting.shows_nothing(tab) == "its body has no visible text, image, canvas, control or painted box"
        tab.goto(_page(shown), 20)
        assert inspecting.shows_nothing(tab) is None


def test_the_probe_gives_up_within_its_budget_on_a_huge_page():
    """50,000 cells: with a budget the probe answers OVER_BUDGET instead of outlasting
    the watchdog (which would kill the renderer and charge the page a hang); without
    one, or on a small page, it gives its facts."""
    huge = "<!doctype html><body><table>" + "<tr>" + "<td>1</td>" * 25 + "</tr>" * 1 + "</table><script>" \
        "const t=document.querySelector('table');for(let r=0;r<2000;r++){const row=t.insertRow();" \
        "for(let c=0;c<25;c++)row.insertCell().textContent=String(r*c%1000);}</script></body>"
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto(_page(huge), 20)
        assert inspecting.probe(tab, 30.0, budget_ms=1) is inspecting.OVER_BUDGET
        tab.goto(_page(PAGE), 20)
        facts = inspecting.probe(tab, 30.0, budget_ms=2500)
    assert facts is not inspecting.OVER_BUDGET and facts["texts"]
