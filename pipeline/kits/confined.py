"""The confined-process kit: one child (npm, a framework's build, an app's own server)
under resource limits.

``run(argv, limits, log=...)`` starts the child in its own process group with its
output in a log file, and kills the whole group when it passes a limit; ``start``
does the same for a long-running child (``Running``: a server, stopped by its caller,
with no wall time):

    wall time      deadline, checked every POLL_S
    memory         resident memory of the whole group (from /proc), checked every POLL_S;
                   an address-space rlimit cannot be used: V8 reserves ~10 GiB of
                   virtual memory for each WebAssembly instance (Next.js, esbuild-wasm)
    disk           bytes under the given folders, checked every DISK_POLL_S
    CPU time       RLIMIT_CPU (seconds, per process; the kernel kills a process past it)
    file size      RLIMIT_FSIZE (one file's size)
    network        with ``isolate_network``: a new network namespace holding only a
                   loopback interface (``unshare --user --net``), when this machine
                   allows unprivileged user namespaces; ``network_isolation()`` says
                   whether it does

It also lowers the child's scheduling priority, so a build never starves the browser
of a running exploration, and makes this process non-dumpable, so a child cannot read
our environment (secrets) from /proc. It reports what happened (``Confined``) and decides nothing
about what the child is for. This module and the other kits are the only places that
import ``subprocess``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable, Mapping, Sequence

POLL_S = 0.25  # seconds between two looks at the child (exit, time, memory)
DISK_POLL_S = 2.0  # seconds between two measurements of the watched folders
NICENESS = 10  # added to the child's nice value
TAIL_BYTES = 16000  # end of a step's output kept for reading its reason
_PAGE = os.sysconf("SC_PAGE_SIZE")
_PR_SET_DUMPABLE = 4
_PR_SET_PDEATHSIG = 1


@dataclasses.dataclass(frozen=True)
class Limits:
    wall_s: float  # seconds of wall time
    memory_bytes: int | None = None  # resident memory of the whole process group
    disk_bytes: int | None = None  # bytes under ``disk_paths``
    cpu_s: int | None = None  # CPU seconds per process
    file_bytes: int | None = None  # size of any one file written
    isolate_network: bool = False


@dataclasses.dataclass(frozen=True)
class Confined:
    argv: tuple[str, ...]
    returncode: int | None  # None when we killed it
    killed_for: str | None  # "time", "memory", "disk" or None
    duration_s: float
    peak_memory_bytes: int
    log_tail: str
    network_isolated: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.killed_for is None


class CannotStart(RuntimeError):
    """The program is not there or cannot be executed: a set-up problem of ours."""


def _hide_own_environment() -> None:
    """Make this process non-dumpable: its /proc/<pid>/environ (our secrets: the store's
    keys, the LLM key) then belongs to root, and a child running as our user — an app's
    build — cannot read it. Children are dumpable again after their exec."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: nothing to hide this way


@functools.cache
def network_isolation() -> bool:
    """Whether children can get a network namespace of their own on this machine."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        done = subprocess.run([unshare, "--user", "--map-root-user", "--net", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


# Loopback is down in a new namespace; builds that talk to their own workers over
# 127.0.0.1 need it up. The browser's launcher raises it for its namespace with an
# ioctl; the child's runs the same function (not `ip`, which images and machines may
# lack: the runner image has none), so both paths get the same sandbox.
LOOPBACK_UP = f"import runpy; runpy.run_path({str(pathlib.Path(__file__).with_name('launcher.py'))!r})['loopback_up']()"


def _isolated(argv: Sequence[str]) -> list[str]:
    # if loopback cannot be raised the child runs with it down (and reaches nothing)
    script = '"$1" -I -S -c "$2" 2>/dev/null || true; shift 2; exec "$@"'
    return [shutil.which("unshare") or "unshare", "--user", "--map-root-user", "--net",
            "/bin/sh", "-c", script, "iwc-confined", sys.executable, LOOPBACK_UP, *argv]


def _rlimits(limits: Limits) -> Callable[[], None]:
    def apply() -> None:
        try:  # the child dies with us: a killed run leaves no build behind
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
        os.nice(NICENESS)
        if limits.cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        if limits.file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    return apply


def group_memory(pgid: int) -> int:
    """Resident bytes of every process in group ``pgid`` (0 when none is left)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # Fields after the command name (which may hold spaces and parentheses).
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 21 and int(fields[2]) == pgid:
            total += int(fields[21]) * _PAGE
    return total


def folder_bytes(paths: Iterable[pathlib.Path]) -> int:
    """Bytes of the regular files under ``paths`` (symlinks not followed)."""
    total = 0
    stack = [str(p) for p in paths]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(log: pathlib.Path, start: int) -> str:
    """The end of what was written to ``log`` from offset ``start`` on."""
    try:
        with open(log, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(start, size - TAIL_BYTES))
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    return ("…" if size - start > TAIL_BYTES else "") + text.strip()


def _watch(child: subprocess.Popen, limits: Limits, started: float,
           disk_paths: Sequence[pathlib.Path]) -> tuple[str | None, int]:
    """Wait for ``child`` to end or pass a limit: (the limit it passed or None, its
    group's peak memory in bytes)."""
    peak = 0
    next_disk = started + DISK_POLL_S
    while child.poll() is None:
        now = time.monotonic()
        if now - started > limits.wall_s:
            return "time", peak
        if limits.memory_bytes is not None:
            peak = max(peak, group_memory(child.pid))
            if peak > limits.memory_bytes:
                return "memory", peak
        if limits.disk_bytes is not None and disk_paths and now >= next_disk:
            next_disk = now + DISK_POLL_S
            if folder_bytes(disk_paths) > limits.disk_bytes:
                return "disk", peak
        time.sleep(POLL_S)
    return None, peak


def _spawn(argv: Sequence[str], limits: Limits, log: pathlib.Path, cwd: str | os.PathLike,
           env: Mapping[str, str]) -> tuple[subprocess.Popen, int, bool]:
    """Start ``argv`` confined: (the child, where its output starts in ``log``, whether
    it has a network namespace of its own)."""
    _hide_own_environment()
    isolated = limits.isolate_network and network_isolation()
    command = _isolated(argv) if isolated else list(argv)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        out.write(f"$ {' '.join(str(a) for a in argv)}\n".encode())
        out.flush()
        start = out.tell()
        try:
            child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                     cwd=cwd, env=dict(env), start_new_session=True,
                                     preexec_fn=_rlimits(limits))
        except OSError as exc:
            raise CannotStart(f"cannot start {argv[0]}: {exc}") from exc
    return child, start, isolated


def run(
    argv: Sequence[str],
    limits: Limits,
    *,
    log: pathlib.Path,
    cwd: str | os.PathLike,
    env: Mapping[str, str],
    disk_paths: Sequence[pathlib.Path] = (),
) -> Confined:
    """Run ``argv`` to its end or to its first limit; its output is appended to ``log``."""
    started = time.monotonic()
    child, start, isolated = _spawn(argv, limits, log, cwd, env)
    try:
        killed_for, peak = _watch(child, limits, started, disk_paths)
    finally:
        # Also after a normal exit: whatever it left running (a build's workers) goes too.
        _kill_group(child.pid)
        child.wait()
    returncode = None if killed_for else child.returncode
    if returncode is not None and returncode < 0 and -returncode == signal.SIGXCPU:
        killed_for = "cpu"
    return Confined(
        argv=tuple(str(a) for a in argv),
        returncode=None if killed_for else returncode,
        killed_for=killed_for,
        duration_s=round(time.monotonic() - started, 3),
        peak_memory_bytes=peak,
        log_tail=_tail(log, start),
        network_isolated=isolated,
    )


class Running:
    """A confined child that runs until it is stopped (an app's own server): the limits
    of ``run`` but the wall time, which is the caller's (``stop``). A thread watches the
    group's memory and kills the group past the limit (``killed_for`` then says
    "memory"); a child past its CPU time is killed by the kernel ("cpu")."""

    def __init__(self, argv: Sequence[str], limits: Limits, *, log: pathlib.Path, cwd: str | os.PathLike,
                 env: Mapping[str, str]) -> None:
        self.argv = tuple(str(a) for a in argv)
        self.log = log
        self.limits = limits
        self.killed_for: str | None = None
        self._child, self._start, self.network_isolated = _spawn(argv, limits, log, cwd, env)
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name=f"confined:{self._child.pid}", daemon=True)
        self._watcher.start()

    @property
    def pid(self) -> int:
        return self._child.pid

    @property
    def alive(self) -> bool:
        return self._child.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._child.poll()

    def _watch(self) -> None:
        while not self._stopping.wait(POLL_S) and self._child.poll() is None:
            if self.limits.memory_bytes is not None and group_memory(self._child.pid) > self.limits.memory_bytes:
                self.killed_for = "memory"
                _kill_group(self._child.pid)
                return
        code = self._child.poll()
        if code is not None and code < 0 and -code == signal.SIGXCPU:
            self.killed_for = "cpu"

    def tail(self) -> str:
        """The end of what the child wrote."""
        return _tail(self.log, self._start)

    def stop(self) -> None:
        """Kill the child's whole group and reap it (idempotent)."""
        self._stopping.set()
        _kill_group(self._child.pid)
        try:
            self._child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._watcher.join(timeout=2)


def start(argv: Sequence[str], limits: Limits, *, log: pathlib.Path, cwd: str | os.PathLike,
          env: Mapping[str, str]) -> Running:
    """Start ``argv`` as a long-running confined child; see ``Running``."""
    return Running(argv, limits, log=log, cwd=cwd, env=env)
