"""A pod's instrument and explore containers stop at once when told to (SIGTERM: the pod
evicted, preempted or drained), with EXIT_STOPPED and nothing recorded, so that the
Job's podFailurePolicy ignores the disruption and a new pod starts the app afresh. As PID
1 of a container the process would otherwise ignore SIGTERM until the kubelet's SIGKILL.
(On a real kubelet: tests/cluster/test_eviction.py.)"""

from __future__ import annotations

import signal
import subprocess
import sys

from iwcbench.pipeline.cli import app

WAITING = """
import time
from iwcbench.pipeline.cli import app
app._stop_on_sigterm("explore")
print("waiting", flush=True)
time.sleep(60)
print("not stopped", flush=True)
"""


def test_sigterm_ends_the_container_at_once_with_its_own_code():
    proc = subprocess.Popen([sys.executable, "-c", WAITING], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "waiting"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == app.EXIT_STOPPED == 143
    assert "not stopped" not in out
    assert "iwc app explore: stopped by SIGTERM" in err and "nothing recorded" in err
    # neither of the codes the podFailurePolicy counts or fails the Job on
    assert app.EXIT_STOPPED not in (app.options.EXIT_CONFIG, app.options.EXIT_INFRA)
