"""Building a Vite, Next.js, Create React App or Astro app with Istanbul, in a sandbox.

``build(src, work, framework, settings)`` works on a copy of the app in ``work`` (``src``
is never touched):

    check      a package-lock.json whose every package comes from the registry
    install    npm ci from the registry, lifecycle scripts off, one shared npm cache;
               then `npm rebuild` of the few dependencies allowed to run their install
               scripts (settings.allow_scripts)
    build      with Istanbul (recipes.py), with loopback-only network, as a static
               site; an app that needs its server (a failed export whose log says so,
               or no index.html: Next.js's per-request pages and route handlers,
               Astro's output "server") is built for its framework's server instead,
               with Istanbul on the client code; when all that fails, the same once
               more without Istanbul (the app is then a black box)

Every step runs confined (kits/confined: time, memory, disk, CPU limits; an environment
without our secrets). The outcome (``Built``) holds the static site folder (or, for a server
build, the app's built copy and ``Built.server``), Istanbul's coverage map and sources
gathered from the build (js/recording.cjs) and a ``BuildReport`` whose reason names the
cause of any fallback with the log's tail. An
app's failure is an outcome, never an exception. This module must not serve, explore or
instrument static files.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import shutil
import time
from typing import Iterable, Sequence

from iwcbench.pipeline.contracts import settings as settings_mod
from iwcbench.pipeline.contracts import evidence, instrumented, servers
from iwcbench.pipeline.kits import confined, processes
from iwcbench.pipeline.stages.instrumenting import failures as reasons
from iwcbench.pipeline.stages.instrumenting import fonts, installing
from iwcbench.pipeline.stages.instrumenting import recipes

APP = "app"  # the app's working copy inside ``work``
COVERAGE_OUT = "coverage-records"  # where the build's hook leaves one JSON per file
LOG = "build.log"
FACTS = "build-facts"  # beside COVERAGE_OUT: what the build said about itself (js/recording.cjs's fact)
INLINE_SCRIPTS = "_iwc-inline-scripts"  # a server build's inline page scripts, in its site folder (not served)
REPORTED_TAIL = 3000  # characters of a failed step's log kept in the report
NOT_COPIED = {".git", "node_modules", ".npmrc"}  # .npmrc: the app must not pick our registry or scripts
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS")
_INSTALL_ENV = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy")


@dataclasses.dataclass(frozen=True)
class Built:
    report: evidence.BuildReport
    site: pathlib.Path | None  # the static output (holds index.html), a server build's app copy; None: not built
    coverage_map: dict  # coverage key -> Istanbul's initial file coverage
    sources: dict  # coverage key -> original source text
    skipped: tuple[evidence.SkippedFile, ...]  # the app's own files left uninstrumented
    server: recipes.ServerOutput | None = None  # a server build: how its server runs (site is the app's copy)
    base: str = "/"  # the path the app was built to be served under (Vite's base: "/repo/" for GitHub Pages)


def default_cache_dir() -> pathlib.Path:
    return pathlib.Path.home() / ".cache" / "iwc-bench" / "npm"


def build(src: pathlib.Path, work: pathlib.Path, framework: str, settings: settings_mod.Build,
          with_istanbul: bool = True, workspace_app: str | None = None, note: str | None = None) -> Built:
    """Install and build ``src`` (a ``framework`` app) inside ``work``; see the module doc.
    ``with_istanbul=False`` runs only the plain build (for comparing the two).
    ``workspace_app``: ``src`` is a workspace (npm, pnpm or Yarn) whose app is this
    subfolder: installed at the root from the root's lockfile, built in the subfolder."""
    work.mkdir(parents=True, exist_ok=True)
    root = work / APP
    shutil.rmtree(root, ignore_errors=True)
    _copy(src, root)
    app = root / workspace_app if workspace_app else root
    run = _Runner(work, app, settings, root)
    if note:
        run.notes.append(note)

    problem = reasons.lockfile_problem(root, settings.registry)
    if problem and (settings.require_lockfile or not problem.startswith("missing lockfile")):
        return run.failed(framework, problem)
    if problem:  # no lockfile: a model often leaves it out; the app is installed as its README would be
        run.notes.append(f"{problem}: installed with npm install, package.json's ranges resolved from "
                         f"{settings.registry} today (build.require_lockfile refuses such apps)")

    installed = run.install(with_lockfile=problem is None)
    if installed is not None:
        return run.failed(framework, installed)

    recipe = recipes.recipe(framework, app, processes.node_binary(), run.root)
    if framework == "next" and settings.isolate_network:  # next/font/google's fonts, fetched while we may
        run.offline_extra = fonts.prepare(app, work, settings.registry, run.cache.parent / "fonts")
    if not with_istanbul:
        plain = run.step(recipe.plain, "build")
        if plain is None and (app / recipe.output / "index.html").is_file():
            return run.done(framework, "plain", "built without Istanbul (as asked)", app / recipe.output, {}, {}, ())
        return run.failed(framework, plain or f"build left no {recipe.output}/index.html")
    if recipe.note:
        run.notes.append(recipe.note)
    return ladder(run, recipe, framework)


def ladder(run: "_Runner", recipe: recipes.Recipe, framework: str) -> Built:
    """Static with Istanbul → for its server with Istanbul → static → for its server
    (the server rungs only when the app needs its server); the first that works."""
    app = run.app
    site = app / recipe.output
    attempt = run.step(recipe.instrumented, "instrumented build")
    if attempt is None and (site / "index.html").is_file() and not recipe.server_only:
        return _instrumented(run, framework, site)
    served = _on_server(run, recipe, framework, attempt, None)
    if isinstance(served, Built):
        return served
    attempt = (attempt or f"instrumented build left no {recipe.output}/index.html") + served
    first_tail = run.last_tail
    _clean_output(app, recipe.output)
    plain = run.step(recipe.plain, "build")
    if plain is None and (site / "index.html").is_file() and not recipe.server_only:
        reason = f"{attempt}; built without Istanbul instead (black box)"
        return run.done(framework, "plain", reason, site, {}, {}, (), log_tail=first_tail)
    served = _on_server(run, recipe, framework, plain, (attempt, first_tail))
    if isinstance(served, Built):
        return served
    plain = (plain or f"build left no {recipe.output}/index.html") + served
    same = plain == attempt.replace("instrumented build", "build", 1)
    return run.failed(framework, plain if same else f"{attempt}; without Istanbul: {plain}")


def _instrumented(run: "_Runner", framework: str, site: pathlib.Path, how: str = "",
                  server: recipes.ServerOutput | None = None) -> Built:
    """The outcome of a build that ran with Istanbul: instrumented when it counted any
    of the app's own files. ``how`` starts the reason."""
    coverage_map, sources, skipped = gather(run.work / COVERAGE_OUT)
    if server is None:  # a static site: code only a server runs ran while building (prerendering), if at all
        for key in instrumented.server_keys(coverage_map):
            del coverage_map[key], sources[key]
    if coverage_map:
        noun = "file" if len(coverage_map) == 1 else "files"
        reason = f"{how}built with Istanbul: {len(coverage_map)} source {noun} of the app's own instrumented"
        return run.done(framework, "instrumented", reason, site, coverage_map, sources, skipped, server=server)
    reason = f"{how}built, but none of the app's own source files was instrumented"
    return run.done(framework, "plain", reason, site, {}, {}, skipped, server=server)


def _on_server(run: "_Runner", recipe: recipes.Recipe, framework: str, failure: str | None,
               instrumented_failed: tuple[str, str] | None) -> "Built | str":
    """A static build that failed or left no index.html, built for the app's server
    when it needs one: the outcome, or what to add to the static build's reason.
    ``instrumented_failed``: (reason, log tail) of the instrumented builds, for the
    plain rung; None: this is the instrumented rung."""
    app = run.app
    why = recipes.server_reason(framework, run.last_tail) if failure else None
    if failure is not None and why is None:
        return ""  # failed for another reason: a server build fails the same way
    why = why or recipe.server_only or f"its static build left no {recipe.output}/index.html"
    step = recipe.server if instrumented_failed is None else recipe.plain_server
    if step is not None:
        _clean_output(app, recipe.output)
        name = "instrumented server build" if instrumented_failed is None else "server build"
        failed = run.step(step, name)
        if failed is not None:
            return f"; it needs its server ({why}), and the {name} failed: {failed}"
    output = recipes.server_output(framework, app)
    if output is None:
        adapter = recipes.astro_adapter(app) if framework == "astro" else None
        if adapter and adapter != "@astrojs/node":
            return f" (its adapter {adapter} {reasons.OTHER_HOST})"
        preset = recipes.nitro_preset(app) if framework in ("nuxt", "solid-start") else None
        if preset:
            return f" (its Nitro preset {preset} {reasons.OTHER_RUNTIME})"
        return " (the app may need a server, e.g. SSR output)"
    how = f"built for and served by {output.label}, because {why}; "
    if instrumented_failed is None:
        return _instrumented(run, framework, app, how, output)
    attempt, tail = instrumented_failed
    reason = f"{attempt}; {how}built without Istanbul instead (black box)"
    return run.done(framework, "plain", reason, app, {}, {}, (), log_tail=tail, server=output)


def place_server_build(built: Built, work: pathlib.Path, dest: pathlib.Path, build: settings_mod.Build) -> None:
    """A server build's client files into ``dest`` at the paths its server serves them
    from, and the marker naming the app's copy (left in ``work``, the rest of it gone)."""
    app = built.site
    assert app is not None and built.server is not None
    for name in os.listdir(work):
        target = work / name
        if app.is_relative_to(target):  # the app's copy, or the workspace holding it
            continue
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)
    for prefix, folder in built.server.client.items():
        if (app / folder).is_dir():
            _copy(app / folder, dest / prefix)
    for n, text in enumerate(recipes.inline_scripts(built.report.framework, app)):
        (dest / INLINE_SCRIPTS).mkdir(parents=True, exist_ok=True)
        (dest / INLINE_SCRIPTS / f"{n}.js").write_text(text)  # where the counters' places are found
    marker = servers.ServerBuild(framework=built.report.framework, app=os.path.relpath(app, dest),
                                 entry=built.server.entry, reason=built.report.reason,
                                 memory_mib=build.memory_mib, cpu_s=build.cpu_s)
    (dest / servers.MARKER).write_text(marker.model_dump_json(indent=1))


_INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)


def inline_page_scripts(site: pathlib.Path, keys: list[str]) -> list[str]:
    """The text of every inline ``<script>`` of the static site's pages that holds one of
    ``keys`` (Astro inlines a page script below Vite's inline limit, counters and all):
    V8 knows such a script by its element's text, so its counters are placed in that."""
    found: list[str] = []
    for page in sorted(site.rglob("*.html")):
        if instrumented.FOLDER in page.relative_to(site).parts:
            continue
        try:
            text = page.read_text(errors="replace")
        except OSError:
            continue
        found += [m.group(2) for m in _INLINE_SCRIPT.finditer(text)
                  if not re.search(r"\bsrc\s*=", m.group(1)) and any(k in m.group(2) for k in keys)]
    return found


def gather(folder: pathlib.Path) -> tuple[dict, dict, tuple[evidence.SkippedFile, ...]]:
    """The coverage map, sources and skipped files the build's hook recorded."""
    coverage_map: dict = {}
    sources: dict = {}
    skipped: list[evidence.SkippedFile] = []
    sides: dict[str, set[str]] = {}
    if not folder.is_dir():
        return coverage_map, sources, ()
    for path in sorted(folder.glob("*.json")):
        try:
            entry = json.loads(path.read_bytes())
            key = entry["key"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if "side" in entry:
            sides.setdefault(str(entry.get("of")), set()).add(str(entry["side"]))
        elif "skipped" in entry:
            skipped.append(evidence.SkippedFile(path=key, reason=str(entry["skipped"])))
        elif isinstance(entry.get("coverage"), dict):
            coverage_map[key] = entry["coverage"]
            sources[key] = entry.get("source") or ""
    for key, seen in sides.items():
        if key in coverage_map and seen == {"server"}:
            coverage_map[key][instrumented.SIDE] = "server"  # only the app's own server runs it
    return dict(sorted(coverage_map.items())), dict(sorted(sources.items())), tuple(skipped)


class _Runner:
    """The confined steps of one app's build, and their bookkeeping."""

    def __init__(self, work: pathlib.Path, app: pathlib.Path, settings: settings_mod.Build,
                 root: pathlib.Path | None = None) -> None:
        self.work, self.app, self.settings = work, app, settings
        self.root = root or app  # where it is installed: the workspace's root, else the app
        self.cache = pathlib.Path(settings.npm_cache_dir) if settings.npm_cache_dir else default_cache_dir()
        _seed(self.cache, settings.npm_cache_seed)
        self.log = work / LOG
        self.log.unlink(missing_ok=True)
        self.started = time.monotonic()
        self.install_s = 0.0
        self.build_s = 0.0
        self.last_tail = ""
        self.isolated = False
        self.notes: list[str] = []  # what went differently from the plan, for the reason
        self.offline_extra: dict[str, str] = {}  # added to a step's offline_env (fonts.prepare's)
        self.env = self._environment()

    def _environment(self) -> dict[str, str]:
        home = self.work / "home"
        home.mkdir(exist_ok=True)
        # Not the user's npmrc (tokens, other registries); the machine's global one
        # (a CA file, a proxy for the mirror) stays.
        (self.work / "npmrc-user").write_text("")
        env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
        env.update({
            "HOME": str(home),
            "NPM_CONFIG_USERCONFIG": str(self.work / "npmrc-user"),
            "NPM_CONFIG_UPDATE_NOTIFIER": "false",
            "NODE_OPTIONS": f"--max-old-space-size={max(256, self.settings.memory_mib * 3 // 4)}",
            "IWC_APP_ROOT": str(self.app.resolve()),
            "IWC_COVERAGE_OUT": str((self.work / COVERAGE_OUT).resolve()),
            "IWC_NODE_TOOLS": str(processes.node_tools_dir()),
        })
        return env

    def _limits(self, wall_s: float, isolate: bool) -> confined.Limits:
        s = self.settings
        return confined.Limits(wall_s=wall_s, memory_bytes=s.memory_mib * 2**20, disk_bytes=s.disk_mib * 2**20,
                               cpu_s=s.cpu_s, file_bytes=s.disk_mib * 2**20, isolate_network=isolate)

    def _run(self, argv: Sequence[str], wall_s: float, isolate: bool, env: dict[str, str] | None = None,
             cwd: pathlib.Path | None = None) -> confined.Confined:
        done = confined.run(argv, self._limits(wall_s, isolate), log=self.log, cwd=cwd or self.app,
                            env={**self.env, **(env or {})}, disk_paths=(self.root,))
        self.isolated = self.isolated or done.network_isolated
        if not done.ok:
            self.last_tail = done.log_tail
        return done

    def install(self, with_lockfile: bool) -> str | None:
        """None when installed, else the reason. The app's lockfile decides the manager
        (installing.py); npm install from package.json when it has none."""
        npm = shutil.which("npm")
        if npm is None:
            raise processes.ToolMissing("no npm on PATH: run hack/setup")
        how = installing.plan(self.root, npm, processes.node_binary(), processes.node_tools_dir(),
                              self.settings.registry, self.cache)
        argv = how.frozen if with_lockfile or how.lockfile is None else how.relaxed or how.frozen
        if how.note:
            self.notes.append(how.note)
        started = time.monotonic()
        proxies = {k: os.environ[k] for k in _INSTALL_ENV if k in os.environ}
        done = self._run(argv, self.settings.install_timeout_s, isolate=False, env=proxies, cwd=self.root)
        if how.relaxed is not None and argv is how.frozen and not done.ok and reasons.out_of_sync(done.log_tail):
            # A lockfile that lags behind package.json (often an optional platform
            # package npm itself left out): an install that may update it keeps what it can.
            self.notes.append(reasons.failure_reason("install", done, 0, None)
                              + f"; installed with {how.manager} install without a frozen lockfile instead")
            done = self._run(how.relaxed, self.settings.install_timeout_s, isolate=False, env=proxies, cwd=self.root)
        if not done.ok and reasons.stale_metadata(done.log_tail) and "--prefer-offline" in done.argv:
            # the shared cache's copy of a package's metadata predates the version the
            # lockfile names: asked of the registry once more, not of the cache
            done = self._run([a.replace("--prefer-offline", "--prefer-online") for a in done.argv],
                             self.settings.install_timeout_s, isolate=False, env=proxies, cwd=self.root)
        if done.ok:
            present = [p for p in self.settings.allow_scripts if (self.root / "node_modules" / p).is_dir()]
            if present:
                done = self._run([npm, "rebuild", *present, f"--cache={self.cache}", "--loglevel=error"],
                                 self.settings.install_timeout_s, isolate=False, cwd=self.root)
        self.install_s += time.monotonic() - started
        if done.ok:
            return None
        return reasons.failure_reason("install", done, self.settings.install_timeout_s,
                                      self.settings.memory_mib * 2**20)

    def step(self, step: recipes.Step, name: str) -> str | None:
        """Run one build; None when it exited 0, else the reason."""
        for old, new in step.renames.items():
            if (self.app / old).exists() and not (self.app / new).exists():
                (self.app / old).rename(self.app / new)
        for rel, text in step.files.items():
            (self.app / rel).write_text(text)
        shutil.rmtree(self.work / COVERAGE_OUT, ignore_errors=True)
        shutil.rmtree(self.work / FACTS, ignore_errors=True)
        started = time.monotonic()
        isolated = self.settings.isolate_network
        env = {**step.env, **({**step.offline_env, **self.offline_extra} if isolated and step.offline_env else {})}
        argv = [recipes.installed(self.app, a, self.root) if a.startswith("node_modules/") else a for a in step.argv]
        done = self._run(argv, self.settings.build_timeout_s, isolated, env)
        self.build_s += time.monotonic() - started
        self._note_stand_ins()
        if done.ok:
            return None
        return reasons.failure_reason(name, done, self.settings.build_timeout_s, self.settings.memory_mib * 2**20)

    def _note_stand_ins(self) -> None:
        """Fonts the build asked Google for and what answered each (js/next-fonts.cjs's log:
        URL, family, the @fontsource package or the local stand-in), once, into the reason."""
        log = self.app / recipes.NEXT_FONTS_LOG
        try:
            rows = [line.split("\t") for line in log.read_text(errors="replace").splitlines()]
            log.unlink()
        except OSError:
            return
        given: dict[str, str] = {}
        for row in rows:
            if len(row) >= 3:
                given.setdefault(row[1], row[2])
        own = [f"{family} from {used}" for family, used in sorted(given.items()) if used.startswith("@fontsource/")]
        stood = sorted({used for used in given.values() if not used.startswith("@fontsource/")})
        local = [f for f, used in sorted(given.items()) if not used.startswith("@fontsource/")]
        parts = []
        if own:
            parts.append(f"{', '.join(own)} (Google's files, from npm)")
        if local:
            font = ", ".join(pathlib.Path(u).stem for u in stood if u != "none") or "the fallback font"
            parts.append(f"{', '.join(local)} from the local font {font} in place of Google Fonts' files "
                         f"(no @fontsource package was found for it)")
        note = f"next/font/google: the build has no network, so {'; '.join(parts) or 'no font was asked for'}"
        if note not in self.notes:
            self.notes.append(note)

    def report(self, framework: str, result: evidence.BuildResult, reason: str, log_tail: str) -> evidence.BuildReport:
        cause = "environment" if result == "failed" and reasons.environment_caused(reason) else "app"
        reason = "; ".join([*self.notes, reason])
        if len(log_tail) > REPORTED_TAIL:
            log_tail = "…" + log_tail[-REPORTED_TAIL:]
        return evidence.BuildReport(
            framework=framework, result=result, reason=reason, install_s=round(self.install_s, 3),
            build_s=round(self.build_s, 3), log_tail=log_tail, network_isolated=self.isolated, cause=cause)

    def failed(self, framework: str, reason: str) -> Built:
        return Built(self.report(framework, "failed", reason, self.last_tail), None, {}, {}, ())

    def done(self, framework: str, result: evidence.BuildResult, reason: str, site: pathlib.Path | None,
             coverage_map: dict, sources: dict, skipped: Iterable[evidence.SkippedFile], log_tail: str = "",
             server: recipes.ServerOutput | None = None) -> Built:
        return Built(self.report(framework, result, reason, log_tail), site, coverage_map, sources, tuple(skipped),
                     server, self.base())

    def base(self) -> str:
        """The public path the build was made for (js/recording.cjs's fact), "/" when it
        said none or a relative one ("./" works from anywhere)."""
        try:
            value = json.loads((self.work / FACTS / "base.json").read_bytes())
        except (OSError, ValueError):
            return "/"
        if not isinstance(value, str) or not value.startswith("/") or ".." in value.split("/"):
            return "/"
        return "/" + "/".join(part for part in value.split("/") if part) + "/" if value.strip("/") else "/"


def _seed(cache: pathlib.Path, seed: str | None) -> None:
    """Fill an empty npm cache from a read-only one (npm must write to its cache)."""
    if not seed or not pathlib.Path(seed).is_dir():
        return
    if cache.is_dir() and any(cache.iterdir()):
        return
    # what the seed holds, not the seed folder itself: the cache folder may be a mount
    # point we do not own (a pod's emptyDir), whose mode and times are not ours to set
    cache.mkdir(parents=True, exist_ok=True)
    for entry in pathlib.Path(seed).iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, cache / entry.name, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(entry, cache / entry.name, follow_symlinks=False)


def _copy(src: pathlib.Path, dest: pathlib.Path) -> None:
    """The app's regular files without .git, node_modules and .npmrc. Links are followed
    only to files inside the app; FIFOs, devices and links out are not copied (reading
    a FIFO would block forever)."""
    root = src.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        here = pathlib.Path(dirpath)
        dirnames[:] = [d for d in dirnames if d not in NOT_COPIED and not (here / d).is_symlink()]
        target = dest / here.relative_to(root)
        target.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            if name in NOT_COPIED:
                continue
            try:
                real = (here / name).resolve(strict=True)
                if real.is_file() and real.is_relative_to(root):
                    shutil.copyfile(real, target / name)
            except (OSError, RuntimeError):
                continue  # unreadable: the build reports what it misses


def _clean_output(app: pathlib.Path, output: str) -> None:
    shutil.rmtree(app / output, ignore_errors=True)
    for cache in (".next", ".astro", "node_modules/.vite", "node_modules/.cache"):
        shutil.rmtree(app / cache, ignore_errors=True)
