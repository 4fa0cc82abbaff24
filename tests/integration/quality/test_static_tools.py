"""The static tools for real (static.mjs in the Node server): error handling (3),
linting (5), redundancy (20), comments (21) and the spelling behind copywriting (12),
each on sources built to score high and low."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import quality as records
from iwcbench.pipeline.stages.quality import code, sources, tooling

pytestmark = pytest.mark.browser  # needs the npm tools (hack/setup)

GUARDED = """// settings survive a broken or missing store
function load() {
  try {
    return JSON.parse(localStorage.getItem('s') || '{}');
  } catch (e) {
    return {};
  }
}
async function send(data) {
  try {
    const r = await fetch('/api', { method: 'POST', body: JSON.stringify(data) });
    return await r.json();
  } catch (e) {
    return null;
  }
}
fetch('/hello').then((r) => r.text()).catch(() => '');
function add() {
  const v = document.getElementById('v').value.trim();
  if (!v) return;
  send(v);
}
"""
CARELESS = """function load() {
  return JSON.parse(localStorage.getItem('s'));
}
async function send(data) {
  const r = await fetch('/api', { method: 'POST', body: JSON.stringify(data) });
  return r.json();
}
fetch('/hello').then((r) => r.text());
function add() {
  const v = document.getElementById('v').value;
  list.push(v);
}
"""


def _analyse(*files: tuple[str, str, str], words=()) -> tuple[dict, list]:
    kept = records.AppSources(files=tuple(records.SourceFile(path=p, language=lang, text=t) for p, lang, t in files))
    units = sources.units(kept)
    answer = tooling.static_tools([u.job() for u in units], list(words), 60)
    assert isinstance(answer, dict), answer
    assert not answer["errors"], answer["errors"]
    return answer, units


def test_error_handling_on_the_parse_tree():
    good = code.error_handling(_analyse(("app.js", "js", GUARDED))[0])
    bad = code.error_handling(_analyse(("app.js", "js", CARELESS))[0])
    assert good.value == 100.0
    # careless: 0 of 4 risky calls guarded (JSON.parse, localStorage.getItem, fetch, fetch),
    # r.json() is returned to the caller (the caller decides); 0 of 2 chains/awaits handled;
    # 0 of 1 input readers checks the input
    assert bad.raw["risky calls guarded"] == {"share": pytest.approx(1 / 5), "count": 5}
    assert bad.value < 10


def test_linting_findings_per_thousand_lines():
    clean = "\n".join(f"const a{i} = {i};\nconsole.log(a{i});" for i in range(9)) + "\nfunction f() {\n  return 1;\n}\n"
    one_warning = clean.replace("  return 1;", "  const unused = 1;")  # a local assigned, never used
    assert code.linting(*_analyse(("app.js", "js", clean))).value == 100.0  # top-level names are exempt
    answer, units = _analyse(("app.js", "js", one_warning))
    assert [(f["rule"], f["severity"]) for f in answer["lint"]] == [("no-unused-vars", "warning")]
    # one warning (0.5) in 21 lines: 23.8 per thousand → 100 × 20 / 43.8
    assert code.linting(answer, units).value == pytest.approx(100 * 20 / (20 + 500 / 21), abs=0.01)
    bad_css = "a { colr: red; }\n.b {}\n"
    css_answer, css_units = _analyse(("s.css", "css", bad_css))
    css = code.linting(css_answer, css_units)
    assert sorted(f["rule"] for f in css_answer["lint"]) == ["block-no-empty", "property-no-unknown"]
    # 2 errors in 2 lines: 1000 per thousand lines → 100 × 20 / 1020
    assert css.value == pytest.approx(100 * 20 / 1020, abs=0.01)
    broken = code.linting(*_analyse(("bad.js", "js", "function (")))
    assert broken.value < css.value and "do not parse" in broken.reason


def test_duplicated_blocks_and_comment_rate():
    block = "\n".join(f"  total = total + items[{i}].price * items[{i}].count - discount({i});" for i in range(8))
    twice = f"function a(items) {{\n  let total = 0;\n{block}\n  return total;\n}}\n" \
            f"function b(items) {{\n  let total = 0;\n{block}\n  return total;\n}}\n"
    answer, units = _analyse(("app.js", "js", twice))
    dup = code.redundancy(answer, units)
    assert dup.raw["clones"] >= 1 and dup.value < 50
    once = code.redundancy(*_analyse(("app.js", "js", twice.split("function b")[0])))
    assert once.value == 100.0
    commented = "// sums the cart\nfunction s(c) {\n  // a running total\n  let t = 0;\n  for (const i of c) t += i;\n" \
                "  return t;\n}\n/* the shop's entry point */\ns([1]);\n"
    answer, units = _analyse(("app.js", "js", commented), ("s.css", "css", "/* layout */\nbody { margin: 0; }\n"))
    rate = code.comments(answer, units)
    # 3 of 9 JS lines and 1 of 2 CSS lines hold a comment: 4 of 11 = 36 %, above the band
    assert rate.raw == {"comment_lines": 4, "lines": 11}
    assert rate.value == pytest.approx(100 * (1 - (4 / 11 - 0.30) / 0.30), abs=0.01)
    none = code.comments(*_analyse(("app.js", "js", "let a = 1;\nlet b = 2;\n")))
    assert none.value == 0.0


def test_spelling_with_the_dictionaries():
    answer, _ = _analyse(("app.js", "js", "x;"), words=["colour", "color", "recieve", "adress", "notes"])
    assert answer["unknown_words"] == ["recieve", "adress"]  # British spellings are words too
