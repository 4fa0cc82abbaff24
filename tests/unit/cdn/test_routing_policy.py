"""The hermetic policy with stand-ins for Playwright's Route and WebSocketRoute."""

from __future__ import annotations

import dataclasses
import re

import pytest

from fakes import npm_registry
from iwcbench.pipeline.kits.mirror import cdn, routing

APP = "http://127.0.0.1:41234/"


@dataclasses.dataclass
class FakeRequest:
    url: str
    method: str = "GET"


class FakeRoute:
    def __init__(self, url: str, method: str = "GET") -> None:
        self.request = FakeRequest(url, method)
        self.outcome: tuple | None = None

    def continue_(self) -> None:
        self.outcome = ("continue",)

    def fulfill(self, status: int = 200, headers=None, body=b"") -> None:  # noqa: ANN001
        self.outcome = ("fulfill", status, dict(headers or {}), body)

    def abort(self, error_code: str = "failed") -> None:
        self.outcome = ("abort", error_code)


class FakeSocket:
    def __init__(self, url: str) -> None:
        self.url = url
        self.outcome: tuple | None = None

    def connect_to_server(self) -> None:
        self.outcome = ("connect",)

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.outcome = ("close", code)


class FakeContext:
    def __init__(self) -> None:
        self.routes: list = []

    def route(self, pattern, handler) -> None:  # noqa: ANN001
        self.routes.append(("http", pattern, handler))

    def route_web_socket(self, pattern, handler) -> None:  # noqa: ANN001
        self.routes.append(("ws", pattern, handler))


@pytest.fixture()
def hermetic(tmp_path):
    with npm_registry.prefilled_mirror(tmp_path / "cdn") as (mirror, _registry):
        yield routing.Hermetic(APP, mirror)


def _route(hermetic, url, method="GET"):
    route = FakeRoute(url, method)
    hermetic.handle(route)
    return route.outcome


@pytest.mark.parametrize("url", [APP, APP + "js/app.js?x=1", "data:text/plain,hi", "blob:http://127.0.0.1:41234/abc"])
def test_the_app_itself_and_inline_data_go_through(hermetic, url):
    assert _route(hermetic, url) == ("continue",)
    assert hermetic.drain() == ((), ())


def test_cdn_requests_are_answered_from_the_mirror_with_cors(hermetic):
    outcome = _route(hermetic, "https://cdn.jsdelivr.net/npm/chart.js@4/dist/chart.umd.js")
    kind, status, headers, body = outcome
    assert (kind, status, body) == ("fulfill", 200, b"window.Chart = function Chart() {};")
    assert headers["access-control-allow-origin"] == "*"
    assert headers["content-type"].startswith("text/javascript")
    assert hermetic.drain() == ((), ("https://cdn.jsdelivr.net/npm/chart.js@4/dist/chart.umd.js"
                                     " -> chart.js@4.4.0/dist/chart.umd.js",))


@pytest.mark.parametrize(("url", "reason"), [
    ("https://example.com/x.js", "external host"),
    ("http://127.0.0.1:9999/api", "external host"),  # loopback, but not the app's port
    ("https://fonts.googleapis.com/css2?family=Inter", "external host"),
    ("https://cdn.jsdelivr.net/npm/chart.js@4/dist/nope.js", "not in the CDN mirror: chart.js@4.4.0 has no file"),
    ("https://cdn.jsdelivr.net/gh/user/repo/x.js", "not in the CDN mirror: not a CDN URL"),
])
def test_everything_else_is_blocked_and_recorded_with_a_reason(hermetic, url, reason):
    assert _route(hermetic, url) == ("abort", "blockedbyclient")
    blocked, mirrored = hermetic.drain()
    assert len(blocked) == 1 and blocked[0].startswith(url + " (" + reason)
    assert hermetic.blocked[-1].url == url


def test_drain_hands_over_only_what_is_new(hermetic):
    _route(hermetic, "https://example.com/a.js")
    assert len(hermetic.drain()[0]) == 1
    assert hermetic.drain() == ((), ())
    _route(hermetic, "https://example.com/b.js")
    _route(hermetic, "https://example.com/b.js")
    assert hermetic.drain()[0] == ("https://example.com/b.js (external host)",)  # repeats listed once
    assert len(hermetic.blocked) == 3  # the full history is kept


def test_a_request_storm_stays_a_bounded_record(hermetic):
    for i in range(routing.PER_DRAIN + 30):
        _route(hermetic, f"https://tracker.example/{i}")
    blocked, _ = hermetic.drain()
    assert len(blocked) == routing.PER_DRAIN + 1 and blocked[-1] == "… and 30 more"


def test_cors_preflights_to_the_cdn_are_answered(hermetic):
    kind, status, headers, _ = _route(hermetic, "https://esm.sh/chart.js@4", method="OPTIONS")
    assert (kind, status, headers["access-control-allow-origin"]) == ("fulfill", 204, "*")


def test_a_failing_mirror_blocks_the_request_instead_of_raising(tmp_path):
    class Broken(cdn.Mirror):
        def lookup(self, url):  # noqa: ANN001, ANN202
            raise OSError("disk on fire")

    hermetic = routing.Hermetic(APP, Broken(tmp_path, fetch=False))
    assert _route(hermetic, "https://unpkg.com/x@1/y.js") == ("abort", "blockedbyclient")
    assert "routing failed: OSError: disk on fire" in hermetic.drain()[0][0]


def test_websockets_only_reach_the_app(hermetic):
    own, foreign = FakeSocket("ws://127.0.0.1:41234/live"), FakeSocket("wss://echo.example/socket")
    hermetic.handle_web_socket(own)
    hermetic.handle_web_socket(foreign)
    assert own.outcome == ("connect",)
    assert foreign.outcome == ("close", 1008)
    assert hermetic.drain()[0] == ("wss://echo.example/socket (WebSocket to an external host)",)


def test_install_routes_http_and_websockets(hermetic):
    context = FakeContext()
    hermetic.install(context)
    assert context.routes[0][:2] == ("http", "**/*")
    assert context.routes[1][0] == "ws" and context.routes[1][1].pattern == re.compile(".*").pattern


def test_contexts_must_block_service_workers():
    assert routing.context_options() == {"service_workers": "block"}
