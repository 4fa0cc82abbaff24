"""The event listeners the explorer reads through the DevTools protocol
(kits/inspecting.listeners), in real Chromium: an element's own and its form's (a form
many fields share read once, given to each), none for a selector that matches nothing,
and the page's (window, document, body)."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.kits import browser, inspecting

pytestmark = pytest.mark.browser

PAGE = ("data:text/html,<form id=f onsubmit='return false'><input id=a oninput='1'><input id=b></form>"
        "<button id=c onclick='1'>c</button><p id=d>d</p><form id=g><input id=e></form>"
        "<script>addEventListener('keydown', () => 0); document.getElementById('g')"
        ".addEventListener('reset', () => 0)</script>")


def test_each_element_gets_its_own_listeners_and_its_forms():
    with browser.Session(browser.ContextOptions()) as session:
        tab = session.new_tab()
        tab.goto(PAGE, 10)
        per, page = inspecting.listeners(tab, ["#a", "#b", "#c", "#d", "#missing", "#e"])
    types = [sorted(listener.type for listener in heard) for heard in per]
    assert types == [["input", "submit"], ["submit"], ["click"], [], [], ["reset"]]
    assert "keydown" in {listener.type for listener in page}
