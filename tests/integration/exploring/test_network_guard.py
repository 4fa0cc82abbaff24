"""The browser of a session reaches its app's server and nothing else, with or without
a network namespace (a pod has none): a SharedWorker's fetch, XHR, importScripts and
WebSocket, and WebRTC's STUN (UDP) and TURN (TCP), never reach a loopback service, and
what the guard refused is handed over for the trace."""

from __future__ import annotations

import time

import pytest

from fakes import canary as canaries
from fakes import hostile
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.stages import serving

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    with canaries.running() as canary:
        yield hostile.prepare(tmp_path_factory.mktemp("guard"), canary), canary


@pytest.mark.parametrize("namespace", [True, False], ids=["netns", "guard-only"])
def test_nothing_but_the_app_is_reachable(corpus, namespace):
    files, canary = corpus
    refused: list[str] = []
    texts = []
    for app in ("shared-worker", "webrtc"):
        with serving.serve(files.apps / hostile.MODEL / app) as served:
            options = browser.ContextOptions(network_namespace=namespace)
            with browser.Session(options, allow=(served.url,)) as session:
                tab = session.new_tab()
                assert tab.goto(served.url + "index.html", 15) == 200  # the app itself loads
                time.sleep(2.0)  # workers and ICE gathering run on their own
                texts.append(tab.isolated("() => document.body.innerText", None, 5))
                refused += session.drain_network()
                isolation = session.isolation
    assert canary.recorded() == []
    assert any("/shared-worker/fetch" in r for r in refused) and any("/shared-worker/xhr" in r for r in refused)
    assert any(f"tunnel to {canary.address}" in r for r in refused), refused  # WebSocket, TURN
    assert not any(canary.http_token in t or canary.ws_token in t for t in texts)
    assert ("network namespace of its own" in isolation) == namespace
