"""A hung or crashed page, and a fresh page lost in turn: counted, noted, and the
exploration stops with a reason instead of failing on our side."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits import browser, clock
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.stages.exploring import paging, stepping, timing


class _LostSession:
    """A session whose every new tab is lost as it opens (its renderer crashed)."""

    def __init__(self) -> None:
        self.opened = 0

    def new_tab(self):
        self.opened += 1
        raise browser.PageLost("the page crashed during open a page")


def _page(session) -> paging.Page:
    where = paging.Where(url="http://127.0.0.1:1/index.html", config=settings.Exploration(load_timeout_s=20.0),
                         deadline=clock.Deadline.after(60))
    left: list[None] = []
    return paging.Page(where, session, routing.OriginGuard("http://127.0.0.1:1"), lambda: left.append(None),
                       timing.Parts())


def test_a_fresh_page_lost_too_counts_again_and_stops_the_exploration():
    session = _LostSession()
    page = _page(session)
    notes: list[str] = []
    with pytest.raises(stepping.Stop, match=f"{paging.MAX_PAGE_FAILURES} times"):
        page.lost(browser.PageHung("the page stopped responding"), notes, " (after click #go)")
    assert page.failures == paging.MAX_PAGE_FAILURES
    assert notes[0] == "the page stopped responding (after click #go)"
    assert "the page crashed during open a page (the fresh page)" in notes
    assert session.opened == paging.MAX_PAGE_FAILURES - 1


def test_an_app_is_opened_at_its_folder_as_a_dev_server_serves_it():
    from iwcbench.pipeline.stages import serving
    assert serving.start_url("http://127.0.0.1:5/", "index.html") == "http://127.0.0.1:5/"
    assert serving.start_url("http://127.0.0.1:5", None) == "http://127.0.0.1:5/"
    assert serving.start_url("http://127.0.0.1:5/", "dist/index.html") == "http://127.0.0.1:5/dist/"
    assert serving.start_url("http://127.0.0.1:5/", "game.html") == "http://127.0.0.1:5/game.html"
    # the original build is served at the folder's address too
    files = paging.served_files("http://127.0.0.1:5/", {"index.html": b"<p>", "app.js": b""})
    assert files["http://127.0.0.1:5/"] == b"<p>" and "http://127.0.0.1:5/app.js" in files
