"""An app in a framework or layout the build step does not build is told apart before
anything is installed: its report is a failed build that is this environment's gap,
named for the framework; a framework the build step does build is never caught."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages import instrumenting
from iwcbench.pipeline.stages.instrumenting import surveying, unsupported


def _pkg(dev: dict, **fields) -> str:
    return json.dumps({"name": "x", "private": True, "devDependencies": dev, **fields})


# what each framework's own starter writes (trimmed to the files that tell it apart)
UNSUPPORTED = {
    "Angular without its CLI's builders": {
        "package.json": json.dumps({"name": "x", "dependencies": {"@angular/core": "^18.2"},
                                    "devDependencies": {"@nx/angular": "^19"}}),
        "angular.json": "{}", "src/index.html": "<app-root></app-root>", "src/main.ts": ""},
    "Remix's classic compiler": {"package.json": _pkg({"@remix-run/dev": "^1.19", "@remix-run/react": "^1.19"}),
                                 "remix.config.js": "module.exports = {}", "app/root.tsx": ""},
    "SolidStart before 1.0": {"package.json": _pkg({"solid-start": "^0.2.0", "solid-js": "^1.6", "vite": "^3.1"}),
                             "vite.config.js": "export default {}"},
    "Gatsby": {"package.json": _pkg({"gatsby": "^5.13", "react": "^18"}), "gatsby-config.js": ""},
    "Vue CLI": {"package.json": _pkg({"@vue/cli-service": "~5.0", "vue": "^3"}), "public/index.html": ""},
    "Gatsby, in a workspace's apps/web": {"package.json": _pkg({"turbo": "^2"}, workspaces=["apps/*"]),
                                          "apps/web/package.json": _pkg({"gatsby": "^5.13"}),
                                          "apps/web/src/pages/index.js": ""},
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_an_unsupported_framework_is_a_failed_build_of_ours_named_for_it_before_anything_runs(app, tmp_path, name):
    # build settings that would install and build: nothing may run (no Node here: the
    # quick tier fails a test that starts it)
    done = instrumenting.instrument(app(UNSUPPORTED[name]), tmp_path / "site", settings.Instrumentation(),
                                    settings.Build())
    report = done.report
    assert report.build is not None, report.reason
    assert (report.build.result, report.build.cause) == ("failed", "environment"), report.build
    assert report.build.reason.startswith(f"{name.split(',')[0]} ("), report.build.reason
    assert "is not supported by the build step" in report.build.reason
    assert (report.build.install_s, report.build.build_s) == (0, 0)
    assert report.mode == "black_box" and report.files == ()


@pytest.mark.parametrize(("name", "sign"), [
    ("Gatsby", "gatsby in package.json"),
    ("Angular without its CLI's builders", "angular.json"),
    ("Gatsby, in a workspace's apps/web", "gatsby in apps/web/package.json"),
])
def test_the_reason_says_what_recognised_it(app, name, sign):
    found = unsupported.recognise(app(UNSUPPORTED[name]), surveying.built_by)
    assert found is not None and found.sign == sign


# apps the build step builds or serves as they are: none of them is caught
SUPPORTED = {
    "SolidStart 1.x": {"package.json": _pkg({"@solidjs/start": "^1.0", "solid-js": "^1.9", "vinxi": "^0.4"})},
    "Qwik": {"package.json": _pkg({"@builder.io/qwik": "^1.9", "@builder.io/qwik-city": "^1.9", "vite": "^5"}),
             "vite.config.ts": "export default {}"},
    "Nuxt": {"package.json": _pkg({"nuxt": "^3.13", "vue": "^3.5"}), "nuxt.config.ts": "export default {}",
             "app.vue": "<template><div/></template>"},
    "SvelteKit": {"package.json": _pkg({"@sveltejs/kit": "^2.5", "@sveltejs/adapter-auto": "^3", "svelte": "^5",
                                        "vite": "^5.4"}),
                  "vite.config.js": "export default {}", "src/routes/+page.svelte": "<h1>Todos</h1>"},
    "Angular CLI": {"package.json": json.dumps({"name": "x", "dependencies": {"@angular/core": "^21.2"},
                                                "devDependencies": {"@angular/cli": "^21.2", "@angular/build": "^21.2"}}),
                    "angular.json": "{}", "src/index.html": "<app-root></app-root>"},
    "React Router (framework mode)": {"package.json": _pkg({"@react-router/dev": "^7.1", "react-router": "^7.1",
                                                            "vite": "^6"}),
                                      "react-router.config.ts": "export default {}"},
    "Remix on Vite": {"package.json": _pkg({"@remix-run/dev": "^2.12", "@remix-run/react": "^2.12", "vite": "^5"}),
                      "vite.config.ts": "export default {}", "app/root.tsx": ""},
    "Svelte + Vite": {"package.json": _pkg({"svelte": "^5", "@sveltejs/vite-plugin-svelte": "^4", "vite": "^5"}),
                      "svelte.config.js": "export default {}", "index.html": ""},
    "Vue + Vite": {"package.json": _pkg({"vue": "^3.5", "@vitejs/plugin-vue": "^5", "vite": "^5"}),
                   "index.html": ""},
    "Solid + Vite": {"package.json": _pkg({"solid-js": "^1.9", "vite-plugin-solid": "^2", "vite": "^5"})},
    "Preact + Vite": {"package.json": _pkg({"preact": "^10", "@preact/preset-vite": "^2", "vite": "^5"})},
    "React Router in a Vite SPA": {"package.json": _pkg({"react-router-dom": "^6", "vite": "^5"})},
    "Angular from a CDN": {"index.html": "<script src=https://cdn.jsdelivr.net/npm/@angular/core></script>"},
    "Next.js": {"package.json": _pkg({"next": "^15", "react": "^19"})},
    "a Vite app at the root of a workspace": {"package.json": _pkg({"vite": "^5"}, workspaces=["packages/*"]),
                                              "packages/ui/package.json": _pkg({"vite": "^5"})},
    "a static app in a subfolder": {"site/index.html": "<p>hi</p>", "site/app.js": ""},
    "a static page beside a Vite project": {"index.html": "<p>hi</p>", "web/package.json": _pkg({"vite": "^5"})},
    "an Express app": {"package.json": json.dumps({"dependencies": {"express": "^4"}}), "public/index.html": ""},
}


@pytest.mark.parametrize("name", sorted(SUPPORTED))
def test_a_supported_framework_is_never_caught(app, name):
    assert unsupported.recognise(app(SUPPORTED[name]), surveying.built_by) is None


def test_an_unsupported_app_that_ships_its_static_build_is_served_from_it(app, tmp_path):
    # as any framework's prebuilt folder is: there is nothing to build
    files = {**UNSUPPORTED["Gatsby"], "dist/index.html": "<p>Todos</p>"}
    site = tmp_path / "site"
    report = instrumenting.instrument(app(files), site, settings.Instrumentation(), settings.Build()).report
    assert report.build is None and report.entry == "index.html", report.reason
    assert (site / "index.html").read_text() == "<p>Todos</p>"


LAYOUTS = {
    "a workspace": {"package.json": _pkg({"turbo": "^2"}, workspaces=["apps/*", "packages/*"]),
                             "apps/web/package.json": _pkg({"vite": "^5", "react": "^18"}),
                             "apps/web/index.html": "<div id=root></div>", "packages/ui/package.json": _pkg({})},
    "a subfolder": {"README.md": "cd frontend && npm run build",
                              "frontend/package.json": _pkg({"vite": "^5", "react": "^18"}),
                              "frontend/index.html": "<script type=module src=/src/main.jsx></script>"},
}


@pytest.mark.parametrize(("name", "path", "framework", "workspace"), [
    ("a workspace", "apps/web", "vite", 'package.json "workspaces"'),
    ("a subfolder", "frontend", "vite", None),
])
def test_the_app_in_a_subfolder_is_found_for_the_build_step(app, name, path, framework, workspace):
    root = app(LAYOUTS[name])
    assert unsupported.recognise(root, surveying.built_by) is None
    found = unsupported.app_folder(root, surveying.built_by)
    assert found == unsupported.AppFolder(path, framework, workspace)
    assert path in found.note and ("workspace" in found.note) == (workspace is not None)


@pytest.mark.parametrize("name", sorted(SUPPORTED))
def test_an_app_at_the_root_or_with_no_project_below_it_has_no_app_folder(app, name):
    assert unsupported.app_folder(app(SUPPORTED[name]), surveying.built_by) is None
