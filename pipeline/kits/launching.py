"""How the browser kit starts Chromium so that a page reaches nothing but its own server.

Below the page, whatever it tries:

* every connection goes through the network guard (kits/egress.py):
  ``--proxy-server`` with ``--proxy-bypass-list=<-loopback>`` (without it Chromium
  connects to loopback directly);
* WebRTC may not send UDP that does not go through the proxy (there is none), so STUN
  is never sent and TURN over TCP meets the guard;
* no name is ever resolved by the browser (``--host-resolver-rules``); the guard only
  connects to the app's server;
* the profile starts with "preload pages" off: no speculation-rules prefetch or
  prerender, no preconnects (a preference: no feature switch turns them off here);
* where the machine allows it, the browser runs in a network namespace of its own with
  only loopback, relayed to the guard (kits/launcher.py);
* downloads are refused: the profile asks for "block all downloads", the contexts deny
  them over DevTools (Playwright's ``accept_downloads=False``, puppeteer's
  ``downloadBehavior``), and were one to start anyway its folder is the session's;
* HOME and the XDG folders are the session's (``home``): nothing the browser writes
  lands in the user's home.

Each session has a folder of its own (``session_folder``): the browser's profile, the
driver's and Chromium's temporary files and the launcher live there, and the session
removes it however the browser ended. This module does not import playwright; it
only builds what ``launch`` needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shlex
import shutil
import sys
import tempfile
from typing import Any, Iterator

from iwcbench.pipeline.kits import launcher

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
)
GUARD_ARGS = (
    "--proxy-bypass-list=<-loopback>",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # the guard itself
)
PREFERENCES: dict[str, Any] = {  # Chromium's Preferences file (JSON)
    "net": {"network_prediction_options": 2},  # "preload pages": never
    "download_restrictions": 3,  # block all downloads
    "download": {"prompt_for_download": False, "directory_upgrade": True},
}
LAUNCHER = pathlib.Path(__file__).resolve().with_name("launcher.py")
# Chromium keeps a Unix socket in TMPDIR (…/org.chromium.Chromium.XXXXXX/SingletonSocket)
# and so does the guard: socket paths are limited to 107 bytes.
MAX_BASE = 45


def chromium_path() -> str:
    """The system Chromium (apt). Playwright's own browser downloads are not used."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no chromium on PATH: run hack/setup (apt-get install chromium)")


def session_folder() -> pathlib.Path:
    base = tempfile.gettempdir()
    if len(base) > MAX_BASE and os.access("/tmp", os.W_OK):
        base = "/tmp"
    return pathlib.Path(tempfile.mkdtemp(prefix="iwc-b-", dir=base))


def home(folder: pathlib.Path) -> pathlib.Path:
    """The HOME of the browsers a session starts: inside its folder, removed with it."""
    return folder / "home"


def home_environment(folder: pathlib.Path) -> dict[str, str]:
    """HOME and the XDG base folders for a process that starts browsers (the quality
    tools' Node server, whose Firefox writes caches and crash reports there)."""
    return launcher.home_environment(str(home(folder)))


def write_launcher(folder: pathlib.Path, guard_socket: str | None, guard_port: int) -> pathlib.Path:
    """The executable Playwright starts: a shell script running kits/launcher.py
    (with a network namespace when ``guard_socket`` is given)."""
    preferences = {**PREFERENCES, "download": {**PREFERENCES["download"],
                                               "default_directory": str(home(folder) / "Downloads")}}
    command = [sys.executable, "-I", "-S", str(LAUNCHER), "--chromium", chromium_path(),
               "--status", str(folder / "isolation"), "--preferences", json.dumps(preferences),
               "--home", str(home(folder))]
    if guard_socket:
        command += ["--netns", f"{guard_socket}:{guard_port}"]
    script = folder / "chromium"
    script.write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(c) for c in command) + ' -- "$@"\n')
    script.chmod(0o700)
    return script


def isolation(folder: pathlib.Path) -> str:
    """What the launcher managed, in words for the trace."""
    try:
        status = (folder / "isolation").read_text().strip()
    except OSError:
        status = "none: the launcher did not say"
    guard = "every connection went through the network guard"
    if status.startswith("netns"):
        return f"the browser ran in a network namespace of its own (loopback only); {guard}"
    return f"no network namespace ({status.removeprefix('none: ')}); {guard}"


def args(tag: str | None, proxy: str | None) -> list[str]:
    found = list(CHROMIUM_ARGS)
    if proxy:
        found += [f"--proxy-server={proxy}", *GUARD_ARGS]
    return found + ([f"--iwc-tag={tag}"] if tag else [])


@contextlib.contextmanager
def temporary_files_in(folder: pathlib.Path) -> Iterator[None]:
    """Start the driver (and so the browser) with TMPDIR in the session's folder: the
    profile, Playwright's artifacts and Chromium's own temporary files land there."""
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
