"""The sandbox's request rule is one rule: the four places that route a page's requests
— the explorer's page routing (routing.Hermetic), the minimal router
(routing.OriginGuard, kits/mirror), the quality stage's Chromium (chromium.mjs) and Firefox
(firefox.mjs) — make the same decision on every URL of one table, and rule.json (what
Node reads) is what rule.py says.

Before the rule was one, firefox.mjs let through any URL that merely began with the
app's origin (``http://127.0.0.1:5173`` let ``http://127.0.0.1:51730/``,
``http://127.0.0.1:5173.evil.example/`` and ``http://127.0.0.1:5173@evil.example/``
past page routing, leaving them to the network guard): the rows marked below.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest

from iwcbench.pipeline.kits import processes
from iwcbench.pipeline.kits.mirror import cdn, routing, rule

APP = "http://127.0.0.1:5173"
NODE_SIDE = "tests/js/sandbox-consumers.mjs"

# (url, WebSocket?, decision)
TABLE = [
    ("http://127.0.0.1:5173/", False, "pass"),
    ("http://127.0.0.1:5173/js/app.js?v=2#top", False, "pass"),
    ("HTTP://127.0.0.1:5173/index.html", False, "pass"),
    ("data:text/css,body{}", False, "pass"),
    ("blob:http://127.0.0.1:5173/5f0c", False, "pass"),
    ("blob:https://elsewhere.example/5f0c", False, "pass"),  # a blob URL reaches no network
    ("http://127.0.0.1:51730/", False, "refuse"),  # firefox.mjs passed it before
    ("http://127.0.0.1:5173.evil.example/", False, "refuse"),  # firefox.mjs passed it before
    ("http://127.0.0.1:5173@evil.example/", False, "refuse"),  # firefox.mjs passed it before
    ("http://user@127.0.0.1:5173/", False, "refuse"),  # user info: not the origin as written
    ("https://127.0.0.1:5173/", False, "refuse"),
    ("http://localhost:5173/", False, "refuse"),
    ("http://127.0.0.1:8000/admin", False, "refuse"),  # another service on loopback
    ("https://evil.example/steal?d=1", False, "refuse"),
    ("file:///etc/passwd", False, "refuse"),
    ("https://cdn.jsdelivr.net/npm/lodash@4/lodash.min.js", False, "mirror"),
    ("https://CDN.JSDELIVR.NET/npm/lodash@4/lodash.min.js", False, "mirror"),
    ("http://unpkg.com/react@18/umd/react.production.min.js", False, "mirror"),
    ("https://esm.sh/preact@10", False, "mirror"),
    ("https://cdn.jsdelivr.net.evil.example/npm/x", False, "refuse"),
    ("ftp://cdn.jsdelivr.net/npm/x", False, "refuse"),
    ("ws://127.0.0.1:5173/live", True, "pass"),
    ("wss://127.0.0.1:5173/live", True, "refuse"),
    ("ws://127.0.0.1:8000/", True, "refuse"),
    ("wss://cdn.jsdelivr.net/", True, "refuse"),
]


@dataclasses.dataclass
class _Request:
    url: str
    method: str = "GET"


class _Route:
    """Playwright's Route and WebSocketRoute, as far as the routers use them."""

    def __init__(self, url: str) -> None:
        self.request = _Request(url)
        self.url = url
        self.action: str | None = None

    def continue_(self) -> None:
        self.action = "pass"

    def connect_to_server(self) -> None:
        self.action = "pass"

    def fulfill(self, status: int = 200, headers=None, body=b"") -> None:  # noqa: ANN001
        self.action = "mirror"

    def abort(self, error_code: str = "failed") -> None:
        self.action = "refuse"

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.action = "refuse"


class _Mirror:
    """A mirror that holds every file asked for."""

    def lookup(self, url: str) -> cdn.Hit:
        return cdn.Hit(body=b"/* mirrored */", content_type="text/javascript", package="p", version="1", path="f.js")


class _Context:
    def __init__(self) -> None:
        self.on_request = self.on_socket = None

    def route(self, _pattern, handler) -> None:  # noqa: ANN001
        self.on_request = handler

    def route_web_socket(self, _pattern, handler) -> None:  # noqa: ANN001
        self.on_socket = handler


def _python_side() -> dict[str, list[str | None]]:
    hermetic, guard = _Context(), _Context()
    routing.Hermetic(APP, _Mirror()).install(hermetic)
    routing.OriginGuard(APP).install(guard)
    out: dict[str, list[str | None]] = {"rule.py": [], "routing.Hermetic": [], "routing.OriginGuard": []}
    for url, websocket, _ in TABLE:
        out["rule.py"].append(rule.decide(url, APP, websocket).action)
        for name, context in (("routing.Hermetic", hermetic), ("routing.OriginGuard", guard)):
            route = _Route(url)
            (context.on_socket if websocket else context.on_request)(route)
            out[name].append(route.action)
    return out


def _node_side() -> dict[str, list[str | None]]:
    rows = [{"url": url, "websocket": websocket} for url, websocket, _ in TABLE]
    done = subprocess.run([processes.node_binary(), NODE_SIDE], input=json.dumps({"appOrigin": APP, "rows": rows}),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return {"rule.mjs": answer["decide"], "chromium.mjs": answer["chromium"], "firefox.mjs": answer["firefox"]}


@pytest.mark.node
def test_every_consumer_makes_the_rules_decision_on_every_url() -> None:
    seen = {**_python_side(), **_node_side()}
    wrong = []
    for n, (url, websocket, decision) in enumerate(TABLE):
        for consumer, actions in seen.items():
            expected = decision
            if consumer == "routing.OriginGuard" and decision == "mirror":
                expected = "refuse"  # the minimal router has no CDN mirror
            if websocket and consumer.endswith(".mjs") and consumer != "rule.mjs":
                expected = None  # puppeteer's interception never sees a WebSocket (the guard does)
            if actions[n] != expected:
                wrong.append(f"{consumer}: {url}{' (WebSocket)' if websocket else ''} -> {actions[n]}, not {expected}")
    assert not wrong, "\n".join(wrong)


ODD = ["", "nonsense", "http:", "http://", "http:///x", "HTTP://127.0.0.1:5173", "http://[::1]:5173/",
       "http://127.0.0.1:5173\n/", "http://127.0.0.1:5173\n", "http://a@b@127.0.0.1:5173/", "https://cdn.jsdelivr.net:/x",
       "https://cdn.jsdelivr.net./x", "javascript:alert(1)", "Blob:http://x/y", "ws:", "wss://CDN.jsdelivr.net:443/",
       "https://user:pw@unpkg.com:8080/x", "data:", "1http://127.0.0.1:5173/"]


@pytest.mark.node
def test_python_and_node_read_odd_urls_alike() -> None:
    """rule.mjs is rule.py's procedure, step for step: the same answer for any string."""
    script = ("import { decide, origin, host } from './pipeline/kits/mirror/rule.mjs';"
              "const [urls, app] = JSON.parse(process.argv[1]);"
              "process.stdout.write(JSON.stringify(urls.map((url) =>"
              " [origin(url), host(url), decide(url, app), decide(url, app, true)])));")
    node = subprocess.run([processes.node_binary(), "--input-type=module", "-e", script, json.dumps([ODD, APP])],
                          capture_output=True, text=True, timeout=60, check=False)
    assert node.returncode == 0, node.stderr
    python = [[rule.origin(url), rule.host(url), rule.decide(url, APP).action, rule.decide(url, APP, True).action]
              for url in ODD]
    assert json.loads(node.stdout) == python


def test_rule_json_is_what_rule_py_says() -> None:
    """Node reads rule.json; hack/gen-sandbox-rule writes it from rule.py (hack/verify
    fails when they differ)."""
    assert rule.JSON_PATH.read_text(encoding="utf-8") == rule.as_json()
    assert set(json.loads(rule.as_json())["cdn_hosts"]) == cdn.HOSTS
