"""One run of `iwc run --workers 2` over the hostile-app corpus, shared by every test
here (it takes a few minutes): the canary service is up for the whole run, the run's
temporary folder is its own, and what is left afterwards is looked at once."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
import sys

import pytest

from fakes import canary as canaries
from fakes import hostile

RUN_TIMEOUT_S = 1200
APP_TIMEOUT_S = 45


@dataclasses.dataclass(frozen=True)
class HostileRun:
    corpus: hostile.Corpus
    canary: canaries.Canary
    out: pathlib.Path
    tmp: pathlib.Path
    results: dict
    apps: dict  # task_id -> the app's entry in results.json
    hits: tuple[str, ...]  # what reached the canary service
    tmp_left: tuple[str, ...]  # entries of the run's temporary folder after the run
    written_elsewhere: tuple[str, ...]  # files and folders the run left in its HOME and working folder
    processes_left: tuple[str, ...]  # processes still running with the run's TMPDIR
    log: str
    app_timeout_s: float = APP_TIMEOUT_S

    def trace(self, task_id: str) -> dict:
        return json.loads((self.out / self.apps[task_id]["evidence"] / "trace.json").read_text())

    def blocked(self, task_id: str) -> list[str]:
        return [b for step in self.trace(task_id)["steps"] for b in step["blocked_requests"]]

    def notes(self, task_id: str) -> list[str]:
        return [n for step in self.trace(task_id)["steps"] for n in step["notes"]]


def _processes_with(tmp: pathlib.Path) -> list[str]:
    needle = f"TMPDIR={tmp}".encode()  # a browser's TMPDIR is its session's folder inside
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                values = handle.read().split(b"\0")
            if not any(v == needle or v.startswith(needle + b"/") for v in values):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry}: {command[:200]}")
        except OSError:
            continue
    return found


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory) -> HostileRun:
    base = tmp_path_factory.mktemp("hostile")
    tmp, home, cwd = hostile.isolated_folders(base)
    out = base / "out"
    iwc = pathlib.Path(sys.executable).with_name("iwc")
    with canaries.running() as canary:
        corpus = hostile.prepare(base, canary)
        env = hostile.isolated_env(tmp, home)
        done = subprocess.run(
            [str(iwc), "run", "--tasks", str(corpus.tasks), "--apps", str(corpus.apps), "--out", str(out),
             "--workers", "2", "--max-steps", "6", "--app-timeout", str(APP_TIMEOUT_S), "--step-timeout", "3",
             "--mirror-dir", str(corpus.mirror), "--offline-mirror",
             # WebCoderBench's rule suite runs too: its phone load, Firefox and state renders
             # are more places an app's code runs (the canary must hear nothing from them
             # either); Lighthouse, in the same Chromium behind the same guard, is left out
             # to keep the run's time
             "--no-lighthouse"],
            env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        hits = tuple(canary.recorded())
    log = done.stdout[-4000:] + "\n" + done.stderr[-8000:]
    assert done.returncode == 0, log
    results = json.loads((out / "results.json").read_text())
    return HostileRun(
        corpus=corpus, canary=canary, out=out, tmp=tmp, results=results,
        apps={a["task_id"]: a for a in results["apps"]}, hits=hits,
        tmp_left=tuple(sorted(p.name for p in tmp.iterdir())), written_elsewhere=hostile.written_in(home, cwd),
        processes_left=tuple(_processes_with(tmp)), log=log)
