"""What instrument.js, sites.js, facts.js and vendor.js write is what
contracts/instrumented.py declares (real Node, real Istanbul): every file of the
metadata folder is checked when instrumenting reads it back, so a change on the
JavaScript side that Python does not expect fails here, naming the file and field."""

from __future__ import annotations

import json
import shutil

import pytest

from iwcbench.pipeline.contracts import instrumented, settings
from iwcbench.pipeline.stages import instrumenting

GAME = ("const KEYS = ['ArrowUp', 'ArrowDown', 'ArrowLeft'];\nconst held = {};\n"
        "document.addEventListener('keydown', (e) => { held[e.key] = true; if (e.ctrlKey && e.key === 'z') undo(); });\n"
        "function undo() { document.title = 'undone'; }\nsetTimeout(undo, 500);\n")
BANNER = "/*!\n * Tinychart v2.3.1\n * Released under the MIT License\n */\nfunction chart() { return 3; }\n"


def _bundle(src, dest) -> instrumented.Instrumented:
    return instrumenting.instrument(src, dest, settings.Instrumentation())


def test_the_files_of_a_static_app_fit_their_declarations(app, fixture_app, tmp_path):
    src = app({"index.html": '<button onclick="undo()">undo</button><script src="game.js"></script>'
                             '<script src="chart.js"></script><script>let n = 0; if (n) { n++; }</script>',
               "game.js": GAME, "chart.js": BANNER})
    done = _bundle(src, tmp_path / "site")
    assert done.report.mode == "instrumented" and done.measured
    keys = {"game.js", "chart.js", "index.html#inline-1", "index.html#handlers"}
    assert set(done.coverage_map) == keys and set(done.sources) == keys
    assert set(done.sites) >= {"game.js", "index.html#handlers"}
    assert isinstance(done.sites["index.html#handlers"], list)  # one entry per handler attribute
    assert ("z", ["Control"]) in [(k.key, list(k.mods)) for k in done.facts["game.js"].keys]
    assert set(done.vendored) == {"chart.js"}
    assert set(done.originals) == {"index.html", "game.js", "chart.js"}
    meta = tmp_path / "site" / instrumented.FOLDER
    for file in instrumented.FILES:  # each file on disk, checked on its own
        instrumented.parse(file, (meta / file.name).read_bytes())
    # the bundle read back from a folder moved out of the site is the same bundle
    shutil.move(str(meta), str(tmp_path / "moved"))
    assert instrumenting.load(tmp_path / "moved", done.report) == done


def test_the_files_of_a_built_site_fit_their_declarations(fixture_app, tmp_path):
    done = _bundle(fixture_app("vite-prebuilt"), tmp_path / "site")
    assert done.measured and set(done.sites) == set(done.coverage_map)


def test_a_black_box_app_has_an_empty_bundle(fixture_app, tmp_path):
    done = _bundle(fixture_app("broken"), tmp_path / "site")
    assert done.report.mode == "black_box" and not done.measured
    assert (done.sites, done.facts, done.vendored, done.originals) == ({}, {}, {}, {})


def test_a_file_in_another_shape_is_drift_naming_the_file_and_the_field(app, tmp_path):
    done = _bundle(app({"index.html": '<script src="game.js"></script>', "game.js": GAME}), tmp_path / "site")
    meta = tmp_path / "site" / instrumented.FOLDER
    facts = json.loads((meta / instrumented.FACTS.name).read_text())
    facts["game.js"]["keys"][0]["modifiers"] = facts["game.js"]["keys"][0].pop("mods")  # a rename in facts.js
    (meta / instrumented.FACTS.name).write_text(json.dumps(facts))
    with pytest.raises(instrumented.Drift, match=r"code-facts.json .*game\.js\.keys\.0\.(mods|modifiers)"):
        instrumenting.load(meta, done.report)
