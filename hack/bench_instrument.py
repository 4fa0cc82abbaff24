"""Instrumentation reliability and cost (run through hack/bench-instrument).

Prints, with the machine named:
  1. success rate: every framework fixture, a version matrix made from them (Vite 5 and
     8, Next.js 14 and 16, Astro 4: package.json changed, lockfile resolved here) and
     every example app (static) — success means instrumented with coverage of the app's
     own code; each failure with its cause;
  2. the failure fixtures: the reason each got, and whether it is the one expected;
  3. build time per framework with a cold npm cache (an empty folder) and a warm one;
  4. load time instrumented vs plain build (median of N loads in Chromium, `load` event).
Records nothing by itself: copy the output into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages import ingesting, instrumenting, serving
from iwcbench.pipeline.stages.instrumenting import building

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"
FRAMEWORKS = ("vite", "next", "cra", "astro")
MATRIX = {  # name: (fixture, framework, package.json changes)
    "vite5": ("vite", "vite", {"vite": "^5.4.0", "@vitejs/plugin-react": "^4.3.0"}),
    "vite8": ("vite", "vite", {"vite": "^8.0.0", "@vitejs/plugin-react": "^6.0.0",
                               "react": "^19.1.0", "react-dom": "^19.1.0"}),
    "next14": ("next", "next", {"next": "^14.2.0", "react": "^18.3.1", "react-dom": "^18.3.1"}),
    "next16": ("next", "next", {"next": "^16.0.0"}),
    "astro4": ("astro", "astro", {"astro": "^4.16.0"}),
}
EXPECTED_FAILURES = {  # fixture: (result, start of the reason)
    "no-lockfile": ("failed", "missing lockfile"),
    "off-registry": ("failed", "dependency not on the registry"),
    "network-build": ("failed", "build needs a network service"),
    "slow-build": ("failed", "build over its time limit"),
    "budget": ("plain", "instrumented build failed"),
}


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    mem = next((int(line.split()[1]) // 2**20 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    npm = subprocess.run(["npm", "--version"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    return (f"machine: {os.cpu_count()} cores · {cpu} · {mem} GiB · {platform.platform()} · "
            f"node {node} · npm {npm} · load average at start {load:.1f}")


def variant(name: str, base: pathlib.Path, cache: pathlib.Path) -> pathlib.Path:
    fixture, _, changes = MATRIX[name]
    app = base / name
    shutil.copytree(FIXTURES / fixture, app)
    manifest = json.loads((app / "package.json").read_text())
    for package, wanted in changes.items():
        section = "devDependencies" if package in manifest.get("devDependencies", {}) else "dependencies"
        manifest[section][package] = wanted
    (app / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (app / "package-lock.json").unlink()
    subprocess.run(["npm", "install", "--package-lock-only", "--no-audit", "--no-fund", f"--cache={cache}"],
                   cwd=app, check=True, capture_output=True)
    return app


def build(app: pathlib.Path, framework: str, work: pathlib.Path, cache: pathlib.Path, **kw) -> building.Built:
    shutil.rmtree(work, ignore_errors=True)
    config = settings.Build(npm_cache_dir=str(cache), **{k: v for k, v in kw.items() if k != "with_istanbul"})
    return building.build(app, work, framework, config, with_istanbul=kw.get("with_istanbul", True))


def examples(base: pathlib.Path) -> list[tuple[str, str, str, float]]:
    """Every example app (a folder or an archive, unpacked as `iwc run` does), instrumented."""
    found = []
    for example in sorted((ROOT / "examples" / "apps").glob("*/*")):
        name = example.name.removesuffix(".zip").removesuffix(".tar.gz")
        packaging = "zip" if example.name.endswith(".zip") else "tar.gz" if example.name.endswith(".tar.gz") else "folder"
        ref = evidence.AppRef(model=example.parent.name, task_id=name, source=str(example), packaging=packaging)
        src = ingesting.materialize(ref, base / "src" / example.parent.name / name, settings.Input())
        dest = base / "site" / example.parent.name / name
        report = instrumenting.instrument(src, dest, settings.Instrumentation(), settings.Build()).report
        ok = report.mode == "instrumented"
        found.append((f"examples/{example.parent.name}/{example.name}", report.framework,
                      "ok" if ok else f"{report.mode}: {report.reason}", report.duration_s))
    return found


def load_times(sites: dict[str, pathlib.Path], loads: int) -> dict[str, float]:
    """Median milliseconds to the `load` event, each load in a fresh browser context."""
    import playwright.sync_api as pw

    found: dict[str, list[float]] = {name: [] for name in sites}
    with pw.sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            for _ in range(loads):
                for name, site in sites.items():  # interleaved: machine noise hits both alike
                    with serving.serve(site) as served:
                        context = chromium.new_context()
                        page = context.new_page()
                        page.goto(served.url, wait_until="load")
                        found[name].append(page.evaluate(
                            "() => performance.getEntriesByType('navigation')[0].loadEventEnd"))
                        context.close()
        finally:
            chromium.close()
    return {name: statistics.median(values) for name, values in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-matrix", action="store_true", help="fixtures and examples only")
    parser.add_argument("--loads", type=int, default=7, help="page loads per site for load time (default 7)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-cache builds")
    args = parser.parse_args()
    print(machine())
    base = pathlib.Path(tempfile.mkdtemp(prefix="iwc-bench-instrument-"))
    warm_cache = base / "npm-cache"  # the failure fixtures and the version matrix's lockfiles
    outcomes: list[tuple[str, str, str, float]] = []  # (app, framework, result, seconds)
    try:
        apps = {name: (FIXTURES / name, name) for name in FRAMEWORKS}
        if not args.no_matrix:
            for name in MATRIX:
                apps[name] = (variant(name, base / "variants", warm_cache), MATRIX[name][1])

        # Each app twice: from an empty npm cache of its own (cold), then again from
        # that cache (warm). Both builds count toward the success rate.
        cold: dict[str, float] = {}
        warm: dict[str, tuple[float, float]] = {}
        sites: dict[str, dict[str, pathlib.Path]] = {}
        for name, (app, framework) in apps.items():
            cache = base / f"cache-{name}"
            kinds = ("warm",) if args.no_cold else ("cold", "warm")
            for kind in kinds:
                if kind == "warm" and args.no_cold:
                    build(app, framework, base / "prime", cache)
                started = time.monotonic()
                built = build(app, framework, base / f"{kind}-{name}", cache)
                wall = time.monotonic() - started
                ok = built.report.result == "instrumented" and bool(built.coverage_map)
                outcomes.append((f"{name} ({kind} cache)", framework,
                                 "ok" if ok else f"{built.report.result}: {built.report.reason}", wall))
                if kind == "cold":
                    cold[name] = built.report.install_s + built.report.build_s
                else:
                    warm[name] = (built.report.install_s, built.report.build_s)
            if name in FRAMEWORKS and ok:
                plain = build(app, framework, base / f"plain-{name}", cache, with_istanbul=False)
                if plain.site is not None:
                    sites[name] = {"instrumented": built.site, "plain": plain.site}
            for kind in kinds:  # node_modules of every copy: gigabytes otherwise
                shutil.rmtree(base / f"{kind}-{name}" / building.APP / "node_modules", ignore_errors=True)

        outcomes += examples(base / "examples")

        print("\n## Success rate\n")
        print("| app | framework | result | seconds |\n|---|---|---|---:|")
        for name, framework, result, seconds in outcomes:
            print(f"| {name} | {framework} | {result} | {seconds:.1f} |")
        good = sum(1 for o in outcomes if o[2] == "ok")
        print(f"\nsuccess: {good}/{len(outcomes)} = {100 * good / len(outcomes):.1f} %")

        print("\n## Failure fixtures\n")
        print("| fixture | result | reason | as expected |\n|---|---|---|---|")
        for name, (result, start) in EXPECTED_FAILURES.items():
            limits = {"build_timeout_s": 5} if name == "slow-build" else {}
            built = build(FIXTURES / "failures" / name, "vite", base / f"f-{name}", warm_cache, **limits)
            expected = built.report.result == result and built.report.reason.startswith(start)
            print(f"| {name} | {built.report.result} | {built.report.reason[:140]} | {'yes' if expected else 'NO'} |")

        print("\n## Build time (install + build, seconds)\n")
        print("| framework | cold cache | warm cache: install | warm cache: build | warm total |\n|---|---:|---:|---:|---:|")
        for name in apps:
            install_s, build_s = warm.get(name, (0.0, 0.0))
            c = f"{cold[name]:.1f}" if name in cold else "–"
            print(f"| {name} | {c} | {install_s:.1f} | {build_s:.1f} | {install_s + build_s:.1f} |")

        print(f"\n## Load time, instrumented vs plain build (median of {args.loads} loads, ms to `load`)\n")
        print("| framework | plain ms | instrumented ms | ratio | JS kB plain | JS kB instrumented |\n"
              "|---|---:|---:|---:|---:|---:|")
        flat = {f"{fw}/{kind}": site for fw, pair in sites.items() for kind, site in pair.items()}
        medians = load_times(flat, args.loads)
        for fw in sites:
            plain, inst = medians[f"{fw}/plain"], medians[f"{fw}/instrumented"]
            js = {kind: sum(p.stat().st_size for p in site.rglob("*.js")) / 1000 for kind, site in sites[fw].items()}
            print(f"| {fw} | {plain:.0f} | {inst:.0f} | {inst / plain:.2f}× | {js['plain']:.0f} | {js['instrumented']:.0f} |")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
