"""A long-lived browser's watchdog forgets the processes that ended: their ids come back
to other processes (pid_max is 32,768 here), and reaping must never kill one of those."""

from __future__ import annotations

import subprocess

from iwcbench.pipeline.kits import watchdog


def test_ended_processes_are_forgotten_and_living_ones_kept():
    ended = subprocess.Popen(["sleep", "30"])
    living = subprocess.Popen(["sleep", "30"])
    try:
        dog = watchdog.Watchdog(None)
        dog.seen = {ended.pid, living.pid}
        ended.kill()
        ended.wait()
        dog.forget_ended()
        assert dog.seen == {living.pid}
    finally:
        living.kill()
        living.wait()
