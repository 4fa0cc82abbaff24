"""A failed install or build becomes one sentence a user can act on."""

from __future__ import annotations

import dataclasses

from iwcbench.pipeline.stages.instrumenting import failures as reasons


@dataclasses.dataclass
class Done:
    returncode: int | None = 1
    killed_for: str | None = None
    log_tail: str = ""


def test_limits_are_named_with_their_value():
    assert reasons.failure_reason("build", Done(None, "time"), 300, None) == "build over its time limit (300 s)"
    assert reasons.failure_reason("install", Done(None, "memory"), 1, 2 * 2**30) == \
        "install over its memory limit (2048 MiB)"
    assert reasons.failure_reason("build", Done(None, "disk"), 1, None) == "build over its disk limit"


def test_a_package_missing_from_the_registry_is_named():
    tail = ("npm error code E404\n"
            "npm error 404 Not Found - GET http://127.0.0.1:4873/@acme%2fwidgets - Not found\n"
            "npm error 404  '@acme/widgets@1.0.0' is not in this registry.")
    assert reasons.failure_reason("install", Done(log_tail=tail), 1, None) == \
        "dependency not on the registry: @acme/widgets (npm: 404 Not Found)"


def test_a_build_that_reaches_for_the_network_is_told_builds_have_none():
    tail = ("Failed to fetch font `Inter`.\nURL: https://fonts.googleapis.com/css2?family=Inter\n"
            "Error: getaddrinfo EAI_AGAIN fonts.googleapis.com")
    assert reasons.failure_reason("instrumented build", Done(log_tail=tail), 1, None) == \
        "instrumented build needs a network service (fonts.googleapis.com), and builds have no network"
    assert reasons.failure_reason("build", Done(log_tail="error during build:\nTypeError: fetch failed"), 1, None) \
        == "build needs a network service (fetch failed), and builds have no network"


def test_an_ordinary_failure_quotes_the_error_under_its_heading():
    tail = ("vite v6.4.6 building for production...\n✗ Build failed in 95ms\nerror during build:\n"
            "[vite:esbuild] Transform failed with 1 error:\n"
            '/app/src/App.jsx:3:7: ERROR: Expected ";" but found "x"\n    at failureErrorWithLog (x.js:1:1)\n')
    assert reasons.failure_reason("build", Done(log_tail=tail), 1, None) == \
        'build failed (exit 1): /app/src/App.jsx:3:7: ERROR: Expected ";" but found "x"'
    budget = "error during build:\n[size-budget] size budget: assets/index.js is 154763 bytes\n"
    assert reasons.failure_reason("build", Done(log_tail=budget), 1, None) == \
        "build failed (exit 1): error during build: [size-budget] size budget: assets/index.js is 154763 bytes"
    webpack = "Creating an optimized production build...\nFailed to compile.\n\nModule not found: Error: Can't resolve './x'"
    assert reasons.failure_reason("build", Done(2, log_tail=webpack), 1, None) == \
        "build failed (exit 2): Module not found: Error: Can't resolve './x'"


def test_only_this_environments_limits_make_an_app_not_runnable_here():
    here = [
        "dependency not on the registry: tiny-date-format from git+ssh://git@github.com/o/t.git#3f2a9c1",
        "dependency not on the registry: a from git+ssh://git@github.com/o/a.git#abc; b from https://h.example/b.tgz",
        "dependency not on the registry: a from github:o/a#v1; b from github:o/b#v1; c from github:o/c#v1 and 2 more",
        "build needs a network service (fetch failed), and builds have no network",
        "instrumented build failed (exit 1): x; without Istanbul: build needs a network service (api.example.com), "
        "and builds have no network",
        "build left no dist/index.html (its adapter @astrojs/vercel builds for its own host; only @astrojs/node's "
        "server can be run here)",
    ]
    apps = [
        "dependency not on the registry: @acme/absent (npm: 404 Not Found)",  # nobody publishes it
        "dependency not on the registry: no version matching react@99",
        "dependency not on the registry: x from a folder outside the app (../x)",  # the app is not whole
        "dependency not on the registry: a from github:o/a#v1; b from a folder outside the app (../b)",
        "missing lockfile: package.json without package-lock.json, so the dependency versions the app was built "
        "with are unknown",
        "build over its time limit (300 s)",
        "build failed (exit 1): Error: fetch is not defined in the docs' example",
    ]
    assert [r for r in here if not reasons.environment_caused(r)] == []
    assert [r for r in apps if reasons.environment_caused(r)] == []
