"""Time per step and per app of the heuristic explorer (not a test: run it by hand).

    .venv/bin/python tests/integration/exploring/bench.py [APP_DIR ...] [--steps N]

Without APP_DIR it uses this folder's fixture apps. Each app is instrumented by the
instrument stage, served on loopback and explored once; one line per app.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import pathlib
import tempfile
import threading
import time

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import exploring, instrumenting

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("apps", nargs="*", type=pathlib.Path)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    apps = args.apps or sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    with tempfile.TemporaryDirectory() as tmp:
        site = pathlib.Path(tmp)
        given, entries = {}, {}
        for number, app in enumerate(apps):
            name = f"app{number}"
            done = instrumenting.instrument(app, site / name, settings.Instrumentation())
            entries[name] = (app, done.report.entry or "index.html")
            if done.report.mode == "instrumented":
                given[name] = done
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=tmp))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        total_steps, total_s = 0, 0.0
        print(f"{'app':<40} {'steps':>5} {'app s':>7} {'s/step':>7} {'load s':>7} {'stmts %':>8}  stop")
        try:
            for name, (app, entry) in entries.items():
                config = settings.Exploration(max_steps=args.steps)
                started = time.monotonic()
                result = exploring.explore(f"http://127.0.0.1:{server.server_port}/{name}/{entry}", config,
                                           lambda key, data: None, given.get(name))
                elapsed = time.monotonic() - started
                trace = result.trace
                actions = len(trace.steps) - 1
                per_step = sum(s.duration_s for s in trace.steps[1:]) / actions if actions else 0.0
                cov = trace.final_coverage.statements
                print(f"{str(app)[-40:]:<40} {actions:>5} {elapsed:>7.2f} {per_step:>7.3f} "
                      f"{trace.steps[0].duration_s:>7.2f} {'-' if cov is None else f'{cov:.1f}':>8}  {trace.stop_reason}")
                total_steps += actions
                total_s += elapsed
        finally:
            server.shutdown()
        if total_steps:
            print(f"all: {total_steps} steps in {total_s:.1f} s = {total_s / total_steps:.3f} s per step (wall, incl. start)")


if __name__ == "__main__":
    main()
