"""Before installing, the stage says why an app cannot be installed from the registry."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.stages.instrumenting import failures as reasons

REGISTRY = "https://registry.npmjs.org"
MIRROR = "https://npm-mirror.internal.example"


@pytest.fixture()
def app(tmp_path):
    def make(files: dict[str, object]):
        for rel, content in files.items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content if isinstance(content, str) else json.dumps(content))
        return tmp_path
    return make


def lock(packages: dict[str, dict]) -> dict:
    return {"name": "a", "lockfileVersion": 3, "packages": {"": {"name": "a"}, **packages}}


def test_an_app_without_a_lockfile_is_refused_with_that_reason(app):
    root = app({"package.json": {"dependencies": {"react": "^18"}}})
    assert reasons.lockfile_problem(root, REGISTRY).startswith("missing lockfile: package.json without")


def test_a_yarn_1_app_is_installed_from_its_lockfile_and_a_yarn_berry_one_is_told_it_is_not(app):
    assert reasons.lockfile_problem(app({"package.json": {}, "yarn.lock": "# yarn lockfile v1\n"}), REGISTRY) is None
    berry = app({"package.json": {}, "yarn.lock": "__metadata:\n  version: 8\n"})
    problem = reasons.lockfile_problem(berry, REGISTRY)
    assert problem.startswith("missing lockfile") and "yarn.lock" in problem


def test_registry_packages_pass_also_when_installing_from_a_mirror(app):
    root = app({"package-lock.json": lock({
        "node_modules/react": {"version": "18.3.1", "resolved": f"{REGISTRY}/react/-/react-18.3.1.tgz"},
        "node_modules/vite": {"version": "6.0.0"},  # npm 11 may leave "resolved" out
        "node_modules/@scope/x": {"version": "1.0.0", "resolved": f"{MIRROR}/@scope/x/-/x-1.0.0.tgz"},
    })})
    assert reasons.lockfile_problem(root, MIRROR) is None  # npm rewrites the npmjs host to the mirror
    assert reasons.lockfile_problem(root, REGISTRY) == \
        f"dependency not on the registry: @scope/x from {MIRROR}/@scope/x/-/x-1.0.0.tgz"


def test_git_tarball_and_outside_folder_dependencies_are_named(app):
    root = app({"package-lock.json": lock({
        "node_modules/a": {"version": "1.0.0", "resolved": "git+ssh://git@github.com/o/a.git#abc"},
        "node_modules/b": {"version": "1.0.0", "resolved": "https://codeload.github.com/o/b/tar.gz/main"},
        "node_modules/c": {"resolved": "../shared/c", "link": True},
        "../shared/c": {"version": "1.0.0"},
        "node_modules/d": {"resolved": "packages/d", "link": True},  # a workspace inside the app
        "node_modules/e": {"version": "1.0.0", "resolved": "https://registry.yarnpkg.com/e/-/e-1.0.0.tgz"},
    })})
    problem = reasons.lockfile_problem(root, REGISTRY)
    assert problem.startswith("dependency not on the registry: a from git+ssh://git@github.com/o/a.git#abc; "
                              "b from https://codeload.github.com/o/b/tar.gz/main; c from a folder outside")
    assert problem.endswith("and 1 more")  # e, from a registry npm does not rewrite
    assert "d from" not in problem


def test_version_1_lockfiles_are_checked_too(app):
    root = app({"package-lock.json": {"lockfileVersion": 1, "dependencies": {
        "ok": {"version": "1.0.0", "resolved": f"{REGISTRY}/ok/-/ok-1.0.0.tgz",
               "dependencies": {"nested": {"version": "github:o/nested#v1"}}},
    }}})
    assert reasons.lockfile_problem(root, REGISTRY) == "dependency not on the registry: nested from github:o/nested#v1"


def test_an_unreadable_lockfile_says_so(app):
    root = app({"package-lock.json": "{not json"})
    assert reasons.lockfile_problem(root, REGISTRY).startswith("unreadable lockfile package-lock.json")
