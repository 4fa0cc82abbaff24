"""What a child and its descendants hold in memory, read from /proc: the tree under a
process is found through its grandchildren, and a process gone holds nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from iwcbench.pipeline.kits import processes


def test_a_process_tree_counts_its_descendants():
    child = subprocess.Popen([sys.executable, "-c", "import subprocess; subprocess.run(['sleep', '30'])"],
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while len(found := processes.tree(child.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # until its own child (sleep) has started
        assert found[0] == child.pid and len(found) == 2
        assert processes.resident_bytes(found) > processes.resident_bytes(found[:1]) > 0
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert processes.tree(child.pid) == [child.pid] and processes.resident_bytes([child.pid]) == 0
