"""Starts Chromium for the browser kit: the one process between Playwright and the browser.

Playwright runs it as the browser executable (through a two-line shell script that
kits/browser.py writes into the session's folder):

    python -I -S launcher.py --chromium PATH [--netns SOCKET:PORT] [--status FILE] -- ARGS...

1. Repeated feature switches (``--disable-features``, ``--enable-features`` and the
   blink ones) are merged into one each: Chromium honours only the last occurrence,
   so ours would otherwise silently cancel Playwright's, or the other way round.
2. With ``--netns``, the process moves into a network namespace of its own (a user
   namespace too when that is what the machine allows) where only loopback exists,
   and forks a relay that listens on ``127.0.0.1:PORT`` inside it and carries every
   connection to the network guard's Unix socket ``SOCKET`` outside (the file system
   is shared). The browser then reaches nothing but the guard, whatever it tries —
   UDP included. When no namespace can be made, the browser starts without one (the
   guard still stands between it and everything else).
3. With ``--home DIR``, HOME and the XDG folders point into DIR (the session's
   folder): what Chromium writes outside its profile (crash-report settings, GTK's
   recent files, dconf) stays in the session and goes with it.
4. What happened ("netns" or "none: reason") is written to ``--status``, then the
   process becomes Chromium (exec), so the watchdog finds it by its command line.

Stdlib only, and run with -I -S: it must not import the package or anything installed.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import socket
import struct
import sys
import threading

MERGED = ("--disable-features=", "--enable-features=", "--disable-blink-features=",
          "--enable-blink-features=")
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
PR_SET_PDEATHSIG = 1
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def merge_features(args: list[str]) -> list[str]:
    """One occurrence of each feature switch, holding every name given (in order)."""
    values: dict[str, list[str]] = {}
    out: list[str] = []
    for arg in args:
        prefix = next((p for p in MERGED if arg.startswith(p)), None)
        if prefix is None:
            out.append(arg)
            continue
        if prefix not in values:
            values[prefix] = []
            out.append(prefix)  # placeholder, filled below
        values[prefix].extend(n for n in arg[len(prefix):].split(",") if n and n not in values[prefix])
    return [a + ",".join(values[a]) if a in values else a for a in out]


def _unshare() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) == 0:
        return "netns"
    first = os.strerror(ctypes.get_errno())
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        raise OSError(f"unshare: {first}; with a user namespace: {os.strerror(ctypes.get_errno())}")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    return "netns (in a user namespace)"


def loopback_up() -> None:
    """Raise loopback in a new network namespace (confined.py's children use it too)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _carry(a: socket.socket, b: socket.socket) -> None:
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (a, b):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _relay(listener: socket.socket, target: str) -> None:
    while True:
        conn, _ = listener.accept()
        try:
            outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            outside.connect(target)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=_carry, args=(conn, outside), daemon=True).start()
        threading.Thread(target=_carry, args=(outside, conn), daemon=True).start()


def _start_relay(target: str, port: int) -> None:
    """Fork the relay; return once it listens (in the parent, about to become Chromium)."""
    listener = socket.create_server(("127.0.0.1", port), backlog=128)
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        os.close(ready_r)
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the browser
        # Not Playwright's pipes: the browser's end of them must close when it exits.
        keep = {listener.fileno(), ready_w}
        for fd in [int(f) for f in os.listdir("/proc/self/fd")]:
            if fd > 2 and fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        os.write(ready_w, b"1")
        os.close(ready_w)
        try:
            _relay(listener, target)
        finally:
            os._exit(0)
    listener.close()
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)


def _write_preferences(args: list[str], text: str) -> None:
    """Seed the profile's preferences (JSON) before the browser first reads them."""
    folder = next((a.split("=", 1)[1] for a in args if a.startswith("--user-data-dir=")), None)
    if folder is None:
        return
    target = os.path.join(folder, "Default", "Preferences")
    if not os.path.exists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as handle:
            handle.write(text)


def home_environment(home: str) -> dict[str, str]:
    """HOME and the XDG base folders inside ``home`` (made here)."""
    found = {"HOME": home}
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"),
                      ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state")):
        found[name] = os.path.join(home, sub)
    for folder in found.values():
        os.makedirs(folder, mode=0o700, exist_ok=True)
    return found


def main(argv: list[str]) -> None:
    split = argv.index("--")
    own, rest = argv[:split], argv[split + 1:]
    options = dict(zip(own[::2], own[1::2]))
    chromium = options["--chromium"]
    status = "none: not asked for"
    if "--netns" in options:
        target, _, port = options["--netns"].rpartition(":")
        try:
            status = _unshare()
            loopback_up()
            _start_relay(target, int(port))
        except OSError as error:
            if status.startswith("netns"):  # inside a namespace with no way out: give up
                raise
            status = f"none: {error}"
    if "--preferences" in options:
        _write_preferences(rest, options["--preferences"])
    if "--home" in options:
        os.environ.update(home_environment(options["--home"]))
    if "--status" in options:
        with open(options["--status"], "w") as handle:
            handle.write(status)
    os.execv(chromium, [chromium, *merge_features(rest)])


if __name__ == "__main__":
    main(sys.argv[1:])
