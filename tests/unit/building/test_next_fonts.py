"""next/font/google offline: the families an app imports are found in its sources, their
@fontsource packages give the files, and a family without one keeps the stand-in."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

from iwcbench.pipeline.kits.mirror import npm
from iwcbench.pipeline.stages.instrumenting import fonts, recipes


def _app(tmp_path: pathlib.Path) -> pathlib.Path:
    app = tmp_path / "app"
    (app / "app").mkdir(parents=True)
    (app / "app" / "layout.tsx").write_text(
        "import { Inter, Roboto_Mono as Mono } from 'next/font/google'\n"
        "import {\n  Lobster,\n} from \"next/font/google\";\nconst inter = Inter({ subsets: ['latin'] })\n")
    (app / "node_modules" / "x").mkdir(parents=True)
    (app / "node_modules" / "x" / "i.js").write_text("import { Not_Ours } from 'next/font/google'\n")
    return app


def _package(root: pathlib.Path, stem: str, weights: tuple[int, ...]) -> pathlib.Path:
    files = root / "files"
    files.mkdir(parents=True)
    for w in weights:
        for style in ("normal", "italic"):
            (files / f"{stem}-latin-{w}-{style}.woff2").write_bytes(b"wOF2")
            (files / f"{stem}-latin-ext-{w}-{style}.woff2").write_bytes(b"wOF2")
    return root


def test_the_families_are_read_from_the_apps_own_sources(tmp_path):
    assert fonts.families(_app(tmp_path)) == ["Inter", "Lobster", "Roboto Mono"]
    assert fonts.package_of("Roboto Mono") == "@fontsource/roboto-mono"


def test_prepare_writes_what_each_family_was_given(tmp_path, monkeypatch):
    app = _app(tmp_path)
    inter = _package(tmp_path / "inter", "inter", (400, 700))

    def get(self, package, wanted):
        if package == "@fontsource/inter":
            return "5.3.0", inter
        raise npm.NotFound(f"{package} is not in the registry")
    monkeypatch.setattr(npm.Packages, "get", get)
    env = fonts.prepare(app, tmp_path, "http://127.0.0.1:9", tmp_path / "cache")
    manifest = json.loads(pathlib.Path(env[fonts.ENV]).read_text())
    assert manifest["Inter"]["package"] == "@fontsource/inter@5.3.0"
    assert sorted(manifest["Inter"]["files"]) == ["400-italic", "400-normal", "700-italic", "700-normal"]
    assert "not in the registry" in manifest["Lobster"]["missing"]
    assert fonts.prepare(tmp_path / "cache", tmp_path, "http://127.0.0.1:9", tmp_path / "c2") == {}


@pytest.mark.node
def test_the_stand_in_module_answers_with_the_fetched_files_and_else_the_local_font(tmp_path):
    inter = _package(tmp_path / "inter", "inter", (400, 700))
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"Inter": {"package": "@fontsource/inter@5.3.0", "files": fonts._files(inter)},
                                    "Lobster": {"missing": "none"}}))
    url = "https://fonts.googleapis.com/css2?family=Inter:wght@100..900&family=Lobster:wght@400&display=swap"
    script = f"const m = require({json.dumps(str(recipes.JS_DIR / 'next-fonts.cjs'))}); process.stdout.write(m[{json.dumps(url)}])"
    done = subprocess.run(["node", "-e", script], cwd=tmp_path, capture_output=True, text=True, timeout=30,
                          env={"IWC_NEXT_FONTS": str(manifest), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    css = done.stdout
    assert css.count("font-family: 'Inter'") == 2  # the range 100..900 gets the two weights the package has
    assert "inter-latin-400-normal.woff2) format('woff2')" in css and "inter-latin-700-normal.woff2" in css
    assert "latin-ext" not in css and "italic" not in css
    lobster = css[css.index("'Lobster'"):]
    assert "format('truetype')" in lobster or "local('sans-serif')" in lobster
    log = (tmp_path / recipes.NEXT_FONTS_LOG).read_text().splitlines()
    assert [line.split("\t")[1:] for line in log][0] == ["Inter", "@fontsource/inter@5.3.0"]
