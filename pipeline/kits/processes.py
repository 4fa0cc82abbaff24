"""The processes kit: child processes (node, npm) run to completion under a deadline.

Each child starts in its own process group, so a timeout kills everything it spawned,
not just the first process. Output is captured up to a cap (the rest is read and
dropped, so a chatty child never blocks on a full pipe). Long-lived children answer
line by line (``Service``); what a child and its descendants hold in memory is read from
/proc (``tree``, ``resident_bytes``). This module and the other
kits are the only places that import ``subprocess``; it decides nothing about what
the children do.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import pathlib
import queue
import shutil
import signal
import subprocess
import threading
import time
from typing import IO, Mapping, Sequence

from iwcbench.pipeline.kits import watchdog

MAX_OUTPUT_BYTES = 16_000_000  # per stream, default cap on captured output
NODE_TOOLS_ENV = "IWC_NODE_TOOLS"  # overrides the node_modules folder holding our npm tools
NODE_ENV = "IWC_NODE"  # overrides the node binary
# The project-local Node tools (package.json + lock; node_modules installed by hack/setup).
NODE_DIR = pathlib.Path(__file__).resolve().parent / "node"
_DRAIN_S = 5.0  # seconds to wait for the pipes to close after the child is gone


class ToolMissing(RuntimeError):
    """Node or our npm tools are not installed: a set-up problem, not the app's."""


@dataclasses.dataclass(frozen=True)
class Completed:
    """What a finished (or killed) child left behind."""

    argv: tuple[str, ...]
    returncode: int | None  # None when it was killed for running past the deadline
    stdout: bytes
    stderr: bytes
    timed_out: bool
    truncated: bool  # some output went past the cap and was dropped
    duration_s: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def stderr_tail(self, chars: int = 500) -> str:
        """The end of stderr as text, for a reason line."""
        text = self.stderr.decode("utf-8", "replace").strip()
        return text if len(text) <= chars else "…" + text[-chars:]


class _Capped:
    """Reads a pipe to its end in a thread, keeping at most ``cap`` bytes."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        self.chunks: list[bytes] = []
        self.kept = 0
        self.cap = cap
        self.truncated = False
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while chunk := stream.read(65536):
                room = self.cap - self.kept
                if room > 0:
                    self.chunks.append(chunk[:room])
                    self.kept += min(len(chunk), room)
                if len(chunk) > max(room, 0):
                    self.truncated = True
        except (OSError, ValueError):
            pass  # the pipe went away with the killed child
        finally:
            stream.close()

    def value(self) -> bytes:
        return b"".join(self.chunks)


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the child exited without reading everything; its exit status says why
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _exited_unreaped(pid: int, deadline: float) -> bool:
    """Wait until ``pid`` exits or the deadline passes, without reaping it."""
    pause = 0.001
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the whole group is already gone


def run(
    argv: Sequence[str],
    *,
    timeout_s: float,
    stdin: bytes | None = None,
    cwd: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    max_output_bytes: int = MAX_OUTPUT_BYTES,
) -> Completed:
    """Run ``argv`` to completion or until ``timeout_s``; then kill its process group.

    Raises ``ToolMissing`` when the program cannot be started at all; a non-zero exit
    or a timeout is a normal ``Completed`` for the caller to judge."""
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,  # its own process group, killed as one
        )
    except OSError as exc:
        raise ToolMissing(f"cannot start {argv[0]}: {exc}") from exc
    assert child.stdout is not None and child.stderr is not None  # both opened as pipes above
    out = _Capped(child.stdout, max_output_bytes)
    err = _Capped(child.stderr, max_output_bytes)
    feeder = None
    if stdin is not None:
        feeder = threading.Thread(target=_feed, args=(child.stdin, stdin), daemon=True)
        feeder.start()
    try:
        timed_out = not _exited_unreaped(child.pid, started + timeout_s)
    finally:
        # Also after a normal exit: grandchildren it left behind would hold the pipes.
        # The child is still unreaped here, so its pid (= the group id) cannot have
        # been reused by an unrelated process.
        _kill_group(child.pid)
        child.wait()
    for reader in (out, err):
        reader.thread.join(_DRAIN_S)
    if feeder is not None:
        feeder.join(_DRAIN_S)
    return Completed(
        argv=tuple(str(a) for a in argv),
        returncode=None if timed_out else child.returncode,
        stdout=out.value(),
        stderr=err.value(),
        timed_out=timed_out,
        truncated=out.truncated or err.truncated,
        duration_s=round(time.monotonic() - started, 3),
    )


class ServiceFailed(RuntimeError):
    """A service did not answer in time or went away; it has been stopped (the next
    request starts a fresh one)."""


class Service:
    """A long-lived child that answers one line on stdout per line on stdin, for tools
    whose start-up costs more than their work (a browser, a linter's plugins). It
    starts on the first request, in its own process group; a request that overruns
    its deadline, or a child that dies, stops the whole group and raises
    ``ServiceFailed``. The child must exit when its stdin closes, so it never outlives
    this process, however this process ends."""

    STDERR_LINES = 40  # kept for the reason when the child dies

    def __init__(self, argv: Sequence[str], *, cwd: str | os.PathLike | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self._child: subprocess.Popen | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=self.STDERR_LINES)
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._child is not None and self._child.poll() is None

    @property
    def pid(self) -> int | None:
        """The running child's process id (None when none runs)."""
        child = self._child
        return child.pid if child is not None and child.poll() is None else None

    def _start(self) -> subprocess.Popen:
        try:
            child = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=self.cwd, env=self.env, start_new_session=True)
        except OSError as exc:
            raise ToolMissing(f"cannot start {self.argv[0]}: {exc}") from exc
        lines: queue.Queue[bytes | None] = queue.Queue()

        def pump_out() -> None:
            for line in child.stdout:  # type: ignore[union-attr]  # opened with PIPE
                lines.put(line)
            lines.put(None)  # the child closed its stdout: it is gone

        def pump_err() -> None:
            for line in child.stderr:  # type: ignore[union-attr]  # opened with PIPE
                self._stderr.append(line.decode("utf-8", "replace").rstrip())

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()
        self._child, self._lines = child, lines
        return child

    def request(self, line: bytes, timeout_s: float) -> bytes:
        """Send one line (no newline inside), return the child's one-line answer."""
        with self._lock:
            child = self._child if self.running else self._start()
            try:
                child.stdin.write(line.rstrip(b"\n") + b"\n")  # type: ignore[union-attr]  # opened with PIPE
                child.stdin.flush()  # type: ignore[union-attr]  # opened with PIPE
            except (BrokenPipeError, OSError):
                self._stop()
                raise ServiceFailed(f"{self.argv[-1]} went away: {self.stderr_tail()}") from None
            try:
                answer = self._lines.get(timeout=timeout_s)
            except queue.Empty:
                self._stop()
                raise ServiceFailed(f"{self.argv[-1]} did not answer within {timeout_s:g} s; stopped") from None
            if answer is None:
                self._stop()
                raise ServiceFailed(f"{self.argv[-1]} exited: {self.stderr_tail()}")
            return answer

    def stderr_tail(self, lines: int = 5) -> str:
        return " | ".join(list(self._stderr)[-lines:]) or "no message"

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        _kill_group(child.pid)
        try:
            child.wait(timeout=_DRAIN_S)
        except subprocess.TimeoutExpired:
            pass

    def close(self, grace_s: float = 5.0) -> None:
        """Stop the child: close its stdin and give it ``grace_s`` to finish (it closes
        what it started, browsers included), then stop its whole group."""
        with self._lock:
            child = self._child
            if child is not None and child.poll() is None:
                try:
                    child.stdin.close()  # type: ignore[union-attr]  # opened with PIPE
                    child.wait(timeout=grace_s)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._stop()


def kill_mentioning(text: str) -> int:
    """Kill every process whose command line contains ``text`` — a folder only we
    created, such as the profile folder of browsers a killed parent left behind
    (browsers start in process groups of their own). Returns how many were killed."""
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                line = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue  # gone, or not ours to read
        if text in line:
            try:
                os.kill(int(entry), signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def tree(pid: int) -> list[int]:
    """``pid`` and every process descended from it that is still running (browsers a
    child started in process groups of their own included: they stay its descendants)."""
    return watchdog.tree(pid)


def resident_bytes(pids: Sequence[int]) -> int:
    """The resident memory (VmRSS) of these processes, summed as ps and top count it:
    pages shared between them count once per process. A process gone counts 0."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            continue
    return total


def node_binary() -> str:
    """The ``node`` to run: $IWC_NODE, else the one on PATH."""
    override = os.environ.get(NODE_ENV)
    if override:
        if not os.access(override, os.X_OK):
            raise ToolMissing(f"{NODE_ENV}={override} is not an executable")
        return override
    found = shutil.which("node")
    if not found:
        raise ToolMissing("no node on PATH: run hack/setup (Node 20 is needed for Istanbul)")
    return found


def node_tools_dir() -> pathlib.Path:
    """The node_modules folder holding our npm tools: $IWC_NODE_TOOLS, else
    pipeline/kits/node/node_modules."""
    override = os.environ.get(NODE_TOOLS_ENV)
    folder = pathlib.Path(override) if override else NODE_DIR / "node_modules"
    if not (folder / "istanbul-lib-instrument").is_dir():
        raise ToolMissing(f"npm tools missing in {folder}: run hack/setup (npm ci in pipeline/kits/node)")
    return folder


