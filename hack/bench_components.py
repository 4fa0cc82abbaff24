"""Component apps built, explored and counted (run through `hack/bench-instrument --components`).

For each app — by default the component fixtures (create-vite react-ts, vue-ts,
svelte-ts; create-next-app 16 with TypeScript; an Astro site), or the app folders named
with ``--apps`` (e.g. public example repositories fetched into /work/ext) — one `iwc run`
(the heuristic explorer, one worker, ``--steps`` steps, no early stop) and one row:
framework, build seconds, outcome, instrumented files (component files / all), the
app's own function coverage after 30 steps and at the end (with the steps taken).
Component files are .vue, .svelte, .astro, .jsx and .tsx (Astro's extra <script>
blocks, ``file#script-N``, and Vue's separate template module, ``file#template``,
count with their file). Records nothing by itself: copy the output into
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import statistics
import sys
import tempfile

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages.instrumenting import building

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"
COMPONENT_FIXTURES = ("react-ts", "vue-ts", "svelte-ts", "next-ts", "astro-ts")
COMPONENT_SUFFIXES = (".vue", ".svelte", ".astro", ".jsx", ".tsx", ".html")  # .html: an Angular template
EARLY = 30  # the step the first coverage figure is read at
MODEL = "bench"


def is_component(key: str) -> bool:
    return key.split("#", 1)[0].endswith(COMPONENT_SUFFIXES)


def run_one(app: pathlib.Path, steps: int, base: pathlib.Path) -> dict:
    name = app.name
    shutil.copytree(app, base / "apps" / MODEL / name, ignore=shutil.ignore_patterns("node_modules", ".git"))
    tasks = base / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": name, "prompt": "Use the app."}) + "\n")
    config = settings_mod.RunSettings.model_validate({  # rule metrics and judges off: coverage only
        "tasks": str(tasks), "apps": str(base / "apps"), "out": str(base / "out"), "workers": 1,
        "exploration": {"max_steps": steps, "app_timeout_s": 900, "stop_after_idle_steps": steps},
        "sandbox": {"mirror_fetch": False}, "mirror_dir": str(base / "mirror"), "quality": {"enabled": False},
        "build": {"npm_cache_dir": str(building.default_cache_dir())},
    })
    result = local.execute(config).apps[0]
    evidence = base / "out" / result.evidence
    keys = json.loads((evidence / "coverage-map.json").read_text()) if (evidence / "coverage-map.json").is_file() else {}
    trace = json.loads((evidence / "trace.json").read_text()) if (evidence / "trace.json").is_file() else {"steps": []}
    covered = [s.get("coverage", {}).get("own_functions") for s in trace.get("steps", [])]
    early = covered[min(EARLY, len(covered) - 1)] if covered else None
    inst = result.instrumentation
    return {"app": name, "framework": inst.framework if inst else "?", "outcome": result.outcome,
            "build_s": inst.build_s if inst else None, "result": inst.build if inst else None,
            "components": sum(1 for k in keys if is_component(k)), "files": len(keys),
            "functions_30": early, "functions_end": covered[-1] if covered else None,
            "steps": max(0, len(covered) - 1), "reason": result.reason or ""}


def pct(value) -> str:
    return "—" if value is None else f"{value:.1f} %"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="*", type=pathlib.Path, help="app folders (default: the component fixtures)")
    parser.add_argument("--steps", type=int, default=100, help="exploration budget (default 100)")
    parser.add_argument("--keep", type=pathlib.Path, help="keep each app's run (evidence, report) under this folder")
    args = parser.parse_args(sys.argv[2:] if sys.argv[1:2] == ["--components"] else sys.argv[1:])
    apps = args.apps or [FIXTURES / name for name in COMPONENT_FIXTURES]
    print("| app | framework | build s | result · outcome | instrumented: components / all | "
          f"own functions at {EARLY} steps | at the end (steps) |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for app in apps:
        with tempfile.TemporaryDirectory(prefix="iwc-bench-components-") as tmp:
            base = args.keep / app.name if args.keep else pathlib.Path(tmp)
            base.mkdir(parents=True, exist_ok=True)
            row = run_one(app.resolve(), args.steps, base)
        rows.append(row)
        note = f" ({row['reason'][:80]})" if row["outcome"] != "evaluated" else ""
        build = "—" if row["build_s"] is None else f"{row['build_s']:.1f}"
        print(f"| {row['app']} | {row['framework']} | {build} | {row['result']} · {row['outcome']}{note} | "
              f"{row['components']} / {row['files']} | {pct(row['functions_30'])} | "
              f"{pct(row['functions_end'])} ({row['steps']}) |", flush=True)
    if len(rows) > 1:
        summary(rows)
    return 0


def summary(rows: list[dict]) -> None:
    """Per framework: apps, built with Istanbul and explored, the median of the app's own
    functions at EARLY steps (over those), and the same over every app."""
    print(f"\n| framework | apps | built and explored | median own functions at {EARLY} steps |")
    print("|---|---|---|---|")
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["framework"], []).append(row)
    for name, group in [*sorted(groups.items()), ("all", rows)]:
        explored = [r for r in group if r["outcome"] == "evaluated" and r["functions_30"] is not None]
        shares = sorted(r["functions_30"] for r in explored)
        print(f"| {name} | {len(group)} | {len(explored)} | {pct(statistics.median(shares)) if shares else '—'} |")


if __name__ == "__main__":
    raise SystemExit(main())
