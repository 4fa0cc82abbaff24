"""The starters app generators begin from, past plain Vite: SvelteKit, React Router's
framework mode, Nuxt (each served by its own server) and Angular (static), built the
way ``iwc run`` builds them, with Istanbul, and used in Chromium.

For each fixture: every file of the app's own is a key, component templates included
(an Angular template's listeners are functions of the .html, on its lines); the files
only the app's server runs are marked ``side: server``; a server build is served by the
framework's own server through our port; a click runs a client function, a form or a
fetch runs the app's server code, and the server's counters for it are read from the
server (contracts/servers.COUNTERS_PATH), as the explorer reads them.

Each fixture is installed from the npm registry and built for real (slow: ``build``).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from iwcbench.pipeline.contracts import instrumented as contract
from iwcbench.pipeline.contracts import servers
from iwcbench.pipeline.stages import serving

pytestmark = [pytest.mark.build, pytest.mark.browser]

READ = "() => JSON.parse(JSON.stringify(window.__coverage__ || {}))"

OWN = {
    "sveltekit": {"src/lib/filter.ts", "src/lib/server/tasks.ts", "src/routes/+page.server.ts",
                  "src/routes/+page.svelte", "src/routes/stats/+page.server.ts", "src/routes/stats/+page.svelte",
                  "src/routes/stats/Meter.svelte"},
    "react-router": {"app/root.tsx", "app/routes/home.tsx", "app/routes/stats.tsx", "app/tasks.server.ts"},
    "angular": {"src/main.ts", "src/app/app.ts", "src/app/app.html", "src/app/tasks.ts"},
    "nuxt": {"app/pages/index.vue", "server/api/tasks.get.ts", "server/api/tasks.post.ts", "server/utils/store.ts"},
}
SERVER_ONLY = {
    "sveltekit": {"src/lib/server/tasks.ts", "src/routes/+page.server.ts", "src/routes/stats/+page.server.ts"},
    "react-router": {"app/tasks.server.ts"},
    "angular": set(),
    "nuxt": {"server/api/tasks.get.ts", "server/api/tasks.post.ts", "server/utils/store.ts"},
}
SERVER = {"sveltekit": "SvelteKit's own server (vite preview)", "react-router": "@react-router/serve",
          "nuxt": "Nuxt's Nitro server"}
# (key, function name or None for an anonymous one, the text its line starts with)
PLACES = {
    "sveltekit": [("src/lib/server/tasks.ts", "add", "export function add(title: string): string | null {"),
                  ("src/routes/+page.svelte", "show", "function show(next: Filter) {"),
                  ("src/routes/+page.svelte", None, "<button type=\"button\" onclick={() => show('open')}>Open</button>"),
                  ("src/routes/stats/Meter.svelte", "flip", "function flip() {"),  # Svelte 4's syntax
                  ("src/routes/stats/Meter.svelte", None,
                   "<button type=\"button\" on:click={() => (detailed = false)}>Reset</button>")],
    "react-router": [("app/tasks.server.ts", "add", "export function add(title: string): string | null {"),
                     ("app/routes/home.tsx", "action", "export async function action({ request }: { request: Request }) {")],
    "angular": [("src/app/app.html", None, '<button type="button" (click)="add()">Add</button>'),
                ("src/app/app.html", None, '<li [class.done]="task.done" (click)="toggle(task.id)">{{ task.title }}</li>'),
                ("src/app/tasks.ts", "summary", "export function summary(tasks: Task[]): string {")],
    "nuxt": [("server/utils/store.ts", "addTask", "export function addTask(title: string): Task | null {"),
             ("app/pages/index.vue", "add", "async function add() {")],
}
# what a user does, and a function of the browser's and one of the server's it runs
USE = {
    "sveltekit": ("src/routes/+page.svelte", "show", "src/lib/server/tasks.ts", "add"),
    "react-router": ("app/routes/home.tsx", None, "app/tasks.server.ts", "add"),
    "angular": ("src/app/app.ts", None, None, None),
    "nuxt": ("app/pages/index.vue", "add", "server/utils/store.ts", "addTask"),
}


@pytest.mark.parametrize("name", list(OWN))
def test_every_file_is_counted_on_its_lines_and_the_servers_are_marked(instrumented, name):
    bundle, site, _ = instrumented(name)
    report = bundle.report
    assert report.build is not None and report.build.framework == name
    assert report.build.result == "instrumented", report.build.reason + "\n" + report.build.log_tail
    assert set(bundle.coverage_map) == OWN[name], report.skipped
    assert contract.server_keys(bundle.coverage_map) == SERVER_ONLY[name]
    assert {f.path for f in report.files if f.side == "server"} == SERVER_ONLY[name]
    for key, fn_name, text in PLACES[name]:
        lines = bundle.sources[key].splitlines()
        starts = [(fn["name"], lines[fn["loc"]["start"]["line"] - 1].strip())
                  for fn in bundle.coverage_map[key]["fnMap"].values()]
        assert any(text.startswith(line) or line.startswith(text) for n, line in starts
                   if fn_name is None or n == fn_name), (key, fn_name, starts)
    if name in SERVER:
        marker = servers.ServerBuild.model_validate_json((site / servers.MARKER).read_text())
        assert marker.framework == name and f"built for and served by {SERVER[name]}" in report.build.reason
    else:
        assert not (site / servers.MARKER).exists() and (site / "index.html").is_file()


def _act(page, name: str) -> None:
    """Add a task through the app's own form, as a user would."""
    if name == "sveltekit":
        page.get_by_role("button", name="Open").click()
        page.fill("input[name=title]", "Water the plants")
        page.get_by_role("button", name="Add").click()
    elif name == "react-router":
        page.get_by_role("button", name="Open").click()
        page.fill("input[name=title]", "Water the plants")
        page.get_by_role("button", name="Add").click()
        page.get_by_role("button", name="All").click()
    else:
        page.fill("input[placeholder='What needs doing?']", "Water the plants")
        page.get_by_role("button", name="Add").click()
    page.get_by_text("Water the plants").wait_for()


def _ran(coverage: dict, key: str, fn_name: str | None) -> bool:
    fc = coverage.get(key) or {}
    return any(fc["f"][fid] > 0 for fid, fn in fc.get("fnMap", {}).items() if fn_name is None or fn["name"] == fn_name)


@pytest.mark.parametrize("name", list(OWN))
def test_a_user_s_click_and_the_server_code_it_runs_are_both_counted(instrumented, page, name):
    bundle, site, _ = instrumented(name)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    with serving.serve(site) as served:
        page.goto(serving.start_url(served.url, bundle.report.entry))
        _act(page, name)
        page.wait_for_timeout(300)
        browser = page.evaluate(READ)
        try:
            with urllib.request.urlopen(served.url.rstrip("/") + servers.COUNTERS_PATH, timeout=10) as answer:
                server = json.loads(answer.read())
        except urllib.error.HTTPError as error:
            server = error.code
    assert errors == []
    client_key, client_fn, server_key, server_fn = USE[name]
    assert _ran(browser, client_key, client_fn), browser.get(client_key)
    if server_key is None:
        assert server == 404  # a static site has no server of its own to ask
        return
    assert _ran(server, server_key, server_fn), server.get(server_key)
    assert set(server) <= set(bundle.coverage_map)
