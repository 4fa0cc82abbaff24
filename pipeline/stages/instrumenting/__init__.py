"""The instrument stage: copy an app and put Istanbul counters into its JavaScript.

``instrument(src, dest, settings)`` copies the app from ``src`` into the fresh folder
``dest`` (``src`` is never modified), detects the framework and finds the start page
(surveying.py), and instruments every script the browser can run: external files, inline ``<script>``
blocks, module scripts and inline event-handler attributes, in one Node process
(instrument.js beside this module, with facts.js, handlers.js and vendor.js). It writes
the metadata folder ``dest/.iwc/`` (contracts/instrumented.py declares its files: the
coverage map, the source texts, where the counters sit, code facts, library code, the
original files), reads it back checked against those declarations and returns it with
the report as one ``instrumented.Instrumented`` bundle; ``load`` reads the same bundle
from wherever the run moved the folder (out of the served site, another container's).

Coverage keys are paths relative to the served root ("js/app.js"); inline blocks are
"<page>#inline-N" (N counts a page's inline JavaScript blocks from 1, in document
order) and their locations are lines of the page. An app's own defects (no start
page, unparsable scripts, binary junk, huge files) are recorded in the report, never
raised. A framework or layout the build step does not support (unsupported.py) is
recognised before anything is built, and reported as a failed build that is this
environment's gap. Build frameworks are served from a prebuilt static folder when the
app ships one; otherwise they are built with Istanbul (building.py) and their static
output is served, or, for an app built for its framework's server, ``dest`` gets the client
files, the marker of contracts/servers.py and the built app's copy stays beside it
(``dest.build/app``) for the serving stage to run. This module must not serve or explore.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import tempfile
import time

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.contracts import evidence, instrumented
from iwcbench.pipeline.kits import processes
from iwcbench.pipeline.stages.instrumenting import building, surveying, unsupported

SCRIPT = pathlib.Path(__file__).resolve().parent / "instrument.js"  # this stage's Node side
SITES_SCRIPT = SCRIPT.with_name("sites.js")  # where a built bundle's counters sit
IWC_DIR = instrumented.FOLDER
SERVER_ENTRY = "index.html"  # a server build's start page: "/" (serving.start_url), whatever renders it
REASONS_SHOWN = 3  # skipped files named in a black-box reason
PARSE_FAILED = "could not parse: "  # instrument.js's reason prefix for a syntax error


def instrument(
    src: pathlib.Path, dest: pathlib.Path, settings: settings_mod.Instrumentation,
    build: settings_mod.Build | None = None,
) -> instrumented.Instrumented:
    """Copy ``src`` into ``dest`` and instrument the copy; the bundle's report says what
    was done, its files are ``dest/.iwc/``'s. A build-framework app without a prebuilt
    folder is built with Istanbul (building.py) unless ``build`` is None or off.

    Raises only for trouble on our side (node or the npm tools missing:
    ``processes.ToolMissing``; a file Node wrote in a shape Python does not expect:
    ``instrumented.Drift``), never for anything about the app."""
    report = _instrument(pathlib.Path(src), pathlib.Path(dest), settings, build)
    return load(pathlib.Path(dest) / IWC_DIR, report)


def load(meta: pathlib.Path, report: evidence.InstrumentationReport) -> instrumented.Instrumented:
    """The bundle of the metadata folder ``meta`` (``<site>/.iwc`` or wherever the run
    moved it), each file checked against contracts/instrumented.py; a missing file is
    empty. The original files are read only when some code is measured."""

    def read(file: instrumented.File) -> dict:
        path = meta / file.name
        return instrumented.parse(file, path.read_bytes()) if path.is_file() else {}

    coverage_map = read(instrumented.COVERAGE_MAP)
    return instrumented.Instrumented(
        report=report, coverage_map=coverage_map, sources=read(instrumented.SOURCE_TEXTS),
        sites=read(instrumented.SITES), facts=read(instrumented.FACTS), vendored=read(instrumented.VENDORED),
        originals=originals(meta) if coverage_map else {})


def _instrument(
    src: pathlib.Path, dest: pathlib.Path, settings: settings_mod.Instrumentation,
    build: settings_mod.Build | None,
) -> evidence.InstrumentationReport:
    started = time.monotonic()
    src, dest = pathlib.Path(src), pathlib.Path(dest)
    framework = surveying.detect_framework(src)
    gap = unsupported.recognise(src, surveying.built_by)
    prebuilt = surveying.prebuilt_folder(src) if framework in surveying.BUILD_FRAMEWORKS or gap else None
    if prebuilt is None:
        decided = _needs_a_build(src, dest, framework, gap, settings, build, started)
        if decided is not None:
            return decided

    copy_skips = surveying.copy_app(src / prebuilt if prebuilt else src, dest)
    entry, entry_problem = surveying.find_entry(dest)
    where = f"the prebuilt {prebuilt}/ folder of this {framework} app; " if prebuilt else ""
    pages, scripts, survey_skips = surveying.survey(dest, settings.max_file_bytes)
    skipped = copy_skips + survey_skips
    if not pages and not any(s["skip"] is None or s["soft"] for s in scripts):
        script_skips = [evidence.SkippedFile(path=s["path"], reason=s["skip"]) for s in scripts]
        skipped += script_skips
        reason = _black_box_reason(script_skips, where)
        return _report(framework, "black_box", reason, entry, entry_problem, [], skipped, started)

    done = processes.run(
        [processes.node_binary(), str(SCRIPT)],
        stdin=json.dumps(_job(dest, settings, pages, scripts)).encode(),
        timeout_s=settings.timeout_s,
        cwd=dest,
    )
    outcome = _read_outcome(done, settings.timeout_s)
    if isinstance(outcome, str):
        # A half-instrumented copy is worse than the original: serve the app as it came.
        shutil.rmtree(dest, ignore_errors=True)
        surveying.copy_app(src / prebuilt if prebuilt else src, dest)
        return _report(framework, "black_box", outcome, entry, entry_problem, [], skipped, started)
    files = list(outcome.files)
    node_skips = list(outcome.skipped)
    skipped += node_skips
    scripts_failed = [s for s in node_skips if s.reason.startswith(PARSE_FAILED)]
    if not files or (scripts_failed and all(f.kind == "handlers" for f in files)):
        # Inline handlers call the app's scripts: without any script they measure nothing.
        if files:
            shutil.rmtree(dest, ignore_errors=True)
            surveying.copy_app(src / prebuilt if prebuilt else src, dest)
        reason = _black_box_reason(node_skips, where)
        return _report(framework, "black_box", reason, entry, entry_problem, [], skipped, started)
    return _report(framework, "instrumented", _instrumented_reason(where, files, skipped), entry, entry_problem,
                   files, skipped, started)


def _needs_a_build(src: pathlib.Path, dest: pathlib.Path, framework: evidence.Framework,
                   gap: unsupported.Found | None, settings: settings_mod.Instrumentation,
                   build: settings_mod.Build | None, started: float) -> evidence.InstrumentationReport | None:
    """The report of an app that ships no build but needs one (a framework the build step
    builds, at the root or in a subfolder; one it does not), or None: a static app."""
    if gap is not None:
        return _not_supported(framework, gap, dest, started)
    located = unsupported.app_folder(src, surveying.built_by)
    if located is not None and build is not None and build.enabled:
        return _instrument_by_building(src, dest, surveying.detect_framework(src / located.path), build, started,
                                       settings.timeout_s, located)
    if framework not in surveying.BUILD_FRAMEWORKS:
        return None
    if build is not None and build.enabled:
        return _instrument_by_building(src, dest, framework, build, started, settings.timeout_s)
    copy_skips = surveying.copy_app(src, dest)
    entry, entry_problem = surveying.find_entry(dest)
    reason = f"framework {framework} needs a build; build frameworks are not instrumented yet (static apps only)"
    return _report(framework, "black_box", reason, entry, entry_problem, [], copy_skips, started)


def _job(dest: pathlib.Path, settings: settings_mod.Instrumentation, pages: list[str], scripts: list[dict]) -> dict:
    """What instrument.js is asked to do, and where it writes its files for the explorer."""
    return {
        "tools": str(processes.node_tools_dir()),
        "root": str(dest.resolve()),
        "maxFileBytes": settings.max_file_bytes,
        "pages": pages,
        "scripts": scripts,
        "coverageMap": str((dest / IWC_DIR / instrumented.COVERAGE_MAP.name).resolve()),
        "sources": str((dest / IWC_DIR / instrumented.SOURCE_TEXTS.name).resolve()),
        "sites": str((dest / IWC_DIR / instrumented.SITES.name).resolve()),
        "facts": str((dest / IWC_DIR / instrumented.FACTS.name).resolve()),
        "originals": str((dest / IWC_DIR / instrumented.ORIGINALS).resolve()),
        "vendored": str((dest / IWC_DIR / instrumented.VENDORED.name).resolve()),
    }


def _instrumented_reason(where: str, files: list, skipped: list[evidence.SkippedFile]) -> str:
    noun = "script" if len(files) == 1 else "scripts"
    reason = f"instrumented {where}{len(files)} {noun}"
    libraries = [f for f in files if f.vendored]
    if libraries:
        reason += f" ({len(libraries)} with library code: {libraries[0].path}: {libraries[0].vendored})"
    if skipped:
        reason += f" ({len(skipped)} skipped)"
    return reason


def _instrument_by_building(src: pathlib.Path, dest: pathlib.Path, framework: evidence.Framework,
                            build: settings_mod.Build, started: float, timeout_s: float,
                            located: unsupported.AppFolder | None = None) -> evidence.InstrumentationReport:
    """Build the app with Istanbul; ``dest`` gets the static output and .iwc/ maps (a
    server build: its client files and marker; the app's copy stays in ``dest.build``).
    ``located``: the app is in that subfolder of ``src`` (a workspace's: installed at
    its root)."""
    work = dest.with_name(dest.name + ".build")
    built = None
    note = located.note if located is not None else None
    workspace_app = located.path if located is not None and located.workspace else None
    if located is not None and workspace_app is None:
        src = src / located.path
    try:
        built = building.build(src, work, framework, build, workspace_app=workspace_app, note=note)
        dest.mkdir(parents=True, exist_ok=True)
        if built.site is None:
            return _report(framework, "black_box", built.report.reason, None, "the app was not built", [],
                           [], started, built.report)
        if built.server is None:
            # an app built to be served under a path ("/repo/") is served there
            surveying.copy_app(built.site, dest / built.base.strip("/"))
        else:
            building.place_server_build(built, work, dest, build)
    finally:
        if built is None or built.server is None or built.site is None:
            shutil.rmtree(work, ignore_errors=True)
    (dest / IWC_DIR).mkdir(exist_ok=True)
    (dest / IWC_DIR / instrumented.COVERAGE_MAP.name).write_text(json.dumps(built.coverage_map))
    (dest / IWC_DIR / instrumented.SOURCE_TEXTS.name).write_text(json.dumps(built.sources))
    reason = built.report.reason
    browser_keys = sorted(set(built.coverage_map) - instrumented.server_keys(built.coverage_map))
    if browser_keys:  # (the server's counters are read from the server: nothing to place)
        unplaced = _built_sites(dest, browser_keys, timeout_s)
        if unplaced:
            reason += f"; {unplaced}"
    files = [evidence.InstrumentedFile(path=key, kind="built", statements=len(fc.get("statementMap", {})),
                                       functions=len(fc.get("fnMap", {})), branches=len(fc.get("branchMap", {})),
                                       side=fc.get(instrumented.SIDE))
             for key, fc in built.coverage_map.items()]
    entry, entry_problem = surveying.find_entry(dest)
    if built.server is not None:
        entry, entry_problem = SERVER_ENTRY, None
    mode: evidence.Mode = "instrumented" if files else "black_box"
    return _report(framework, mode, reason, entry, entry_problem, files, list(built.skipped),
                   started, built.report)


def _not_supported(framework: evidence.Framework, gap: unsupported.Found, dest: pathlib.Path,
                   started: float) -> evidence.InstrumentationReport:
    """An app the build step cannot build, found before anything ran: a failed build that
    is this environment's gap (the run records it not_runnable), never the app's."""
    dest.mkdir(parents=True, exist_ok=True)  # a pod's sidecar serves the folder all the same
    report = evidence.BuildReport(framework=framework, result="failed", reason=gap.reason, cause="environment")
    return _report(framework, "black_box", gap.reason, None, "the app was not built", [], [], started, report)


def _built_sites(dest: pathlib.Path, keys: list[str], timeout_s: float) -> str | None:
    """Write sites.json for a built site: where each key's counters sit in the bundles.
    A key whose counters are not found gets no sites (its coverage is not credited);
    the returned sentence says how many, None when every key was placed."""
    scripts = [str((dest / rel).resolve()) for rel in surveying.walk(dest, surveying.NOT_INSTRUMENTED)
               if rel.lower().endswith(surveying.SCRIPT_SUFFIXES)]
    with tempfile.TemporaryDirectory(prefix="iwc-inline-") as inline:
        for n, text in enumerate(building.inline_page_scripts(dest, keys)):
            (pathlib.Path(inline) / f"{n}.js").write_text(text)
            scripts.append(str(pathlib.Path(inline) / f"{n}.js"))
        job = {"tools": str(processes.node_tools_dir()), "files": scripts, "keys": keys,
               "sites": str((dest / IWC_DIR / instrumented.SITES.name).resolve())}
        done = processes.run([processes.node_binary(), str(SITES_SCRIPT)], stdin=json.dumps(job).encode(),
                             timeout_s=timeout_s, cwd=dest)
    try:
        placed = (instrumented.check(instrumented.SitesOutcome, done.stdout, "sites.js's result").keys
                  if done.returncode == 0 else 0)
    except instrumented.Drift:
        placed = 0
    if placed >= len(keys):
        return None
    return (f"the counters of {len(keys) - placed} of {len(keys)} files were not found in the built "
            f"scripts; their coverage is not credited")


def originals(meta: pathlib.Path) -> dict[str, bytes]:
    """The files instrumenting rewrote, as they were, by served path ("js/app.js"),
    from an app's metadata folder (``<site>/.iwc`` or wherever it was moved)."""
    root = meta / instrumented.ORIGINALS
    if not root.is_dir():
        return {}
    return {rel: (root / rel).read_bytes() for rel in sorted(surveying.walk(root, set()))}


def _read_outcome(done: processes.Completed, timeout_s: float) -> instrumented.NodeOutcome | str:
    """The Node job's result, or the black-box reason when it has none (a result in
    another shape than declared raises ``instrumented.Drift``: our bug, not the app's)."""
    if done.timed_out:
        return f"Node process timed out after {timeout_s:g} s"
    if done.returncode != 0:
        return f"Istanbul's Node process failed (exit {done.returncode}): {done.stderr_tail()}"
    try:
        outcome = json.loads(done.stdout)
        if isinstance(outcome, dict) and isinstance(outcome.get("files"), list) and isinstance(outcome.get("skipped"), list):
            return instrumented.check(instrumented.NodeOutcome, done.stdout, "instrument.js's result")
    except instrumented.Drift:
        raise
    except ValueError:
        pass
    return f"Istanbul's Node process gave no result{' (output over the cap)' if done.truncated else ''}"


def _black_box_reason(skipped: list[evidence.SkippedFile], where: str) -> str:
    """Why nothing was instrumented, naming the first few scripts and their problems."""
    scripts = [s for s in skipped if not s.path.lower().endswith(surveying.PAGE_SUFFIXES)]
    if not scripts:
        return f"no JavaScript in {where.rstrip('; ') or 'the app'} (no script files or inline <script> blocks)"
    more = f"; and {len(scripts) - REASONS_SHOWN} more" if len(scripts) > REASONS_SHOWN else ""
    if all(s.reason.startswith(PARSE_FAILED) for s in scripts):
        detail = "; ".join(f"{s.path}: {s.reason[len(PARSE_FAILED):]}" for s in scripts[:REASONS_SHOWN])
        if len(scripts) == 1:
            return f"the only script failed to parse: {detail}"
        return f"all {len(scripts)} scripts failed to parse: {detail}{more}"
    detail = "; ".join(f"{s.path}: {s.reason}" for s in scripts[:REASONS_SHOWN])
    return f"no script could be instrumented ({len(scripts)} skipped): {detail}{more}"


def _report(
    framework: evidence.Framework,
    mode: evidence.Mode,
    reason: str,
    entry: str | None,
    entry_problem: str | None,
    files: list[evidence.InstrumentedFile],
    skipped: list[evidence.SkippedFile],
    started: float,
    build: evidence.BuildReport | None = None,
) -> evidence.InstrumentationReport:
    if entry is None and build is None:
        reason = f"{entry_problem}; {reason}"
    return evidence.InstrumentationReport(
        framework=framework,
        mode=mode,
        reason=reason,
        entry=entry,
        files=tuple(files),
        skipped=tuple(skipped),
        duration_s=round(time.monotonic() - started, 3),
        build=build,
    )


