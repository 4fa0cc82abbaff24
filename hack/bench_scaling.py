"""How cost grows (issue 21 item 6), on apps generated here (run through hack/bench-scaling).

Prints, with the machine named, one `iwc run` per series on generated apps:
  1. instrumentation time against script size (one script of 10 KB … 4.9 MB; the
     default instrumentation.max_file_bytes is 5,000,000), one step, no quality stage;
  2. milliseconds per step against DOM size (100 … 20,000 element nodes: rows with a
     button each), heuristic explorer, STEPS steps, no quality stage — the median and the
     90th percentile of the trace's step durations (step 0, the load, left out);
  3. the quality stage's seconds against page size (1 … 300 cards on one page) and page
     count (1, 3 or 9 linked pages);
  4. memory over many small apps: the whole run's resident memory (every process under
     `iwc run`, sampled each second), first and last tenth of the run side by side.
Records nothing by itself: copy the output into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
IWC = pathlib.Path(sys.executable).with_name("iwc")

SCRIPT_SIZES = {"10KB": 10_000, "100KB": 100_000, "1MB": 1_000_000, "4.9MB": 4_900_000}
DOM_SIZES = (100, 1_000, 5_000, 20_000)
HANDLERS = 60  # distinct click handlers of the DOM series' buttons
CARDS = (1, 30, 300)
PAGES = (1, 3, 9)


def _page(body: str, script: str = "") -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>Generated</title></head><body>{body}'
            + (f'<script src="{script}"></script>' if script else "") + "</body></html>")


def script_app(size: int) -> dict[str, str]:
    """A page whose one script is about ``size`` bytes of small functions (a button calls one)."""
    parts, n, total = [], 0, 0
    while total < size:
        line = (f"function f{n}(x) {{ if (x > {n % 97}) {{ return x * {n % 13 + 1} + {n}; }} "
                f"return [x, {n}].map((v) => v + 1).reduce((a, b) => a + b, 0); }}\n")
        parts.append(line)
        total += len(line)
        n += 1
    parts.append("document.getElementById('go').addEventListener('click', () => {"
                 " document.getElementById('out').textContent = String(f0(Date.now() % 100)); });\n")
    return {"index.html": _page('<h1>Functions</h1><button id="go">Go</button><p id="out"></p>', "app.js"),
            "app.js": "".join(parts)}


def dom_app(nodes: int) -> dict[str, str]:
    """A page of about ``nodes`` element nodes: rows of (li, span, button); the buttons
    share HANDLERS distinct functions, more than the steps can run, so the heuristic
    spends its whole budget (it stops early only once all the code ran)."""
    rows = max(1, nodes // 3)
    body = ('<h1>Rows</h1><ul id="rows">' + "".join(
        f'<li><span>Row {i}</span><button data-i="{i}">Toggle {i}</button></li>' for i in range(rows)) + "</ul>")
    handlers = "".join(f"function h{k}(li) {{ li.classList.toggle('on'); li.dataset.k = '{k}:' + {k * 7}; }}\n"
                       for k in range(HANDLERS))
    script = (handlers + f"const handlers = [{', '.join(f'h{k}' for k in range(HANDLERS))}];\n"
              "document.querySelectorAll('#rows button').forEach((b, i) =>"
              f" b.addEventListener('click', () => handlers[i % {HANDLERS}](b.parentElement)));")
    return {"index.html": _page(body + f"<style>.on{{background:#fe0}}</style><script>{script}</script>")}


def quality_app(cards: int, pages: int) -> dict[str, str]:
    """``pages`` linked pages of ``cards`` cards each (heading, text, image-free)."""
    names = ["index.html", *[f"page{i}.html" for i in range(1, pages)]]
    nav = "<nav>" + "".join(f'<a href="{n}">Page {i + 1}</a> ' for i, n in enumerate(names)) + "</nav>"
    card = ('<article class="card"><h2>Card {i}</h2><p>A short line of text about card {i}, '
            'written to be read.</p><button type="button">Open {i}</button></article>')
    body = nav + '<main>' + "".join(card.format(i=i) for i in range(cards)) + "</main>"
    style = "<style>.card{border:1px solid #ccc;padding:8px;margin:8px;border-radius:6px}</style>"
    return {n: _page(body + style) for n in names}


def write_corpus(base: pathlib.Path, apps: dict[str, dict[str, str]]) -> tuple[pathlib.Path, pathlib.Path]:
    """apps: task id → files, all under one model ("gen")."""
    base.mkdir(parents=True, exist_ok=True)
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": t, "prompt": "A generated page for measuring."}) + "\n" for t in apps))
    for task, files in apps.items():
        for rel, text in files.items():
            path = base / "apps" / "gen" / task / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return tasks, base / "apps"


class Sampler:
    """The resident memory of a process and all its descendants, each second."""

    def __init__(self, pid: int) -> None:
        self.pid, self.samples, self._stop = pid, [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree_rss(self) -> int:
        children: dict[int, list[int]] = {}
        rss: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                pages = int(pathlib.Path(f"/proc/{entry}/statm").read_text().split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
            rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE")
        total, todo = 0, [self.pid]
        while todo:
            pid = todo.pop()
            total += rss.get(pid, 0)
            todo.extend(children.get(pid, []))
        return total

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.samples.append(self._tree_rss())

    def stop(self) -> list[int]:
        self._stop.set()
        self._thread.join()
        return self.samples


def run(base: pathlib.Path, apps: dict[str, dict[str, str]], *options: str, sample: bool = False) -> tuple[dict, float, list[int]]:
    tasks, folder = write_corpus(base, apps)
    out = base / "out"
    started = time.monotonic()
    child = subprocess.Popen([str(IWC), "run", "--tasks", str(tasks), "--apps", str(folder), "--out", str(out),
                              *options], stdout=subprocess.DEVNULL, stderr=open(base / "run.log", "wb"))
    sampler = Sampler(child.pid) if sample else None
    code = child.wait()
    wall = time.monotonic() - started
    samples = sampler.stop() if sampler else []
    if code != 0:
        sys.exit(f"iwc run failed ({code}): see {base / 'run.log'}")
    results = json.loads((out / "results.json").read_text())
    return {a["task_id"]: a for a in results["apps"]}, wall, samples


def _steps(base: pathlib.Path, app: dict) -> list[float]:
    trace = json.loads((base / "out" / app["evidence"] / "trace.json").read_text())
    return [s["duration_s"] for s in trace["steps"][1:]]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per app in the DOM series (default 20)")
    parser.add_argument("--many", type=int, default=100, help="apps in the memory series (default 100)")
    parser.add_argument("--workers", type=int, default=1, help="workers of every run (default 1)")
    parser.add_argument("--only", choices=("script", "dom", "quality", "memory"), action="append")
    args = parser.parse_args()
    only = set(args.only or ("script", "dom", "quality", "memory"))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {platform.node()} · {os.cpu_count()} cores · {cpu} · load average {os.getloadavg()[0]:.2f} · "
          f"workers {args.workers}")
    workers = ("--workers", str(args.workers))
    with tempfile.TemporaryDirectory(prefix="iwc-scaling-") as tmp:
        root = pathlib.Path(tmp)
        if "script" in only:
            base = root / "script"
            apps, wall, _ = run(base, {f"s{k}": script_app(v) for k, v in SCRIPT_SIZES.items()},
                                "--max-steps", "1", "--no-quality", *workers)
            print(f"\n1. instrumentation against script size (run wall {wall:.0f} s)\n")
            print("| script | bytes | instrument s | mode | statements |\n|---|---:|---:|---|---:|")
            for k, v in SCRIPT_SIZES.items():
                a = apps[f"s{k}"]
                total = ((a["scores"].get("coverage_statements") or {}).get("raw") or {}).get("total")
                mode = a["instrumentation"]["mode"]
                if mode != "instrumented":
                    mode += f" ({a['instrumentation']['reason'][:90]})"
                print(f"| {k} | {v:,} | {a['timings'].get('instrument', float('nan')):.2f} | "
                      f"{mode} | {total if total is not None else '–'} |")
        if "dom" in only:
            base = root / "dom"
            apps, wall, _ = run(base, {f"d{n}": dom_app(n) for n in DOM_SIZES},
                                "--max-steps", str(args.steps), "--no-quality", *workers)
            print(f"\n2. ms per step against DOM size ({args.steps} steps, run wall {wall:.0f} s)\n")
            print("| element nodes | steps | median ms | p90 ms | max ms | explore s |\n|---:|---:|---:|---:|---:|---:|")
            for n in DOM_SIZES:
                a = apps[f"d{n}"]
                steps = _steps(base, a)
                print(f"| {n:,} | {len(steps)} | {1000 * statistics.median(steps):.0f} | {1000 * _pct(steps, 0.9):.0f} | "
                      f"{1000 * max(steps):.0f} | {a['timings'].get('explore', float('nan')):.1f} |" if steps else
                      f"| {n:,} | 0 | – | – | – | {a['outcome']}: {a['reason'][:80]} |")
        if "quality" in only:
            base = root / "quality"
            grid = {f"c{c}p{p}": (c, p) for c in CARDS for p in PAGES}
            apps, wall, _ = run(base, {k: quality_app(c, p) for k, (c, p) in grid.items()},
                                "--max-steps", "5", *workers)
            print(f"\n3. quality-stage seconds against page size and page count (5 steps, run wall {wall:.0f} s)\n")
            print("| cards per page | pages | quality s | states |\n|---:|---:|---:|---:|")
            for k, (c, p) in grid.items():
                a = apps[k]
                print(f"| {c} | {p} | {a['timings'].get('quality', float('nan')):.1f} | {a['exploration']['states']} |")
        if "memory" in only:
            base = root / "memory"
            apps, wall, samples = run(base, {f"m{i:04d}": dom_app(60 + 30 * (i % 5)) for i in range(args.many)},
                                      "--max-steps", "2", "--no-quality", *workers, sample=True)
            mib = lambda v: v / 2**20  # noqa: E731
            print(f"\n4. memory over {args.many} apps (2 steps, no quality; run wall {wall:.0f} s, "
                  f"{len(samples)} samples of the whole run's resident memory)\n")
            print("| tenth of the run | median RSS MiB | max RSS MiB |\n|---:|---:|---:|")
            size = max(1, len(samples) // 10)
            for i in range(10):
                part = samples[i * size:(i + 1) * size] if i < 9 else samples[9 * size:]
                if part:
                    print(f"| {i + 1} | {mib(statistics.median(part)):.0f} | {mib(max(part)):.0f} |")
            outcomes = collections.Counter(a["outcome"] for a in apps.values())
            print("\noutcomes: " + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())))

if __name__ == "__main__":
    main()
