"""Which builds an app gets: a static export first; for an app that needs its server
(the export says so, or leaves no index.html), a build for that server; then the same
without Istanbul. The steps here are scripted (no npm, no Node): what each "build"
prints and leaves behind is given, the ladder's decisions are the real ones."""

from __future__ import annotations

import json
import pathlib

import pytest

from iwcbench.pipeline.contracts import servers, settings
from iwcbench.pipeline.kits import processes
from iwcbench.pipeline.stages.instrumenting import building, recipes

EXPORT_ERROR = ('Error: Page with `dynamic = "force-dynamic"` couldn\'t be exported. `output: "export"` requires '
                'all pages be renderable statically. Learn more: https://nextjs.org/docs/messages/x')
SYNTAX_ERROR = "./components/Counter.jsx\nError: x Unexpected token `div`. Expected jsx identifier"
RECORD = {"key": "components/counting.js", "coverage": {"path": "components/counting.js"}, "source": "x"}


class Scripted(building._Runner):
    """A build runner whose steps do what ``plan`` says, in order: (failure or None, the
    log's tail, files the step leaves in the app's copy, whether it records coverage)."""

    def __init__(self, work: pathlib.Path, plan: list[tuple[str | None, str, tuple[str, ...], bool]]) -> None:
        app = work / building.APP
        app.mkdir(parents=True)
        super().__init__(work, app, settings.Build(npm_cache_dir=str(work / "cache")))
        self.plan = list(plan)
        self.ran: list[tuple[str, dict[str, str]]] = []

    def step(self, step: recipes.Step, name: str) -> str | None:
        self.ran.append((name, dict(step.env)))
        failure, tail, files, records = self.plan.pop(0)
        for rel in files:
            (self.app / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.app / rel).write_text("built")
        if records:
            (self.work / building.COVERAGE_OUT).mkdir(exist_ok=True)
            (self.work / building.COVERAGE_OUT / "r.json").write_text(json.dumps(RECORD))
        self.last_tail = tail
        return failure


@pytest.fixture(autouse=True)
def no_node_tools(monkeypatch, tmp_path):
    monkeypatch.setattr(processes, "node_tools_dir", lambda: tmp_path / "tools")


def climb(tmp_path, framework, plan, package=None):
    run = Scripted(tmp_path / "work", plan)
    if package:
        (run.app / "package.json").write_text(json.dumps(package))
    recipe = recipes.recipe(framework, run.app, "node")
    return building.ladder(run, recipe, framework), run


def test_a_next_app_whose_export_needs_a_server_is_built_for_it_with_istanbul(tmp_path):
    built, run = climb(tmp_path, "next", [
        ("instrumented build failed (exit 1)", EXPORT_ERROR, (), True),
        (None, "", (".next/BUILD_ID", ".next/static/chunks/page.js"), True),
    ])
    assert [name for name, _ in run.ran] == ["instrumented build", "instrumented server build"]
    assert run.ran[1][1]["IWC_NEXT_EXPORT"] == "0" and run.ran[1][1]["IWC_INSTRUMENT"] == "1"
    assert built.report.result == "instrumented" and built.server is not None and built.site == run.app
    assert built.report.reason.startswith(
        "built for and served by Next.js's own server, because Error: Page with `dynamic = \"force-dynamic\"` "
        "couldn't be exported.")
    assert "Learn more" not in built.report.reason
    assert built.report.reason.endswith("built with Istanbul: 1 source file of the app's own instrumented")
    assert built.server.client == {"_next/static": ".next/static", "": "public"}


def test_an_export_that_fails_for_another_reason_gets_no_server_build(tmp_path):
    built, run = climb(tmp_path, "next", [
        ("instrumented build failed (exit 1)", SYNTAX_ERROR, (), False),
        ("build failed (exit 1)", SYNTAX_ERROR, (), False),
    ])
    assert [name for name, _ in run.ran] == ["instrumented build", "build"]
    assert built.report.result == "failed" and built.server is None


def test_when_the_instrumented_server_build_fails_the_plain_one_is_served_as_a_black_box(tmp_path):
    built, run = climb(tmp_path, "next", [
        ("instrumented build failed (exit 1)", EXPORT_ERROR, (), False),
        ("instrumented server build failed (exit 1)", "Error: the loader broke", (), False),
        ("build failed (exit 1)", EXPORT_ERROR, (), False),
        (None, "", (".next/BUILD_ID",), False),
    ])
    assert [name for name, _ in run.ran] == ["instrumented build", "instrumented server build", "build",
                                             "server build"]
    assert run.ran[3][1]["IWC_INSTRUMENT"] == "0" and run.ran[3][1]["IWC_NEXT_EXPORT"] == "0"
    assert built.report.result == "plain" and built.server is not None
    assert "the instrumented server build failed: instrumented server build failed (exit 1)" in built.report.reason
    assert built.report.reason.endswith("built without Istanbul instead (black box)")


def test_a_static_export_that_works_is_served_as_files(tmp_path):
    built, run = climb(tmp_path, "next", [(None, "", ("out/index.html",), True)])
    assert [name for name, _ in run.ran] == ["instrumented build"]
    assert built.server is None and built.site == run.app / "out" and built.report.result == "instrumented"


def test_an_astro_server_build_is_the_apps_own_build_and_needs_no_second_one(tmp_path):
    built, run = climb(tmp_path, "astro", [(None, "", ("dist/server/entry.mjs", "dist/client/_astro/a.js"), True)])
    assert [name for name, _ in run.ran] == ["instrumented build"]
    assert built.server is not None and built.server.entry == "dist/server/entry.mjs"
    assert built.report.reason.startswith("built for and served by the @astrojs/node adapter, because its static "
                                          "build left no dist/index.html")


def test_an_astro_app_with_another_adapter_is_told_which_and_why(tmp_path):
    package = {"dependencies": {"astro": "^5.9.0", "@astrojs/vercel": "^8.0.0"}}
    built, run = climb(tmp_path, "astro", [(None, "", ("dist/client/a.js",), True),
                                           (None, "", ("dist/client/a.js",), False)], package)
    assert built.report.result == "failed" and built.server is None
    assert built.report.cause == "environment"  # a host's adapter: not runnable here, not the app's defect
    assert "its adapter @astrojs/vercel builds for its own host; only @astrojs/node's server can be run here" in \
        built.report.reason


def test_a_server_build_leaves_its_client_files_and_a_marker_in_the_site_folder(tmp_path):
    built, run = climb(tmp_path, "next", [
        ("instrumented build failed (exit 1)", EXPORT_ERROR, (), True),
        (None, "", (".next/BUILD_ID", ".next/static/chunks/page.js", "public/logo.svg"), True),
    ])
    site = tmp_path / "site"
    building.place_server_build(built, run.work, site, settings.Build(memory_mib=1024, cpu_s=99))
    marker = servers.ServerBuild.model_validate_json((site / servers.MARKER).read_text())
    assert (site / marker.app).resolve() == run.app.resolve() and not pathlib.Path(marker.app).is_absolute()
    assert (marker.framework, marker.memory_mib, marker.cpu_s) == ("next", 1024, 99)
    assert (site / "_next/static/chunks/page.js").is_file() and (site / "logo.svg").is_file()
    assert sorted(p.name for p in run.work.iterdir()) == [building.APP]  # the build's logs and home are gone
