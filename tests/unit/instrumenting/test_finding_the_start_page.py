"""The start page: index.html at the root, else one obvious page, else a reason."""

from __future__ import annotations

from iwcbench.pipeline.stages.instrumenting import surveying


def test_index_at_the_root_wins(app):
    root = app({"index.html": "", "about.html": "", "docs/index.html": ""})
    assert surveying.find_entry(root) == ("index.html", None)


def test_a_single_page_at_the_root_is_the_start(app):
    assert surveying.find_entry(app({"game.html": "", "style.css": ""})) == ("game.html", None)


def test_a_single_page_in_a_folder_is_the_start(app):
    assert surveying.find_entry(app({"public/app.html": "", "server.js": ""})) == ("public/app.html", None)


def test_the_shallowest_index_among_nested_pages(app):
    root = app({"public/index.html": "", "public/about.html": "", "node_modules/x/index.html": ""})
    assert surveying.find_entry(root) == ("public/index.html", None)


def test_pages_in_node_modules_do_not_count(app):
    entry, why = surveying.find_entry(app({"node_modules/lib/demo.html": "", "app.js": ""}))
    assert entry is None
    assert why == "no HTML page in the app (no index.html)"


def test_several_pages_and_no_index_is_a_reason_naming_them(app):
    entry, why = surveying.find_entry(app({"a.html": "", "b.html": ""}))
    assert entry is None
    assert "a.html" in why and "b.html" in why and "no index.html" in why
