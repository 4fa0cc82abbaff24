"""Every way a build can fail ends in a result with a reason a user can act on."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest

from fakes import npm_registry

from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.stages.instrumenting import building

pytestmark = pytest.mark.build

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "frameworks"


def test_an_app_without_a_lockfile_is_installed_from_its_ranges_and_says_so(built):
    result = built("failures/no-lockfile", "vite")
    assert result.report.result == "instrumented" and (result.site / "index.html").is_file(), result.report.reason
    assert result.report.reason.startswith("missing lockfile: package.json without package-lock.json"), \
        result.report.reason
    assert "installed with npm install" in result.report.reason and result.report.install_s > 0


def test_an_app_without_a_lockfile_is_refused_when_lockfiles_are_required(built):
    result = built("failures/no-lockfile", "vite", require_lockfile=True)
    assert result.report.result == "failed" and result.site is None
    assert result.report.reason.startswith("missing lockfile")
    assert result.report.install_s == 0  # refused before npm ran


def test_a_dependency_from_a_git_repository_is_refused_before_installing(built):
    result = built("failures/off-registry", "vite")
    assert result.report.result == "failed" and result.report.cause == "environment"
    assert result.report.reason == ("dependency not on the registry: tiny-date-format from "
                                    "git+ssh://git@github.com/example-org/tiny-date-format.git"
                                    "#3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b")


def test_a_package_the_registry_does_not_have_is_named(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    with npm_registry.running([npm_registry.Package("present", "1.0.0", {"index.js": "module.exports = 1"})]) as reg:
        (app / "package.json").write_text(json.dumps({"name": "a", "dependencies": {"present": "1.0.0",
                                                                                      "@acme/absent": "1.0.0"}}))
        entries = {f"node_modules/{name}": {"version": "1.0.0", "resolved": f"{reg.url}/{name}/-/x-1.0.0.tgz"}
                   for name in ("present", "@acme/absent")}
        (app / "package-lock.json").write_text(json.dumps({
            "name": "a", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": "a", "dependencies": {"present": "1.0.0", "@acme/absent": "1.0.0"}},
                         **entries}}))
        result = building.build(app, tmp_path / "work", "vite", settings.Build(
            registry=reg.url, npm_cache_dir=str(tmp_path / "cache"), install_timeout_s=60))
    assert result.report.result == "failed" and result.report.cause == "app"  # a package nobody publishes
    assert result.report.reason == "dependency not on the registry: @acme/absent (npm: 404 Not Found)"
    assert "E404" in result.report.log_tail


def test_a_build_that_fetches_from_a_web_service_is_told_builds_have_no_network(built):
    result = built("failures/network-build", "vite")
    assert result.report.result == "failed" and result.report.cause == "environment"
    assert result.report.network_isolated
    assert result.report.reason == "build needs a network service (fetch failed), and builds have no network"
    assert "fetch failed" in result.report.log_tail


def test_a_build_over_its_time_limit_is_stopped(built):
    result = built("failures/slow-build", "vite", build_timeout_s=5)
    assert result.report.result == "failed" and result.report.cause == "app"
    assert result.report.reason == "build over its time limit (5 s)"
    assert 10 <= result.report.build_s < 30  # the instrumented and the plain attempt, 5 s each


def test_an_app_whose_instrumented_build_fails_is_built_plain_and_runs_as_a_black_box(built):
    result = built("failures/budget", "vite")
    assert result.report.result == "plain"
    assert (result.site / "index.html").is_file() and result.coverage_map == {}
    assert result.report.reason.startswith("instrumented build failed (exit 1): error during build: "
                                           "[size-budget]")
    assert result.report.reason.endswith("; built without Istanbul instead (black box)")
    assert "budget 150000" in result.report.log_tail


@pytest.mark.browser
@pytest.mark.node
def test_an_app_that_cannot_be_built_here_is_not_runnable_and_has_its_source_scored(tmp_path):
    # the last rung of the ladder: no build, because builds have no network here. Not the
    # model's fault: not_runnable, no floors, and WebCoderBench's static metrics read its
    # source as submitted
    from fakes import runs

    from iwcbench.pipeline.runs import local

    shutil.copytree(FIXTURES / "failures" / "network-build", tmp_path / "apps" / "m" / "t1")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "prompt": "A task list."}) + "\n")
    config = runs.quick_settings(tasks, tmp_path / "apps", tmp_path / "out", tmp_path / "mirror", workers=1,
                                 quality={}).model_copy(update={"build": settings.Build(
                                     npm_cache_dir=os.environ.get("IWC_TEST_NPM_CACHE") or str(building.default_cache_dir()))})
    (app,) = local.execute(config).apps
    assert app.outcome == "not_runnable" and app.reason.startswith("not runnable here: build needs a network")
    assert "its source as submitted was scored on" in app.reason, app.reason
    for name in ("wcb_linting", "wcb_comments", "wcb_redundancy", "wcb_error_handling"):
        score = app.scores[name]
        assert score.value is not None and not score.reason.startswith("floor"), (name, score.reason)
    # what needs the page running is unscored, never a floor
    assert app.scores["states"].value is None and app.scores["states"].status == "unscored", app.scores["states"]
    assert app.scores["states"].reason.startswith("not scored: not runnable here")
    # the WebCoderBench metrics that need its page say why they have no value (not "not selected")
    assert app.scores["wcb_performance"].status == "unscored", app.scores.get("wcb_performance")
    assert app.scores["wcb_performance"].reason.startswith("not scored: not runnable here")
    stored = json.loads((tmp_path / "out" / app.evidence / "quality.json").read_text())
    assert "static-tools" in stored["tools"]
