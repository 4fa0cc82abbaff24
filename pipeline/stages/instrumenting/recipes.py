"""How each build framework is built, with and without Istanbul: commands, config shims,
output folders. Data and pure functions; building.py runs them.

An instrumented build uses the app's own config, wrapped: a small shim written into the
app's copy imports the app's config and hands it to our wrapper in js/, which
adds the Istanbul hook (Vite plugin, webpack loader, Babel plugin) and source maps and
changes nothing else. A plain build is the app's own command as it stands (Next.js
also gets ``output: "export"``, through the same shim with instrumenting off).

An app that cannot be exported as static files is built for its framework's server
(``Recipe.server``, ``Recipe.plain_server``: Next.js without ``output: "export"``; an
Astro app's own ``output: "server"`` build is one already): ``server_reason`` finds the
line of a failed export's log that says why, ``server_output`` what a server build
left to run (``ServerOutput``). Nothing here runs a process or decides a fallback.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re

JS_DIR = pathlib.Path(__file__).resolve().parent / "js"
IWC_PREFIX = "iwc."  # shims we write into the app's copy: iwc.vite.config.mjs, ...
NEXT_ORIGINAL = "next.config.iwc-original"  # the app's next.config.*, renamed beside our shim

VITE_CONFIGS = tuple(f"vite.config.{e}" for e in ("js", "mjs", "cjs", "ts", "mts", "cts"))
ASTRO_CONFIGS = tuple(f"astro.config.{e}" for e in ("mjs", "js", "ts", "mts", "cjs", "cts"))
NEXT_CONFIGS = tuple(f"next.config.{e}" for e in ("js", "mjs", "cjs", "ts", "mts"))


@dataclasses.dataclass(frozen=True)
class Step:
    argv: tuple[str, ...]  # run with the app's copy as working directory
    env: dict[str, str]  # added to the build environment
    files: dict[str, str]  # shims to write first: relative path -> text
    renames: dict[str, str]  # app files to move aside first: from -> to (relative)
    offline_env: dict[str, str] = dataclasses.field(default_factory=dict)  # added when the build has no network


# next/font/google fetches fonts while building: with no network, js/next-fonts.cjs stands in
NEXT_FONTS_LOG = ".iwc-next-fonts.log"


@dataclasses.dataclass(frozen=True)
class Recipe:
    framework: str
    instrumented: Step
    plain: Step
    output: str  # folder (relative to the app's copy) holding the static site
    server: Step | None = None  # an instrumented build for the framework's server, when it takes another build
    plain_server: Step | None = None
    server_only: str | None = None  # why the app is always served by its server, even with static output
    note: str | None = None  # what the build's reason says of what is not counted


@dataclasses.dataclass(frozen=True)
class ServerOutput:
    """What a server build left: how its server starts, and where its client files are."""

    label: str  # the server, for the reason: "Next.js's server", "@astrojs/node"
    entry: str | None  # the server's entry module, relative to the app's copy (Astro)
    client: dict[str, str]  # served URL prefix ("" or "_next/static") -> folder in the app's copy


# A static export's failures that mean the app needs its server (Next.js's messages:
# a page rendered per request, request APIs, route handlers, server actions, images)
_NEEDS_SERVER = re.compile(
    r"""(output:?\s*["']?export["']?|static export|export(ed)? statically|couldn't be (exported|rendered statically)|"""
    r"""Dynamic server usage|force-dynamic|not supported with (static )?export|"""
    r"""Image Optimization using the default loader|dynamic = ["']error["']|"""
    r"""PPR cannot be enabled in export mode)""",  # create-next-app 16.4's cacheComponents: true
    re.IGNORECASE)
ASTRO_SERVER_ENTRY = "dist/server/entry.mjs"
ASTRO_DB_FILE = ".iwc-astro-db.sqlite"  # Astro DB's local database, in the app's copy
SVELTEKIT_OUTPUT = ".svelte-kit/output"  # client/, server/ and prerendered/ of a SvelteKit build, whatever its adapter
REACT_ROUTER_SERVER_ENTRY = "build/server/index.js"  # React Router's framework mode, Remix on Vite
NITRO_SERVER_ENTRY = ".output/server/index.mjs"  # Nuxt's and SolidStart's (Nitro) server
QWIK_NOTE = ("Qwik's optimizer compiles the browser's copy of each component before it can be counted: its "
             "components are not counted, its other modules are")
# js/qwik-build.mjs's server build, which vite preview runs (.js before Qwik 1.6)
QWIK_PREVIEW_ENTRIES = ("server/entry.preview.mjs", "server/entry.preview.js")
NUXT_CONFIGS = tuple(f"nuxt.config.{e}" for e in ("ts", "js", "mjs", "mts", "cjs", "cts"))
NUXT_ORIGINAL = "nuxt.config.iwc-original"
APP_CONFIGS = tuple(f"app.config.{e}" for e in ("ts", "js", "mjs", "mts"))  # Vinxi's (SolidStart)
SERVE_PACKAGES = {"react-router": "@react-router/serve", "remix": "@remix-run/serve"}  # their own servers
# Frameworks whose server runs while the app is explored: their server-side modules are
# instrumented too (js/vite-plugin.mjs), and the counters are read from the server
SERVER_COUNTED = ("sveltekit", "react-router", "remix", "astro", "nuxt", "solid-start")
REASON_CHARS = 300  # of the log's line kept in the reason


def server_reason(framework: str, log_tail: str) -> str | None:
    """The line of a failed static build's log that says the app needs its server, or None."""
    if framework != "next":
        return None  # an Astro app chooses its server in its own config: no export to fail
    for line in log_tail.splitlines():
        if _NEEDS_SERVER.search(line):
            line = re.sub(r"\s*(Learn more|Read more|See more info)[^.]*:?\s*https?://\S+", "", line)
            return line.strip().lstrip("⨯ ").strip()[:REASON_CHARS]
    return None


def server_output(framework: str, root: pathlib.Path) -> ServerOutput | None:
    """The server build in the app's copy at ``root``, or None when there is none."""
    if framework == "next" and (root / ".next" / "BUILD_ID").is_file():
        return ServerOutput("Next.js's own server", None, {"_next/static": ".next/static", "": "public"})
    if framework == "astro" and (root / ASTRO_SERVER_ENTRY).is_file():
        return ServerOutput("the @astrojs/node adapter", ASTRO_SERVER_ENTRY, {"": "dist/client"})
    if framework in ("nuxt", "solid-start") and (root / NITRO_SERVER_ENTRY).is_file():
        label = "Nuxt's Nitro server" if framework == "nuxt" else "SolidStart's Nitro server"
        return ServerOutput(label, NITRO_SERVER_ENTRY, {"": ".output/public"})
    if framework == "qwik" and any((root / entry).is_file() for entry in QWIK_PREVIEW_ENTRIES):
        return ServerOutput("Qwik City's preview server (vite preview)", None, {"": "dist"})
    if framework == "sveltekit" and (root / SVELTEKIT_OUTPUT / "server" / "index.js").is_file():
        return ServerOutput("SvelteKit's own server (vite preview)", None, {"": f"{SVELTEKIT_OUTPUT}/client"})
    if framework in SERVE_PACKAGES and (root / REACT_ROUTER_SERVER_ENTRY).is_file():
        return ServerOutput(f"{SERVE_PACKAGES[framework]}", REACT_ROUTER_SERVER_ENTRY, {"": "build/client"})
    return None


def inline_scripts(framework: str, root: pathlib.Path) -> list[str]:
    """The scripts a server build's server writes into its pages inline (Astro inlines
    small page scripts; their text sits in the server's manifest), as the browser runs
    them: counters there are placed by their text like a file's."""
    if framework != "astro":
        return []
    found: list[str] = []
    decoder = json.JSONDecoder()
    for manifest in sorted((root / "dist" / "server").glob("manifest_*.mjs")):
        try:
            text = manifest.read_text(errors="replace")
        except OSError:
            continue
        at = text.find('"inlinedScripts":')
        if at < 0:
            continue
        try:
            pairs, _ = decoder.raw_decode(text, at + len('"inlinedScripts":'))
        except ValueError:
            continue
        found += [p[1] for p in pairs if isinstance(p, list) and len(p) == 2 and isinstance(p[1], str)]
    return found


def astro_adapter(root: pathlib.Path) -> str | None:
    """The Astro adapter the app depends on (``@astrojs/vercel``, ...), or None."""
    try:
        data = json.loads((root / "package.json").read_bytes())
    except (OSError, ValueError):
        return None
    names = [n for field in ("dependencies", "devDependencies") if isinstance(data.get(field), dict)
             for n in data[field]]
    adapters = [n for n in names if n in ASTRO_ADAPTERS or n.startswith("astro-adapter")]
    return adapters[0] if adapters else None


_PRESET = re.compile(r"""\bpreset\s*:\s*["']([\w-]+)["']""")


def nitro_preset(root: pathlib.Path) -> str | None:
    """The Nitro preset a Nuxt or SolidStart app's config names (``vercel-edge``), unless it
    is Node's own server (``node-server``, ``node``), or None."""
    for name in (*NUXT_CONFIGS, *APP_CONFIGS, *(f"{NUXT_ORIGINAL}.{e}" for e in ("ts", "js", "mjs"))):
        try:
            found = _PRESET.search((root / name).read_text(errors="replace"))
        except OSError:
            continue
        if found and found.group(1) not in ("node-server", "node", "node-cluster", ""):
            return found.group(1)
    return None


ASTRO_ADAPTERS = ("@astrojs/node", "@astrojs/vercel", "@astrojs/netlify", "@astrojs/cloudflare", "@deno/astro-adapter")


def first(root: pathlib.Path, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if (root / n).is_file()), None)


def installed(app: pathlib.Path, rel: str, top: pathlib.Path | None = None) -> str:
    """``rel`` ("node_modules/vite/bin/vite.js") as Node resolves it from ``app``: in the
    app's node_modules, else in a folder above it up to ``top`` (a workspace's root,
    where its manager hoisted the package); ``rel`` itself when neither has it."""
    folder = app
    while True:
        if (folder / rel).exists():
            return rel if folder == app else str(folder / rel)
        if top is None or folder == top or folder.parent == folder:
            return rel
        folder = folder.parent


def installed_major(root: pathlib.Path, package: str, top: pathlib.Path | None = None) -> int | None:
    """Major version of ``package`` in the app's node_modules, or a workspace's up to
    ``top`` (after install)."""
    try:
        path = installed(root, f"node_modules/{package}/package.json", top)
        version = json.loads((root / path).read_bytes())["version"]
        return int(str(version).split(".")[0])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _js(name: str) -> str:
    return str(JS_DIR / name)


def recipe(framework: str, root: pathlib.Path, node: str, top: pathlib.Path | None = None) -> Recipe:
    """The recipe for ``framework`` in the installed app copy at ``root`` (in a
    workspace whose root is ``top``)."""
    if framework == "vite":
        return _vite(root, node)
    if framework == "cra":
        return _cra(node)
    if framework == "next":
        return _next(root, node, top)
    if framework == "astro":
        return _astro(root, node)
    if framework == "angular":
        return _angular(node)
    if framework == "nuxt":
        return _nuxt(root, node)
    if framework == "solid-start":
        return _solid_start(root, node)
    if framework == "qwik":
        built = _vite(root, node, framework, "dist", (_js("qwik-build.mjs"), "node_modules/vite/bin/vite.js"))
        return dataclasses.replace(built, note=QWIK_NOTE)
    if framework == "sveltekit":
        return _vite(root, node, framework="sveltekit", output="build")
    if framework == "react-router":
        return _vite(root, node, framework, "build/client", ("node_modules/@react-router/dev/bin.js", "build"))
    if framework == "remix":
        return _vite(root, node, framework, "build/client", ("node_modules/@remix-run/dev/dist/cli.js", "vite:build"))
    raise ValueError(f"no build recipe for framework {framework!r}")


def _vite(root: pathlib.Path, node: str, framework: str = "vite", output: str = "dist",
          vite: tuple[str, ...] = ("node_modules/vite/bin/vite.js", "build")) -> Recipe:
    """A Vite build, or a framework's CLI that builds with Vite and takes ``--config``:
    SvelteKit (``vite build``), React Router (``react-router build``), Remix
    (``remix vite:build``), Qwik (js/qwik-build.mjs: client and preview server); their
    server-side modules are counted too."""
    shim = (f"import {{ loadConfigFromFile }} from 'vite'\n"
            f"import config from {json.dumps(_js('vite-config.mjs'))}\n"
            f"export default (env) => config(env, loadConfigFromFile)\n")
    config = first(root, VITE_CONFIGS) or ""
    name = f"{IWC_PREFIX}vite.config.mjs"
    env = {"IWC_APP_CONFIG": config}
    if framework in SERVER_COUNTED:
        env["IWC_SERVER_COVERAGE"] = "1"
    return Recipe(
        framework=framework,
        instrumented=Step((node, *vite, "--config", name), env, {name: shim}, {}),
        plain=Step((node, *vite), {}, {}, {}),
        output=output,
    )


def _cra(node: str) -> Recipe:
    # CI=true turns CRA's lint warnings into errors (and CI sets it); ESLint is not
    # what we evaluate, and it doubles the build time.
    env = {"CI": "false", "BROWSER": "none", "DISABLE_ESLINT_PLUGIN": "true",
           "GENERATE_SOURCEMAP": "true", "INLINE_RUNTIME_CHUNK": "false"}
    return Recipe(
        framework="cra",
        instrumented=Step((node, _js("cra-build.cjs")), env, {}, {}),
        plain=Step((node, "node_modules/react-scripts/bin/react-scripts.js", "build"), env, {}, {}),
        output="build",
    )


def _next(root: pathlib.Path, node: str, top: pathlib.Path | None = None) -> Recipe:
    original = first(root, NEXT_CONFIGS)
    renames: dict[str, str] = {}
    shim_name = "next.config.mjs"
    if original:
        ext = original.rsplit(".", 1)[-1]
        renames = {original: f"{NEXT_ORIGINAL}.{ext}"}
        importing = (f"import user from './{NEXT_ORIGINAL}.{ext}'\n")
        if ext in ("ts", "mts"):
            # Node cannot import TypeScript: Next.js compiles a next.config.ts itself, and
            # what it imports (create-next-app writes next.config.ts); the project's type
            # check reads the shim too, and our wrapper has no types
            shim_name = f"next.config.{ext}"
            importing = f"// @ts-nocheck\nimport user from './{NEXT_ORIGINAL}'\n"
    else:
        importing = "const user = {}\n"
    shim = (importing
            + f"import config from {json.dumps(_js('next-config.mjs'))}\n"
            + "export default (phase, context) => config(user, phase, context)\n")
    argv = [node, "node_modules/next/dist/bin/next", "build"]
    env = {"NEXT_TELEMETRY_DISABLED": "1", "IWC_NEXT_EXPORT": "1"}
    if (installed_major(root, "next", top) or 0) >= 16:
        argv.append("--webpack")  # Turbopack, the default from 16 on, ignores webpack rules
        env["IWC_NEXT_WEBPACK_FORCED"] = "1"  # next-config.mjs: the app's Turbopack loaders for webpack
    files = {shim_name: shim}
    offline = {"NEXT_FONT_GOOGLE_MOCKED_RESPONSES": _js("next-fonts.cjs")}
    server = {**env, "IWC_NEXT_EXPORT": "0"}
    return Recipe(
        framework="next",
        instrumented=Step(tuple(argv), {**env, "IWC_INSTRUMENT": "1"}, files, renames, offline),
        plain=Step(tuple(argv), {**env, "IWC_INSTRUMENT": "0"}, files, renames, offline),
        output="out",
        server=Step(tuple(argv), {**server, "IWC_INSTRUMENT": "1"}, files, renames, offline),
        plain_server=Step(tuple(argv), {**server, "IWC_INSTRUMENT": "0"}, files, renames, offline),
    )


def _astro(root: pathlib.Path, node: str) -> Recipe:
    config = first(root, ASTRO_CONFIGS)
    importing = f"import user from './{config}'\n" if config else "const user = {}\n"
    shim = (importing
            + f"import config from {json.dumps(_js('astro-config.mjs'))}\n"
            + "export default config(user)\n")
    name = f"{IWC_PREFIX}astro.config.mjs"
    astro = (node, "node_modules/astro/astro.js", "build")
    env = {"ASTRO_TELEMETRY_DISABLED": "1"}
    if (root / "node_modules" / "@astrojs" / "db").is_dir() or (root / "db" / "config.ts").is_file():
        # Astro DB builds against Astro Studio (a service) or a local file: a file of the app's copy
        env["ASTRO_DATABASE_FILE"] = str((root / ASTRO_DB_FILE).resolve())
    instrumented_env = {**env, "IWC_SERVER_COVERAGE": "1"}  # kept only for a server build (building.py)
    return Recipe(
        framework="astro",
        instrumented=Step((*astro, "--config", name), instrumented_env, {name: shim}, {}),
        plain=Step(astro, env, {}, {}),
        output="dist",
    )


ANGULAR_OUTPUT = "iwc-dist"  # --output-path: the application builder writes browser/ (and server/) in it


def _angular(node: str) -> Recipe:
    """The Angular CLI's build, with source maps (the counters' places are found
    through them) and js/angular-hook.cjs preloaded for the counters."""
    ng = ("node_modules/@angular/cli/bin/ng.js", "build", "--source-map", "--output-path", ANGULAR_OUTPUT)
    env = {"NG_CLI_ANALYTICS": "false", "NG_FORCE_TTY": "false"}
    return Recipe(
        framework="angular",
        instrumented=Step((node, "--require", _js("angular-hook.cjs"), *ng), env, {}, {}),
        plain=Step((node, *ng), env, {}, {}),
        output=f"{ANGULAR_OUTPUT}/browser",
    )


def _nuxt(root: pathlib.Path, node: str) -> Recipe:
    """Nuxt's build (Vite for the Vue app, Nitro's rollup for the server), the app's
    nuxt.config renamed beside a shim that hands it to js/nuxt-config.mjs; served by
    Nitro's server, whatever its output, as `nuxi build` ships it (server routes and all)."""
    original = first(root, NUXT_CONFIGS)
    ext = original.rsplit(".", 1)[-1] if original else "ts"
    renames = {original: f"{NUXT_ORIGINAL}.{ext}"} if original else {}
    importing = (f"// @ts-nocheck\nimport user from './{NUXT_ORIGINAL}'\n" if original
                 else "// @ts-nocheck\nconst user = {}\n")
    shim = (importing + f"import config from {json.dumps(_js('nuxt-config.mjs'))}\n"
            + "export default config(user)\n")
    nuxt = (node, "node_modules/nuxt/bin/nuxt.mjs", "build")
    env = {"NUXT_TELEMETRY_DISABLED": "1", "IWC_SERVER_COVERAGE": "1"}
    return Recipe(
        framework="nuxt",
        instrumented=Step(nuxt, env, {f"nuxt.config.{ext}": shim}, renames),
        plain=Step(nuxt, {"NUXT_TELEMETRY_DISABLED": "1"}, {}, {}),
        output=".output/public",
        server_only="a Nuxt app is served by its Nitro server (.output/server), as nuxi build ships it",
    )


def _solid_start(root: pathlib.Path, node: str) -> Recipe:
    """SolidStart's build (`vinxi build`, Vite for each router, Nitro for the server),
    given a config that imports the app's app.config and hands the Vinxi app to
    js/solidstart-config.mjs; served by Nitro's server, as Nuxt's is."""
    original = first(root, APP_CONFIGS)
    importing = (f"// @ts-nocheck\nimport app from './{original.rsplit('.', 1)[0]}'\n" if original
                 else "// @ts-nocheck\nimport { defineConfig } from '@solidjs/start/config'\nconst app = defineConfig({})\n")
    # Vinxi bundles its config file: ours is imported at run time by a name the bundler
    # cannot follow (bundled, it would look for its own modules beside the bundle)
    shim = (importing + "const { default: config } = await import(String(process.env.IWC_SOLIDSTART_CONFIG))\n"
            + "export default config(app)\n")
    name = f"{IWC_PREFIX}app.config.ts"
    vinxi = (node, "node_modules/vinxi/bin/cli.mjs", "build")
    env = {"IWC_SERVER_COVERAGE": "1", "IWC_SOLIDSTART_CONFIG": (JS_DIR / "solidstart-config.mjs").as_uri()}
    return Recipe(
        framework="solid-start",
        instrumented=Step((*vinxi, "--config", name), env, {name: shim}, {}),
        plain=Step(vinxi, {}, {}, {}),
        output=".output/public",
        server_only="a SolidStart app is served by its Nitro server (.output/server), as vinxi build ships it",
    )
