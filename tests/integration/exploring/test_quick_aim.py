"""A click or hover on a ready element presses at once (kits/page/aim.mjs through
Tab._aim), in real Chromium, and lands where Playwright's waiting click lands; wherever
Playwright's checks might not pass at once (disabled, covered, moving, off screen, a
link or a submit button, a shadow root, two matches), the aim declines and the action
goes Playwright's way, which waits and fails as it always did. And the wait after an
action (settle.mjs) ends at the first quiet frame, waits for what the action scheduled,
and stops at its cap on a page that never rests."""

from __future__ import annotations

import time

import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages.exploring import paging

from fakes.apps import pages_served

pytestmark = pytest.mark.browser

RECORD = """<script>
window.seen = [];
for (const t of ['click', 'mouseover', 'dblclick', 'contextmenu'])
  document.addEventListener(t, (e) => seen.push([t, e.target.id, e.clientX, e.clientY, e.detail]), true);
</script>"""
PAGES = {
    "ready": "<button id=b style='position:absolute;left:100px;top:50px;width:81px;height:31px;"
             "border:3px solid'>b</button>",
    "disabled": "<button id=b disabled>b</button>",
    "covered": "<button id=b>b</button><div style='position:fixed;inset:0;background:#0003'></div>",
    "moving": "<style>@keyframes m { to { transform: translateX(300px) } }</style>"
              "<button id=b style='animation: m 2s linear infinite'>b</button>",
    "below": "<div style='height:3000px'></div><button id=b>b</button>",
    "link": "<a id=b href='#x'>b</a>",
    "submit": "<form><button id=b>b</button></form>",
    "label": "<input id=c type=checkbox disabled><label id=b for=c>b</label>",
    "twice": "<button class=b>b</button><button class=b>b</button>",
    "ticking": "<button id=b>b</button><p id=t></p><script>setInterval(() => { t.textContent = Date.now() }, 30)"
               "</script>",
    "later": "<button id=b onclick=\"setTimeout(() => { out.textContent = 'late' }, 25)\">b</button><p id=out></p>",
    "restless": "<button id=b>b</button><p id=t></p><script>(function f() { t.textContent = performance.now(); "
                "requestAnimationFrame(f) })()</script>",
}


@pytest.fixture(scope="module")
def served():
    pages = {name: f"<!doctype html><title>{name}</title>{RECORD}{body}" for name, body in PAGES.items()}
    pages["shadow"] = ("<!doctype html><div id=h></div><script>h.attachShadow({mode: 'open'}).innerHTML = "
                       "'<button id=b>b</button>'</script>")
    with pages_served(pages, "iwc-aim-") as url, browser.Browser() as chromium:
        yield url, chromium


def _open(served, page: str, session: browser.Session) -> browser.Tab:
    url, _ = served
    tab = session.new_tab()
    tab.goto(f"{url}{page}/index.html", 15)
    time.sleep(0.1)
    return tab


def _session(served) -> browser.Session:
    url, chromium = served
    return browser.Session(browser.ContextOptions(), allow=(url,), browser=chromium)


def _pressed(served, page: str, quick: bool, **click) -> list:
    with _session(served) as session:
        tab = _open(served, page, session)
        tab.quick_aim = quick
        tab.click("#b", 2.0, **click)
        return tab.evaluate("seen")


@pytest.mark.parametrize("click", [{}, {"at": (0.2, 0.75)}, {"count": 2}, {"button": "right"}])
def test_a_ready_element_is_pressed_where_playwright_presses_it(served, click):
    quick, waiting = _pressed(served, "ready", True, **click), _pressed(served, "ready", False, **click)
    assert quick == waiting and quick, (quick, waiting)


def test_the_aim_answers_at_once_on_an_idle_page_and_after_a_frame_on_a_busy_one(served):
    with _session(served) as session:
        assert _open(served, "ready", session)._aim("#b", None, True) == (140.5, 65.5)  # (a border box 81×31)
    with _session(served) as session:
        tab = _open(served, "ticking", session)
        assert tab._aim("#b", None, True) is not None
        tab.click("#b", 2.0)
        assert ["click", "b"] in [e[:2] for e in tab.evaluate("seen")]


@pytest.mark.parametrize("page", ["disabled", "covered", "moving", "below", "link", "submit", "label", "twice",
                                  "shadow"])
def test_where_playwright_might_wait_the_aim_declines(served, page):
    with _session(served) as session:
        assert _open(served, page, session)._aim("#b" if page != "twice" else ".b", None, True) is None


def test_a_declined_click_still_goes_playwrights_way(served):
    with _session(served) as session:  # scrolled to and clicked, as always
        tab = _open(served, "below", session)
        tab.click("#b", 2.0)
        assert ["click", "b"] in [e[:2] for e in tab.evaluate("seen")]
    with _session(served) as session, pytest.raises(browser.BrowserError):  # waited for, and refused
        _open(served, "disabled", session).click("#b", 0.5)


def test_a_hover_moves_the_pointer_onto_it(served):
    with _session(served) as session:
        tab = _open(served, "ready", session)
        tab.hover("#b", 2.0)
        assert ["mouseover", "b"] in [e[:2] for e in tab.evaluate("seen")]


def _settled_after_click(served, page: str) -> tuple[dict, str]:
    with _session(served) as session:
        tab = _open(served, page, session)
        tab.click("#b", 2.0)
        began = time.monotonic()
        answer = tab.isolated(paging.SETTLE, {"capMs": paging.SETTLE_MS, "nonce": session.nonce}, 5.0)
        answer["wall_ms"] = (time.monotonic() - began) * 1000
        return answer, tab.evaluate("document.body.textContent")


def test_the_wait_after_an_action_ends_at_the_first_quiet_frame(served):
    answer, _ = _settled_after_click(served, "ready")
    assert answer["quiet"] is True and answer["ms"] < paging.SETTLE_MS, answer


def test_the_wait_lasts_until_what_the_action_scheduled_has_run(served):
    answer, text = _settled_after_click(served, "later")
    assert answer["quiet"] is True and "late" in text, (answer, text)


@pytest.mark.parametrize("page", ["ticking", "restless"])
def test_a_page_that_never_rests_is_waited_on_until_the_cap(served, page):
    answer, _ = _settled_after_click(served, page)
    assert answer["quiet"] is False and answer["ms"] >= paging.SETTLE_MS, answer
