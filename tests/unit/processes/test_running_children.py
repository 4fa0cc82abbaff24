"""Child processes finish or are killed with everything they started."""

from __future__ import annotations

import pathlib
import sys
import time

import pytest

from iwcbench.pipeline.kits import processes


def _dies(pid: int) -> bool:
    """SIGKILL lands asynchronously: give the process a moment to go."""
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_stdin_goes_in_and_stdout_comes_back():
    done = processes.run(
        [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())"],
        stdin=b"hello", timeout_s=30,
    )
    assert done.ok
    assert done.stdout == b"HELLO"
    assert not done.timed_out and not done.truncated


def test_a_failing_child_reports_its_exit_and_stderr():
    done = processes.run([sys.executable, "-c", "import sys; sys.exit('broken input')"], timeout_s=30)
    assert not done.ok
    assert done.returncode == 1
    assert done.stderr_tail() == "broken input"


def test_a_child_past_its_deadline_is_killed_with_its_children():
    done = processes.run(["sh", "-c", "sleep 60 & echo $!; wait"], timeout_s=0.5)
    grandchild = int(done.stdout.split()[0])
    assert done.timed_out
    assert done.returncode is None
    assert _dies(grandchild)


def test_children_left_behind_after_a_normal_exit_are_killed():
    done = processes.run(["sh", "-c", "sleep 60 & echo $!"], timeout_s=30)
    assert done.ok
    assert _dies(int(done.stdout.split()[0]))


def test_output_past_the_cap_is_dropped_and_flagged():
    done = processes.run(
        [sys.executable, "-c", "import sys; sys.stdout.write('x' * 100000)"], timeout_s=30, max_output_bytes=1000,
    )
    assert done.ok
    assert done.stdout == b"x" * 1000
    assert done.truncated


def test_a_program_that_does_not_exist_is_a_missing_tool():
    with pytest.raises(processes.ToolMissing):
        processes.run(["/nonexistent/node"], timeout_s=5)
