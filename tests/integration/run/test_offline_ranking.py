"""With no judge, the `default` weights rank by what measures the app (issue 19, item 8):
an original and its copies made worse in one way only (tests/fixtures/offline-pairs) go
through one offline `iwc run` with the rule suite; every copy's overall is below its
original's, and a script that only throws never raises a page's rank."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from fakes import runs
from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.runs import local

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIXTURES = runs.ROOT / "tests" / "fixtures" / "offline-pairs" / "originals"
PAGES = ("counter", "tabs", "shopping", "converter")
# the one working control each dead copy loses
DEAD = {"counter": "#inc", "tabs": "#t-gear", "shopping": "button[type=submit]",
        "converter": ".units button:nth-child(2)"}
JANK = """<script>
// blocks the main thread: 2.5 s at load, 400 ms on every press and key
function busy(ms) { const end = performance.now() + ms; while (performance.now() < end) {} }
busy(2500);
for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, () => busy(400), true);
</script>"""
WASHED = """<style>
/* grey on grey, flat, and boxes pulled over each other */
* { color: #b4b4b4 !important; background: #c4c4c4 !important; border-color: #c4c4c4 !important;
    box-shadow: none !important; }
body * { margin-top: -12px !important; margin-left: -9px !important; }
</style>"""
THROWING = """<script>
// two functions that do nothing but throw on every click
function lookUp(target) { throw new TypeError('cannot read the scene of ' + target.tagName); }
document.addEventListener('click', (event) => lookUp(event.target));
window.addEventListener('pointerdown', () => { throw new Error('no pointer handler'); });
</script>"""


def _dead(selector: str) -> str:
    return f"""<script>
// the control {selector} does nothing any more
document.querySelector({json.dumps(selector)}).addEventListener('click', (event) => {{
  event.preventDefault(); event.stopImmediatePropagation(); }}, true);
</script>"""


def _copy(html: str, *, head: str = "", body: str = "") -> str:
    if head:
        html = html.replace("<head>", "<head>\n" + head, 1) if "<script" in head else html.replace(
            "</head>", head + "\n</head>", 1)
    return html.replace("</body>", body + "\n</body>", 1) if body else html


def _corpus(base: pathlib.Path) -> pathlib.Path:
    """apps/<copy>/<page>/index.html and tasks.jsonl; the originals are model "original"."""
    pages = {name: (FIXTURES / f"{name}.html").read_text() for name in (*PAGES, "sunrise")}
    made = {("original", name): html for name, html in pages.items()}
    for name in PAGES:
        made[("janky", name)] = _copy(pages[name], head=JANK)
        made[("washed", name)] = _copy(pages[name], head=WASHED)
        made[("dead", name)] = _copy(pages[name], body=_dead(DEAD[name]))
    made[("throwing", "sunrise")] = _copy(pages["sunrise"], body=THROWING)
    for (model, name), html in made.items():
        folder = base / "apps" / model / name
        folder.mkdir(parents=True)
        (folder / "index.html").write_text(html)
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": name, "prompt": f"The {name} page."}) + "\n" for name in pages))
    return tasks


@pytest.fixture(scope="module")
def ranked(tmp_path_factory) -> dict[tuple[str, str], float | None]:
    base = tmp_path_factory.mktemp("offline-pairs")
    tasks = _corpus(base)
    config = runs.quick_settings(tasks, base / "apps", base / "out", base / "mirror",
                                 quality={}, max_steps=12, app_timeout_s=90)
    run = local.execute(config)
    assert run.weights == metrics.weights("default"), run.weights  # no judge: the offline set
    return {(a.model, a.task_id): a.overall for a in run.apps}


@pytest.mark.parametrize("copy", ["janky", "washed", "dead"])
def test_a_copy_made_worse_ranks_below_its_original(ranked, copy):
    above = {name: (ranked[("original", name)], ranked[(copy, name)]) for name in PAGES}
    below = [name for name, (original, worse) in above.items()
             if original is not None and worse is not None and worse < original]
    assert len(below) / len(PAGES) >= 0.95, above


def test_a_script_that_only_throws_never_raises_a_page(ranked):
    original, throwing = ranked[("original", "sunrise")], ranked[("throwing", "sunrise")]
    assert original is not None and throwing is not None and throwing < original, (original, throwing)
