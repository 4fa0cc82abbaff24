"""The static tools for real (static.mjs in the Node server): error handling (3),
linting (5), redundancy (20), comments (21) and the spelling behind copywriting (12),
each on sources built to score high and low."""

from __future__ import annotations

import pathlib

import pytest

from iwcbench.pipeline.contracts import quality as records
from iwcbench.pipeline.stages.quality import code, sources

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


def _analyse(tools, *files: tuple[str, str, str], words=()) -> tuple[dict, list]:
    kept = records.AppSources(files=tuple(records.SourceFile(path=p, language=lang, text=t) for p, lang, t in files))
    units = sources.units(kept)
    answer = tools.static_tools([u.job() for u in units], list(words), 60)
    assert isinstance(answer, dict), answer
    assert not answer["errors"], answer["errors"]
    return answer, units


def test_error_handling_on_the_parse_tree(tools):
    good = code.error_handling(_analyse(tools, ("app.js", "js", GUARDED))[0])
    bad = code.error_handling(_analyse(tools, ("app.js", "js", CARELESS))[0])
    assert good.value == 100.0
    # careless: 0 of 4 risky calls guarded (JSON.parse, localStorage.getItem, fetch, fetch),
    # r.json() is returned to the caller (the caller decides); 0 of 2 chains/awaits handled;
    # 0 of 1 input readers checks the input
    assert bad.raw["risky calls guarded"] == {"share": pytest.approx(1 / 5), "count": 5}
    assert bad.value < 10


def test_linting_findings_per_thousand_lines(tools):
    clean = "\n".join(f"const a{i} = {i};\nconsole.log(a{i});" for i in range(9)) + "\nfunction f() {\n  return 1;\n}\n"
    one_warning = clean.replace("  return 1;", "  const unused = 1;")  # a local assigned, never used
    assert code.linting(*_analyse(tools, ("app.js", "js", clean))).value == 100.0  # top-level names are exempt
    answer, units = _analyse(tools, ("app.js", "js", one_warning))
    assert [(f["rule"], f["severity"]) for f in answer["lint"]] == [("no-unused-vars", "warning")]
    # one warning (0.5) in 21 lines: 23.8 per thousand → 100 × 20 / 43.8
    assert code.linting(answer, units).value == pytest.approx(100 * 20 / (20 + 500 / 21), abs=0.01)
    bad_css = "a { colr: red; }\n.b {}\n"
    css_answer, css_units = _analyse(tools, ("s.css", "css", bad_css))
    css = code.linting(css_answer, css_units)
    assert sorted(f["rule"] for f in css_answer["lint"]) == ["block-no-empty", "property-no-unknown"]
    # 2 errors in 2 lines: 1000 per thousand lines → 100 × 20 / 1020
    assert css.value == pytest.approx(100 * 20 / 1020, abs=0.01)
    broken = code.linting(*_analyse(tools, ("bad.js", "js", "function (")))
    assert broken.value < css.value and "do not parse" in broken.reason


def test_duplicated_blocks_and_comment_rate(tools):
    block = "\n".join(f"  total = total + items[{i}].price * items[{i}].count - discount({i});" for i in range(8))
    twice = f"function a(items) {{\n  let total = 0;\n{block}\n  return total;\n}}\n" \
            f"function b(items) {{\n  let total = 0;\n{block}\n  return total;\n}}\n"
    answer, units = _analyse(tools, ("app.js", "js", twice))
    dup = code.redundancy(answer, units)
    assert dup.raw["clones"] >= 1 and dup.value < 50
    once = code.redundancy(*_analyse(tools, ("app.js", "js", twice.split("function b")[0])))
    assert once.value == 100.0
    commented = "// sums the cart\nfunction s(c) {\n  // a running total\n  let t = 0;\n  for (const i of c) t += i;\n" \
                "  return t;\n}\n/* the shop's entry point */\ns([1]);\n"
    answer, units = _analyse(tools, ("app.js", "js", commented), ("s.css", "css", "/* layout */\nbody { margin: 0; }\n"))
    rate = code.comments(answer, units)
    # 3 of 9 JS lines and 1 of 2 CSS lines hold a comment: 4 of 11 = 36 %, above the band
    assert rate.raw == {"comment_lines": 4, "lines": 11}
    assert rate.value == pytest.approx(100 * (1 - (4 / 11 - 0.30) / 0.30), abs=0.01)
    none = code.comments(*_analyse(tools, ("app.js", "js", "let a = 1;\nlet b = 2;\n")))
    assert none.value == 0.0


def test_spelling_with_the_dictionaries(tools):
    answer, _ = _analyse(tools, ("app.js", "js", "x;"), words=["colour", "color", "recieve", "adress", "notes"])
    assert answer["unknown_words"] == ["recieve", "adress"]  # British spellings are words too


FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "sources"


def _fixture(tools, app: str) -> tuple[dict, list]:
    units = sources.units(sources.keep(FIXTURES / app))
    answer = tools.static_tools([u.job() for u in units], [], 60)
    assert isinstance(answer, dict), answer
    assert not answer["errors"], answer["errors"]
    return answer, units


def test_a_typescript_apps_code_is_linted_parsed_and_counted(tools):
    answer, units = _fixture(tools, "vite-ts")
    # ESLint reads the TypeScript with its types blanked: no false "does not parse"
    assert answer["fatal"] == [] and answer["unlinted"] == []
    # the error-handling analysis sees the ledger's storage calls and the fetch in main.ts
    risky = {r["call"]: r["guarded"] for r in answer["handling"]["src/ledger.ts"]["risky"]}
    assert risky["JSON.parse"] is True and risky["localStorage.setItem"] is False
    handled = code.error_handling(answer)
    assert handled.value is not None and 0 < handled.value < 100
    assert code.linting(answer, units).raw["lines"] > 60  # the .ts lines count
    assert code.comments(answer, units).raw["comment_lines"] >= 2  # the .ts file's own comment counts


def test_typescript_errors_are_found_and_a_file_that_does_not_parse_counts(tools):
    answer, units = _analyse(tools, ("a.ts", "ts", "export function f(x: number): number {\n  const unused: string = 'u';\n"
                                            "  if (x == NaN) return 0;\n  return x as number;\n}\n"))
    rules = {f["rule"] for f in answer["lint"]}
    # typescript-eslint's parser and its own no-unused-vars (core's does not know types)
    assert {"@typescript-eslint/no-unused-vars", "use-isnan"} <= rules and not answer["fatal"]
    assert "no-unused-vars" not in rules
    broken, _ = _analyse(tools, ("b.ts", "ts", "let x: = 1;\n"))
    assert len(broken["fatal"]) == 1 and broken["fatal"][0]["tool"] == "babel"


def test_a_vue_app_is_linted_whole_by_eslint_plugin_vue_and_what_no_tool_reads_is_named(tools):
    answer, units = _fixture(tools, "vue-sfc")
    assert answer["fatal"] == []
    # the template uses the script's top-level names: not "unused"
    assert not [f for f in answer["lint"] if "no-unused-vars" in f["rule"]]
    # the component is linted whole (template and script), its script block not a second time
    assert not [f for f in answer["lint"] if "#script" in f["unit"]]
    unlinted = {u["unit"]: u["language"] for u in answer["unlinted"]}
    assert unlinted == {"src/App.vue#style-1": "scss"}
    linted = code.linting(answer, units)
    assert "not linted, and not counted: 1 scss" in linted.reason and "vue" not in linted.reason.split("not linted")[1]
    assert linted.raw["lines"] >= sum(sources.non_blank_lines(u.text) for u in units if u.name.endswith(".vue"))
    assert {r["call"] for r in answer["handling"]["src/App.vue#script-1"]["risky"]} >= {"JSON.parse",
                                                                                          "localStorage.setItem"}
    assert code.error_handling(answer).value is not None


def test_components_used_in_jsx_are_not_unused_variables(tools):
    answer, _ = _analyse(tools, ("main.jsx", "js", "import { StrictMode } from 'react';\nimport App from './App.jsx';\n"
                                            "import Unused from './Unused.jsx';\n"
                                            "render(<StrictMode><App /></StrictMode>);\n"))
    assert answer["fatal"] == []  # import statements: linted as a module
    unused = {f["message"].split("'")[1] for f in answer["lint"] if f["rule"] == "no-unused-vars"}
    assert unused == {"Unused"}


VUE_TS = """<script setup lang="ts">
import { ref } from 'vue'
import Unused from './Unused.vue'
const items = ref<string[]>([])
function add(x: string) { items.value.push(x) }
</script>

<template>
  <ul>
    <li v-for="item in items">{{ item }}</li>
  </ul>
  <button @click="add('a')">Add</button>
</template>
"""
SVELTE_TS = """<script lang="ts">
  import Unused from './Unused.svelte'
  let items: string[] = $state([])
  function add(x: string) { items.push(x) }
</script>

{#each items as item}
  <li>{item}</li>
{/each}
<button onclick={() => add('a')}>Add</button>
"""


def test_vue_and_svelte_components_are_linted_by_their_own_plugins_with_typescript(tools):
    answer, units = _analyse(tools, ("src/A.vue", "vue", VUE_TS), ("src/B.svelte", "svelte", SVELTE_TS))
    assert answer["fatal"] == [] and answer["unlinted"] == []
    found = {(f["unit"], f["rule"], f["line"]) for f in answer["lint"]}
    # a template defect each plugin knows, on the component's own line
    assert ("src/A.vue", "vue/require-v-for-key", 10) in found
    assert ("src/B.svelte", "svelte/require-each-key", 7) in found
    # typescript-eslint in a lang="ts" script; what the template uses is not unused
    assert ("src/A.vue", "@typescript-eslint/no-unused-vars", 3) in found
    assert ("src/B.svelte", "@typescript-eslint/no-unused-vars", 2) in found
    unused = {f["message"].split("'")[1] for f in answer["lint"] if "no-unused-vars" in f["rule"]}
    assert unused == {"Unused"}
    assert {"typescript-eslint", "eslint-plugin-vue", "eslint-plugin-svelte"} <= set(answer["versions"])
