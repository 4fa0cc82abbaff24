"""Lanes across the processes of one machine: a measurement of time that must have the
machine to itself (Lighthouse's simulated metrics scale with the main-thread time it
observes) holds a lane ``alone``; the work of other workers that would compete with it
(exploring steps, the quality stage's browsers) runs ``beside`` it, and waits while
the lane is held. File locks (flock) in one folder per machine: they go with their
process, whatever way it ends.

Writers first: ``alone`` takes an intent lock, then the quiet lock; ``beside`` passes
through the intent lock before it takes the quiet lock shared, so a waiting measurement
is not starved by a stream of short steps. Both wait a bounded time, then go on (the
measurement is then made under contention, and says so). This module decides nothing
about what is measured."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
import tempfile
import threading
import time
from typing import Iterator

MEASURE = "measure"  # the lane of Lighthouse's timing
POLL_S = 0.02
# One folder for the whole machine, whatever TMPDIR or HOME a process has (a run gives
# its browsers folders of their own): shared memory, where Linux has it.
_FOLDER = pathlib.Path(os.environ.get("IWC_LANES") or (
    "/dev/shm/iwc-lanes" if os.path.isdir("/dev/shm") else pathlib.Path(tempfile.gettempdir()) / "iwc-lanes"))
_local = threading.local()  # one open file per lock file and thread (flock is per open file)


def _fd(name: str) -> int | None:
    """The lock file's descriptor; None where no lock file can be made (a read-only
    root and no shared memory): then lanes hold nothing, and the work goes on."""
    fds = getattr(_local, "fds", None)
    if fds is None:
        fds = _local.fds = {}
    path = _FOLDER / f"{name}.lock"
    if path not in fds:
        try:
            _FOLDER.mkdir(mode=0o777, parents=True, exist_ok=True)
            fds[path] = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            fds[path] = None
    return fds[path]


def _take(fd: int | None, mode: int, until: float) -> bool:
    if fd is None:
        return False
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= until:
                return False
            time.sleep(POLL_S)


def _free(fd: int | None) -> None:
    if fd is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def alone(lane: str, wait_s: float) -> Iterator[bool]:
    """Hold ``lane`` alone: no ``beside`` section of it runs meanwhile. True when it was
    had within ``wait_s``; False: it goes on anyway, beside whatever runs."""
    intent, quiet = _fd(f"{lane}.intent"), _fd(f"{lane}.quiet")
    until = time.monotonic() + wait_s
    held_intent = _take(intent, fcntl.LOCK_EX, until)
    held_quiet = held_intent and _take(quiet, fcntl.LOCK_EX, until)
    try:
        yield held_quiet
    finally:
        if held_quiet:
            _free(quiet)
        if held_intent:
            _free(intent)


@contextlib.contextmanager
def beside(lane: str, wait_s: float) -> Iterator[float]:
    """Run outside ``lane``'s measurements: wait (at most ``wait_s``) while one holds it.
    Yields the seconds waited."""
    intent, quiet = _fd(f"{lane}.intent"), _fd(f"{lane}.quiet")
    began = time.monotonic()
    until = began + wait_s
    if _take(intent, fcntl.LOCK_SH, until):
        _free(intent)
    held = _take(quiet, fcntl.LOCK_SH, until)
    try:
        yield time.monotonic() - began
    finally:
        if held:
            _free(quiet)
