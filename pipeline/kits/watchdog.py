"""A watchdog for hung browsers: kills Chromium processes by id when a call overruns.

Playwright's own timeouts cover actions and navigations, but not ``page.evaluate`` or
``page.content``: a page stuck in ``while(true){}`` blocks those forever. The only
thing that unblocks such a call is the death of the renderer it waits on, so the
watchdog escalates from a thread of its own, without ever touching Playwright:

1. at the deadline: SIGKILL every renderer of this browser (the pending call then
   fails with "Target crashed"; the browser and its context survive);
2. ``grace_s`` later, if the call is still blocked: SIGKILL the whole browser tree;
3. ``grace_s`` after that: SIGKILL the Playwright driver, which closes the connection.

Processes are found through /proc (Linux), starting from the browser process, which
carries a unique ``--iwc-tag=`` switch. This module must not decide anything about
exploring; it only kills what it is told is its own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from typing import Iterator

Stage = str  # "renderer" | "browser" | "driver"


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
        except OSError:
            continue
        # The command name may hold spaces and parentheses: split after the last ")".
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) >= 2 and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().decode(errors="replace").rsplit(")", 1)[-1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def find_tagged(tag: str) -> int | None:
    """The process whose command line carries ``--iwc-tag=<tag>`` (the browser)."""
    needle = f"--iwc-tag={tag}"
    for entry in os.listdir("/proc"):
        if entry.isdigit() and needle in _cmdline(int(entry)).split():
            return int(entry)
    return None


def tree(root: int) -> list[int]:
    """``root`` and all its living descendants, parents first."""
    children = _children_map()
    found, todo = [root], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill(pids: list[int]) -> int:
    killed = 0
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().decode(errors="replace").rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class Watchdog:
    """Guards blocking browser calls of one browser process (found by its tag)."""

    def __init__(self, browser_pid: int | None, grace_s: float = 4.0) -> None:
        self.browser_pid = browser_pid
        self.driver_pid = _parent(browser_pid) if browser_pid else None
        self.grace_s = grace_s
        self.fired: Stage | None = None  # how far the last guard had to escalate
        self.killed = False  # whether any guard ever had to kill the browser (it is not to be reused)
        self.seen: set[int] = set()  # every browser process ever seen, for reaping

    def renderers(self) -> list[int]:
        if not self.browser_pid:
            return []
        pids = tree(self.browser_pid)
        self.seen.update(pids)
        return [p for p in pids if "--type=renderer" in _cmdline(p)]

    def kill_renderers(self) -> int:
        return _kill(self.renderers())

    def kill_browser(self) -> int:
        if not self.browser_pid:
            return 0
        pids = tree(self.browser_pid)
        self.seen.update(pids)
        # Children first: a killed zygote would orphan renderers out of our sight.
        return _kill(list(reversed(pids)))

    def reap(self) -> list[int]:
        """Kill whatever is left of this browser (after a close); returns the pids
        that had to be killed. Only pids still running Chromium are touched."""
        leftovers = set(self.seen)
        if self.browser_pid and alive(self.browser_pid):
            leftovers.update(tree(self.browser_pid))
        mine = [p for p in leftovers if alive(p) and "chrom" in _cmdline(p)]
        _kill(mine)
        return mine

    def forget_ended(self) -> None:
        """Forget the processes that have ended: their ids may be given to processes
        not ours while a long-lived browser goes on, and ``reap`` must not kill those."""
        self.seen = {p for p in self.seen if alive(p)}

    @contextlib.contextmanager
    def guard(self, seconds: float) -> Iterator[None]:
        """Run the body with a deadline; on expiry escalate as the module says.
        ``self.fired`` tells afterwards whether (and how far) it had to act."""
        self.fired = None
        done = threading.Event()

        def watch() -> None:
            if done.wait(seconds):
                return
            self.fired = "renderer"
            self.kill_renderers()
            if done.wait(self.grace_s):
                return
            self.fired = "browser"
            self.killed = True
            self.kill_browser()
            if done.wait(self.grace_s) or not self.driver_pid:
                return
            self.fired = "driver"
            _kill([self.driver_pid])

        thread = threading.Thread(target=watch, name="iwc-watchdog", daemon=True)
        thread.start()
        started = time.monotonic()
        try:
            yield
        finally:
            done.set()
            # Never leave the watcher behind to kill a later call's renderer.
            thread.join(timeout=max(1.0, self.grace_s))
            self.elapsed_s = time.monotonic() - started
