"""The explorer container waits for the app server sidecar on the pod's loopback (the
pod has no startup probe: a kubelet probes the pod's IP from the node)."""

from __future__ import annotations

import socket

from iwcbench.pipeline.cli import app


def test_the_explorer_waits_for_a_listening_server_and_gives_up_on_a_silent_one():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert app._server_listens(f"http://127.0.0.1:{port}/", 5)
    # the port is closed now: nothing listens there
    assert not app._server_listens(f"http://127.0.0.1:{port}/", 0.5)
