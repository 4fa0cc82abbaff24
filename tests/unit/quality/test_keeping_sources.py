"""Which files are the app's own code, and how pages split into code units."""

from __future__ import annotations

from iwcbench.pipeline.stages.quality import sources

PAGE = """<!doctype html>
<html>
<head>
<style>
body { margin: 0; }
</style>
</head>
<body>
<script>
let x = 1;
console.log(x);
</script>
<script src="app.js"></script>
</body>
</html>
"""


def test_dependencies_libraries_and_minified_files_are_not_the_apps(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "app.js").write_text("function go() {}\n")
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "jquery-3.7.1.js").write_text("/* jQuery */\n" * 10)
    (tmp_path / "js" / "bundle.min.js").write_text("var a=1;")
    (tmp_path / "js" / "packed.js").write_text("x" * 2000)
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("module.exports = 1;\n")
    (tmp_path / "latin1.css").write_bytes("a { content: '\xe9'; }".encode("latin-1"))
    secret = tmp_path.parent / f"{tmp_path.name}-secret.js"
    secret.write_text("const key = 'not the app';\n")
    (tmp_path / "linked.js").symlink_to(secret)  # a link is never read, wherever it points
    kept = sources.keep(tmp_path)
    assert [f.path for f in kept.files] == ["index.html", "app.js"]
    assert {s.path: s.reason for s in kept.skipped} == {
        "js/jquery-3.7.1.js": "a library, not the app's own code", "js/bundle.min.js": "a library, not the app's own code",
        "js/packed.js": "minified", "latin1.css": "not UTF-8 text"}


def test_the_source_budget_keeps_pages_first(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "big.js").write_text("let a = 1;\n" * 200)
    kept = sources.keep(tmp_path, max_bytes=len(PAGE) + 10)
    assert [f.path for f in kept.files] == ["index.html"]
    assert kept.skipped[0].reason.startswith("past the")


def test_inline_blocks_are_units_with_the_pages_line_numbers(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    units = sources.units(sources.keep(tmp_path))
    by_name = {u.name: u for u in units}
    assert list(by_name) == ["index.html", "index.html#style-1", "index.html#script-1"]
    script = by_name["index.html#script-1"]
    assert script.language == "js" and script.first_line == 9
    # line n of the block is line first_line + n - 1 of the page
    assert PAGE.splitlines()[script.first_line + 2 - 1 - 1] == "let x = 1;"
    skeleton = by_name["index.html"].skeleton
    assert "margin" not in skeleton and "console" not in skeleton
    assert skeleton.count("\n") == PAGE.count("\n")  # blanked, not removed: lines stay where they were
