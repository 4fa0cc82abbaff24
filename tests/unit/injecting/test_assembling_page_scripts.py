"""Page scripts are put together one way (kits/injecting.py): an ES module of ours and
the modules it imports become one function expression a page can run, and every page
script of the pipeline assembles into JavaScript that parses."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

from iwcbench.pipeline.kits import injecting, processes

ROOT = pathlib.Path(__file__).resolve().parents[3]
# every script a page runs: entries (a default export) of the kits and the stages
ENTRIES = ["pipeline/kits/page/init.mjs", "pipeline/kits/page/quiet.mjs", "pipeline/kits/page/shows.mjs",
           "pipeline/kits/page/listened.mjs",
           "pipeline/kits/page/axe.mjs", "pipeline/stages/exploring/observe.mjs",
           "pipeline/stages/exploring/snapshot.mjs", "pipeline/kits/page/probe.mjs",
           "pipeline/kits/page/animations.mjs", "pipeline/kits/page/aim.mjs",
           "pipeline/stages/exploring/settle.mjs"]


def _run(expression: str) -> object:
    """The value of a JavaScript expression, evaluated by Node."""
    done = subprocess.run([processes.node_binary(), "-e", f"process.stdout.write(JSON.stringify({expression}))"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _write(folder: pathlib.Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


@pytest.mark.node
def test_every_page_script_of_the_pipeline_assembles_and_parses(tmp_path: pathlib.Path) -> None:
    pages = [*ROOT.glob("pipeline/kits/page/*.mjs"),
             *ROOT.glob("pipeline/stages/exploring/*.mjs")]  # eslint.config.mjs's page scripts
    entries = {p.relative_to(ROOT).as_posix() for p in pages if "\nexport default " in p.read_text(encoding="utf-8")}
    assert entries == set(ENTRIES)
    for entry in ENTRIES:
        check = tmp_path / (pathlib.Path(entry).stem + ".js")
        check.write_text("const run = " + injecting.function(ROOT / entry) + ";\n", encoding="utf-8")
        done = subprocess.run([processes.node_binary(), "--check", str(check)], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 0, f"{entry}: {done.stderr}"


@pytest.mark.node
def test_modules_keep_their_own_names_and_imports_bind_to_exports(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, {
        "util.mjs": "const clip = (s) => s.slice(0, 3);\nexport function short(s) { return clip(s); }\n"
                    "export const LIMIT = 3;\n",
        "entry.mjs": "import { short, LIMIT as most } from './util.mjs';\n"
                     "const clip = (s) => s.toUpperCase();  // a name util.mjs has too\n"
                     "export default function run(arg) { return [short(arg.text), clip(arg.text), most]; }\n",
    })
    assert _run(injecting.call(tmp_path / "entry.mjs", {"text": "hello"})) == ["hel", "HELLO", 3]


@pytest.mark.node
def test_a_module_imported_twice_is_one_module(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, {
        "state.mjs": "export const seen = [];\n",
        "a.mjs": "import { seen } from './state.mjs';\nexport function mark() { seen.push('a'); }\n",
        "entry.mjs": "import { seen } from './state.mjs';\nimport { mark } from './a.mjs';\n"
                     "export default function run() { mark(); return seen; }\n",
    })
    assert _run(injecting.call(tmp_path / "entry.mjs")) == ["a"]


@pytest.mark.parametrize("files, message", [
    ({"entry.mjs": "export { x };\nexport default function run() {}\n"}, "only `import"),
    ({"entry.mjs": "import x from './x.mjs';\nexport default function run() {}\n"}, "only `import"),
    ({"entry.mjs": "export default () => 1;\n"}, "only `import"),
    ({"entry.mjs": "export function helper() {}\n"}, "no `export default function"),
    ({"entry.mjs": "import { b } from './b.mjs';\nexport default function run() {}\n",
      "b.mjs": "import { c } from './entry.mjs';\nexport const b = 1;\n"}, "in a circle"),
])
def test_forms_it_does_not_understand_are_refused(tmp_path: pathlib.Path, files: dict[str, str], message: str) -> None:
    _write(tmp_path, files)
    with pytest.raises(ValueError, match=message):
        injecting.function(tmp_path / "entry.mjs")


@pytest.mark.node
def test_the_argument_arrives_as_json() -> None:
    expression = injecting.invoke("(arg) => arg", {"nonce": "ab\"</script>", "seed": 7})
    assert _run(expression) == {"nonce": "ab\"</script>", "seed": 7}
