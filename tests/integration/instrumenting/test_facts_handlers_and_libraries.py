"""What instrumenting tells the explorer beyond Istanbul's counters: code facts, inline
handler attributes as code, library code, the original files (real Node, no browser)."""

from __future__ import annotations

import base64
import json

import pytest

pytestmark = pytest.mark.node  # the real Node tools (hack/setup), no browser

GAME = """const KONAMI = ['ArrowUp', 'ArrowUp', 'ArrowDown', 'ArrowDown', 'b', 'a'];
const keys = {};
let index = 0;
function unlock() { document.title = 'unlocked'; }
function loop() {
  if (keys.ArrowLeft) document.title = 'left';
  requestAnimationFrame(loop);
}
document.addEventListener('keydown', (e) => {
  keys[e.key] = true;
  if (e.key === KONAMI[index]) { index++; if (index === KONAMI.length) unlock(); }
  if (e.ctrlKey && e.key === 'z') undo();
  switch (e.key) {
    case 'p': pause(); break;
    case ' ': start(); break;
  }
});
setTimeout(() => unlock(), 2500);
function undo() {}
function pause() {}
function start() { loop(); }
"""


def test_code_facts_name_keys_with_their_modifiers_sequences_and_timers(instrument, app):
    report, dest = instrument(app({"index.html": '<script src="game.js"></script>', "game.js": GAME}))
    assert report.mode == "instrumented"
    facts = json.loads((dest / ".iwc/code-facts.json").read_text())["game.js"]
    keys = {("+".join(k["mods"] + [k["key"]]), k["hold"]) for k in facts["keys"]}
    assert {("Control+z", False), ("p", False), ("Space", False), ("ArrowLeft", True)} <= keys
    assert [s["keys"] for s in facts["sequences"]] == [["ArrowUp", "ArrowUp", "ArrowDown", "ArrowDown", "b", "a"]]
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())["game.js"]
    names = {fid: fn["name"] for fid, fn in coverage_map["fnMap"].items()}
    by_name = {facts["fns"][fid]["name"]: fid for fid in facts["fns"] if facts["fns"][fid]["name"]}
    assert names[by_name["unlock"]] == "unlock"
    assert "undo" in facts["fns"][next(fid for fid, n in names.items() if n == "(anonymous_2)")]["calls"]
    delays = sorted((t["delay"], t["callee"]) for t in facts["timers"])
    assert (16, "loop") in delays and any(delay == 2500 for delay, _ in delays)
    # every key fact guarded by a branch names a real Istanbul branch
    assert all(str(bid) in coverage_map["branchMap"] for k in facts["keys"] for bid, _ in k["guards"])


def test_inline_handler_attributes_become_code_with_counters_on_their_page_lines(instrument, app):
    page = ('<!DOCTYPE html>\n<html><head><title>t</title></head>\n<body>\n'
            '<button onclick="count++; show()">+1</button>\n'
            '<input oninput="show(this.value)" onchange="if (this.value === \'&quot;x&quot;\') show()">\n'
            '<script>let count = 0; function show(v) { document.title = String(v || count); }</script>\n'
            '</body></html>\n')
    src = app({"index.html": page})
    report, dest = instrument(src)
    kinds = {f.path: f.kind for f in report.files}
    assert kinds == {"index.html#inline-1": "inline", "index.html#handlers": "handlers"}
    handlers = next(f for f in report.files if f.kind == "handlers")
    assert handlers.functions == 3
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())["index.html#handlers"]
    assert sorted((fn["name"], fn["line"]) for fn in coverage_map["fnMap"].values()) == [
        ("onchange", 5), ("onclick", 4), ("oninput", 5)]
    served = (dest / "index.html").read_text()
    assert served.count("__coverage__") == 2  # the inline block and the handlers' setup script
    assert 'onclick="cov_' in served and "count++" in served
    assert (dest / ".iwc/original/index.html").read_text() == page  # kept for the fallback


def test_a_page_whose_scripts_do_not_parse_stays_black_box_even_with_handlers(instrument, app):
    report, dest = instrument(app({"index.html": '<button onclick="go()">Go</button><script>function go( {</script>'}))
    assert report.mode == "black_box" and "failed to parse" in report.reason
    assert "cov_" not in (dest / "index.html").read_text()


def _vlq(value: int) -> str:
    chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    value = (value << 1) if value >= 0 else ((-value) << 1) | 1
    out = ""
    while True:
        digit, value = value & 31, value >> 5
        out += chars[digit | (32 if value else 0)]
        if not value:
            return out


def _line_map(sources: list[str], line_sources: list[int]) -> dict:
    """A source map with one segment per generated line: line i comes from
    sources[line_sources[i]] (line i of it)."""
    segments, previous_source, previous_line = [], 0, 0
    for line, source in enumerate(line_sources):
        segments.append(_vlq(0) + _vlq(source - previous_source) + _vlq(line - previous_line) + _vlq(0))
        previous_source, previous_line = source, line
    return {"version": 3, "sources": sources, "names": [], "mappings": ";".join(segments)}


def test_library_code_is_recognised_by_source_map_and_by_banner(instrument, app):
    bundle_lines = [
        "function libA() { return 1; }",  # node_modules
        "function libB() { return 2; }",  # node_modules
        "function app() { return libA() + libB(); }",  # src
        "document.title = String(app());",  # src
    ]
    source_map = _line_map(["webpack://demo/./node_modules/tiny/index.js", "webpack://demo/./src/app.js"], [0, 0, 1, 1])
    inline = base64.b64encode(json.dumps(source_map).encode()).decode()
    bundle = "\n".join(bundle_lines) + f"\n//# sourceMappingURL=data:application/json;base64,{inline}\n"
    banner = "/*!\n * Tinychart v2.3.1\n * Released under the MIT License\n */\nfunction chart() { return 3; }\n"
    report, dest = instrument(app({
        "index.html": '<script src="main.js"></script><script src="vendor/tinychart.js"></script><script src="own.js"></script>',
        "main.js": bundle, "vendor/tinychart.js": banner, "own.js": "function mine() { return 4; }\n"}))
    files = {f.path: f for f in report.files}
    assert files["main.js"].vendored.startswith("source map: 2 of 3 functions")
    assert (files["main.js"].functions, files["main.js"].own_functions) == (3, 1)
    assert files["vendor/tinychart.js"].vendored == "library banner (Tinychart v2.3.1)"
    assert files["vendor/tinychart.js"].own("functions") == 0
    assert files["own.js"].vendored is None and files["own.js"].own("functions") == 1
    vendored = json.loads((dest / ".iwc/vendored.json").read_text())
    assert set(vendored) == {"main.js", "vendor/tinychart.js"}
    assert "with library code" in report.reason
