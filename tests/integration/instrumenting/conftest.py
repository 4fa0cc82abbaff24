"""Fixture apps, a loopback static server for instrumented copies, and Chromium."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import pathlib
import threading

import pytest

from fakes import apps

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import instrumenting

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def tree_digest(root: pathlib.Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under root."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture()
def instrument(tmp_path):
    """``instrument(src, **settings)`` -> (report, dest) with a fresh dest each call."""
    counter = iter(range(1000))

    def run(src: pathlib.Path, **overrides):
        dest = tmp_path / f"site{next(counter)}"
        done = instrumenting.instrument(src, dest, settings.Instrumentation(**overrides))
        return done.report, dest

    return run


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    # Module scripts are refused unless served with a JavaScript MIME type.
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript"}

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def serving(root: pathlib.Path):
    """An HTTP server for ``root`` on 127.0.0.1; yields its base URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture()
def page():
    """A fresh Chromium page (Debian's Chromium through the browser kit's launcher)."""
    import playwright.sync_api as pw

    from iwcbench.pipeline.kits import browser

    with pw.sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            context = chromium.new_context()
            tab = context.new_page()
            tab.set_default_timeout(15_000)
            yield tab
        finally:
            chromium.close()


@pytest.fixture(name="fixture_app")
def fixture_app_fixture():
    """``fixture_app("counter")`` -> the path of a fixture app (never written to)."""
    return lambda name: FIXTURES / name


@pytest.fixture(name="tree_digest")
def tree_digest_fixture():
    return tree_digest


@pytest.fixture(name="serving")
def serving_fixture():
    return serving


@pytest.fixture()
def app(tmp_path):
    """``app({relative path: text or bytes})`` writes an app folder; returns its path."""
    return apps.app_writer(tmp_path)
