"""The framework is read from package.json dependencies and config files."""

from __future__ import annotations

import json

import pytest

from iwcbench.pipeline.stages.instrumenting import surveying


def _pkg(deps: dict, dev: dict | None = None) -> str:
    return json.dumps({"name": "x", "dependencies": deps, "devDependencies": dev or {}})


@pytest.mark.parametrize(("files", "expected"), [
    ({"index.html": "<p>hi</p>"}, "static"),
    ({"package.json": _pkg({"express": "4"}), "server.js": ""}, "node"),
    ({"package.json": _pkg({"react": "18"}, {"vite": "5"})}, "vite"),
    ({"vite.config.ts": "export default {}", "index.html": ""}, "vite"),
    ({"package.json": _pkg({"next": "14", "react": "18"})}, "next"),
    ({"next.config.mjs": ""}, "next"),
    ({"package.json": _pkg({"react-scripts": "5"})}, "cra"),
    ({"package.json": _pkg({}, {"astro": "4"})}, "astro"),
    ({"astro.config.mjs": ""}, "astro"),
    ({"package.json": _pkg({}, {"@sveltejs/kit": "2", "svelte": "5", "vite": "7"})}, "sveltekit"),
    ({"package.json": _pkg({"react-router": "7"}, {"@react-router/dev": "7", "vite": "7"})}, "react-router"),
    ({"package.json": _pkg({"@remix-run/react": "2"}, {"@remix-run/dev": "2", "vite": "5"})}, "remix"),
    ({"package.json": _pkg({"@remix-run/react": "2"}, {"@remix-run/dev": "2"})}, "node"),  # its classic compiler
    ({"package.json": _pkg({"@angular/core": "21"}, {"@angular/build": "21", "@angular/cli": "21"})}, "angular"),
    ({"package.json": _pkg({"@angular/core": "17"}, {"@angular-devkit/build-angular": "17"})}, "angular"),
    ({"package.json": _pkg({"@solidjs/start": "1", "solid-js": "1", "vinxi": "0.5"})}, "solid-start"),
    ({"package.json": _pkg({"nuxt": "4", "vue": "3"})}, "nuxt"),
    ({"package.json": _pkg({"@builder.io/qwik": "1", "@builder.io/qwik-city": "1"}, {"vite": "5"})}, "qwik"),
    ({"package.json": "{not json", "index.html": ""}, "unknown"),
    ({"package.json": "[1, 2]"}, "node"),
])
def test_framework_is_detected(app, files, expected):
    assert surveying.detect_framework(app(files)) == expected


def test_a_prebuilt_folder_is_found_only_with_a_start_page(app):
    assert surveying.prebuilt_folder(app({"dist/index.html": "", "src/main.jsx": ""})) == "dist"
    assert surveying.prebuilt_folder(app({"build/index.html": ""})) == "build"
    assert surveying.prebuilt_folder(app({"out/index.html": ""})) == "out"
    assert surveying.prebuilt_folder(app({"dist/assets/a.js": "", "index.html": ""})) is None
