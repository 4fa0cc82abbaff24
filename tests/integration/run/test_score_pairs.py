"""Pairs as tests (issue 41 item 5): a defect-free page (tests/fixtures/score-pairs) against
the same page with one defect each — a handler that throws, a dead control, 2 s of jank at
load, grey-on-grey text, a broken image, the canvas left blank where the original draws,
a twin that cannot be built here. One offline `iwc run` with the rule suite explores them
all; then, under each weight set, every app's overall is its z against all apps of the
run (as results.json gives it), and the original must rank above each twin. The original
is evaluated once per task, seven times in all: it stands in by its median overall, as
Lighthouse's timing differs by a point now and then between loads of one page, and in a
pool of near-identical pages one point is a large z.

Under ``iwc`` (IWC-Bench's judged dimensions alone) an offline run has no overall at all:
it is unscored for both pages, never a number that ranks (the judged protocols decide).
The twin that cannot be built here lifts nothing: by default its task is left out of the
comparison and named; with ``scoring.not_runnable`` floor it ranks last under every set."""

from __future__ import annotations

import json
import pathlib
import shutil
import statistics

import pytest

from fakes import runs
from iwcbench.pipeline.contracts import metrics, results
from iwcbench.pipeline.runs import local
from iwcbench.pipeline.stages import aggregating

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ORIGINAL = runs.ROOT / "tests" / "fixtures" / "score-pairs" / "original"
WEBGL = runs.ROOT / "tests" / "fixtures" / "score-pairs" / "webgl"  # a game drawn with WebGL alone: no text, one canvas
# Each twin's code differs from the original's by its defect alone (no comments: a
# comment would move WebCoderBench's comment rate).
THROWING = """<script>
document.addEventListener('click', (event) => { throw new TypeError('cannot read the basket of ' + event.target.id); });
</script>"""  # a handler that only throws, on every click
DEAD = """<script>
document.getElementById('add').addEventListener('click', (event) => {
  event.preventDefault(); event.stopImmediatePropagation(); }, true);
</script>"""  # the basket button does nothing any more
JANK = """<script>
const end = performance.now() + 2000; while (performance.now() < end) {}
</script>"""  # the main thread blocked for 2 s at load
GREY = """<style>
body, header, section, footer, button, nav a, h1, h2, p, li, output, #basket { color: #a8a8a8 !important;
  background: #bdbdbd !important; }
</style>"""  # grey text on a grey ground
LOCK = {"name": "bakery", "version": "1.0.0", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "bakery", "version": "1.0.0", "dependencies": {"tiny-date-format": "github:example-org/tiny-date-format#v1.2.0"},
         "devDependencies": {"vite": "^6.0.0"}},
    "node_modules/tiny-date-format": {
        "version": "1.2.0", "license": "MIT",
        "resolved": "git+ssh://git@github.com/example-org/tiny-date-format.git#3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b"}}}
PACKAGE = {"name": "bakery", "private": True, "version": "1.0.0", "type": "module",
           "scripts": {"dev": "vite", "build": "vite build", "preview": "vite preview"},
           "dependencies": {"tiny-date-format": "github:example-org/tiny-date-format#v1.2.0"},
           "devDependencies": {"vite": "^6.0.0"}}


def _twin(html: str, defect: str) -> str:
    if defect == "throwing":
        return html.replace("</body>", THROWING + "\n</body>", 1)
    if defect == "dead_control":
        return html.replace("</body>", DEAD + "\n</body>", 1)
    if defect == "jank":
        return html.replace("<head>", "<head>\n" + JANK, 1)
    if defect == "grey_on_grey":
        return html.replace("</head>", GREY + "\n</head>", 1)
    if defect == "broken_image":
        return html.replace('src="loaf.svg"', 'src="loaf-missing.png"', 1)
    if defect == "blank_canvas":
        return html.replace("  draw(document.getElementById('chart'));\n", "", 1)
    return html


DEFECTS = ("throwing", "dead_control", "jank", "grey_on_grey", "broken_image", "blank_canvas", "unbuildable")
RANKED = ("default", "wcb")  # the weight sets an offline run ranks by; iwc weighs judged dimensions alone
# The pairs: defect → the weight sets under which its twin must rank below the original.
# WebCoderBench's rule metrics read the page as loaded and the code (quality.states
# initial, as its paper measures them), but for the runtime errors, which count every
# explored step: the handler that throws is seen there. A control that does nothing
# raises nothing and changes nothing a rule reads: under wcb only its LLM functional
# correctness and alignment (judged) read what a click does. Offline, that twin must
# never rank above the original under wcb (NOT_ABOVE): its page as loaded is the
# original's, and its code differs by one listener.
PAIRS = {
    "throwing": RANKED,
    "dead_control": ("default",),
    "jank": RANKED,
    "grey_on_grey": RANKED,
    "broken_image": RANKED,
    "blank_canvas": RANKED,
}
NOT_ABOVE = {"dead_control": ("wcb",)}


def _corpus(base: pathlib.Path) -> pathlib.Path:
    """apps/<model>/<task>/: model "original" and "twin", one task per defect (the original's
    page is the same in every task, explored once per task like any app)."""
    html = (ORIGINAL / "index.html").read_text()
    for defect in DEFECTS:
        for model in ("original", "twin"):
            folder = base / "apps" / model / defect
            shutil.copytree(ORIGINAL, folder)
            if model == "twin":
                (folder / "index.html").write_text(_twin(html, defect))
                if defect == "unbuildable":
                    (folder / "package.json").write_text(json.dumps(PACKAGE, indent=2))
                    (folder / "package-lock.json").write_text(json.dumps(LOCK, indent=2))
        assert defect == "unbuildable" or _twin(html, defect) != html, defect  # each twin differs
    game = (WEBGL / "index.html").read_text()
    for model, page in (("original", game), ("twin", game.replace("\nframe();\n", "\n", 1))):
        (base / "apps" / model / "webgl").mkdir(parents=True)
        (base / "apps" / model / "webgl" / "index.html").write_text(page)
    assert "frame();" not in game.replace("function frame()", "").replace("\nframe();\n", "\n", 1)
    tasks = base / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": d, "prompt": "A bakery's page to order bread."}) + "\n"
                             for d in DEFECTS) + json.dumps({"id": "webgl", "prompt": "A spaceship game."}) + "\n")
    return tasks


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> results.RunResults:
    base = tmp_path_factory.mktemp("score-pairs")
    config = runs.quick_settings(_corpus(base), base / "apps", base / "out", base / "mirror",
                                 quality={}, max_steps=12, app_timeout_s=120)
    return local.execute(config)


def _pair(run: results.RunResults, defect: str) -> list[results.AppResult]:
    return [a for a in run.apps if a.task_id == defect]


def _overalls(run: results.RunResults, weight_set: str, not_runnable: str = "common_tasks"
              ) -> dict[tuple[str, str], float | None]:
    """(model, task) → the app's overall against every app of the run under ``weight_set``."""
    scored, _ = aggregating.aggregate(run.apps, weights=metrics.weights(weight_set), bootstrap=0,
                                      not_runnable=not_runnable)
    return {(a.model, a.task_id): a.overall for a in scored}


def _leaderboard(apps, weight_set: str, not_runnable: str = "common_tasks"):
    _, rows = aggregating.aggregate(apps, weights=metrics.weights(weight_set), bootstrap=0, not_runnable=not_runnable)
    return {r.model: r for r in rows}


def _why(apps, weight_set: str) -> dict:
    """What the two apps scored on the weighted metrics, for the failure message."""
    weighted = metrics.weights(weight_set)
    return {a.model: {n: s.value for n, s in a.scores.items() if n in weighted} for a in apps}


@pytest.mark.parametrize(("defect", "weight_set"), [(d, w) for d, sets in PAIRS.items() for w in sets])
def test_the_page_with_a_defect_ranks_below_the_page_without_it(run, defect, weight_set):
    apps = _pair(run, defect)
    assert {a.outcome for a in apps} <= {"evaluated", "black_box"}, [(a.model, a.outcome, a.reason) for a in apps]
    overall = _overalls(run, weight_set)
    originals = [v for (model, task), v in overall.items() if model == "original" and task in DEFECTS and v is not None]
    assert len(originals) == len(DEFECTS) - 1  # the unbuildable task is left out
    original, twin = statistics.median(originals), overall[("twin", defect)]
    assert twin is not None
    assert original > twin, (original, twin, _why(apps, weight_set))


@pytest.mark.parametrize(("defect", "weight_set"), [(d, w) for d, sets in NOT_ABOVE.items() for w in sets])
def test_a_defect_the_weight_set_cannot_see_lifts_nothing(run, defect, weight_set):
    overall = _overalls(run, weight_set)
    originals = [v for (model, task), v in overall.items() if model == "original" and task in DEFECTS and v is not None]
    # the originals are one page measured once per task: their spread is what timing
    # alone moves (Lighthouse's performance on a loaded machine). A twin that rule
    # metrics cannot tell from its original stays within it, never above the best copy.
    highest, twin = max(originals), overall[("twin", defect)]
    assert twin is not None and highest >= twin, (sorted(originals), twin, _why(_pair(run, defect), weight_set))


def test_a_handler_that_throws_is_no_effect(run):
    """Every click in the twin also throws (a document listener): the code that ran buys
    no effect, so its no-effect ratio is never better than the original's."""
    ratio = {a.model: a.scores["no_effect_ratio"] for a in _pair(run, "throwing")}
    assert ratio["twin"].value >= ratio["original"].value, ratio
    assert "changed nothing a user can see" in ratio["twin"].reason


def test_the_blank_canvas_is_seen_in_the_screenshot(run):
    """The two DOMs hold the same canvas element: its pixels in the screenshot tell them apart."""
    media = {a.model: a.scores["wcb_media_quality"] for a in _pair(run, "blank_canvas")}
    assert "blank" not in (media["original"].raw or {}).get("defects", {}), media["original"]
    assert (media["twin"].raw or {}).get("defects", {}).get("blank") == 1, media["twin"]


@pytest.mark.parametrize("defect", [d for d in DEFECTS if d != "unbuildable"])
def test_an_offline_run_has_no_iwc_overall_to_rank_by(run, defect):
    rows = _leaderboard(_pair(run, defect), "iwc")
    assert rows["original"].overall is None and rows["twin"].overall is None


@pytest.mark.parametrize("weight_set", [*RANKED, "iwc"])
def test_a_twin_that_cannot_be_built_here_lifts_nothing(run, weight_set):
    apps = _pair(run, "unbuildable")
    twin = next(a for a in apps if a.model == "twin")
    assert twin.outcome == "not_runnable", (twin.outcome, twin.reason)
    # by default the task is left out of the comparison, named, and neither app is ranked on it
    assert "twin's app is not runnable here" in aggregating.left_out(run.apps)["unbuildable"]
    assert run.ranking is not None and "unbuildable" in run.ranking.left_out
    overall = _overalls(run, weight_set)
    assert overall[("twin", "unbuildable")] is None and overall[("original", "unbuildable")] is None
    assert _leaderboard(run.apps, weight_set)["twin"].left_out == 1
    # floored instead: it ranks below the original under every set that ranks
    floored = _overalls(run, weight_set, not_runnable="floor")
    if weight_set != "iwc":
        assert floored[("original", "unbuildable")] > floored[("twin", "unbuildable")], _why(apps, weight_set)


TIMED = {"wcb_performance"}  # Lighthouse's timing: a point apart now and then between loads of one page


def test_identical_pages_get_identical_values(run):
    """The original, explored once per task: every score alike but Lighthouse's timing."""
    originals = [a for a in run.apps if a.model == "original" and a.task_id in DEFECTS and a.outcome == "evaluated"]
    assert len(originals) == len(DEFECTS)
    first = originals[0]
    for other in originals[1:]:
        differ = {n: (s.value, other.scores[n].value) for n, s in first.scores.items()
                  if n not in TIMED and other.scores[n].value != s.value}
        assert not differ, (other.task_id, differ)


def test_a_script_that_adds_no_state_changes_no_metric_read_over_the_screens(run):
    """The throwing twin adds no state: what is read over the same screens (axe-core's
    accessibility, WebCoderBench's rendered metrics) is the original's, to the digit."""
    original, twin = (next(a for a in _pair(run, "throwing") if a.model == m) for m in ("original", "twin"))
    read = ("accessibility", "wcb_component_consistency", "wcb_icon_consistency", "wcb_layout_consistency",
            "wcb_layout_sparsity", "wcb_visual_harmony", "wcb_copywriting", "wcb_media_quality", "wcb_placeholders")
    assert {n: twin.scores[n].value for n in read} == {n: original.scores[n].value for n in read}


LIGHTHOUSE = ("wcb_performance", "wcb_accessibility", "wcb_best_practices")


def test_a_game_drawn_with_webgl_is_content_and_its_blank_twin_is_not(run):
    """Pixels are content: the WebGL game's screenshot shows its stars and ship, so it is no
    page that "shows almost nothing", its visual metrics read the screenshot, and Lighthouse
    never gives it 0 for painting nothing. The same page that draws nothing is that page."""
    game, blank = (next(a for a in run.apps if (a.model, a.task_id) == (m, "webgl")) for m in ("original", "twin"))
    assert game.outcome == "evaluated" and blank.outcome == "evaluated", (game.reason, blank.reason)
    harmony = game.scores["wcb_visual_harmony"]
    assert harmony.value and "almost nothing" not in harmony.reason, harmony
    assert game.scores["wcb_media_quality"].value == 100.0, game.scores["wcb_media_quality"]
    for name in LIGHTHOUSE:  # scored, or unscored with the reason: never a 0 for painting nothing
        assert game.scores[name].value != 0.0 or "painted no content" not in game.scores[name].reason, game.scores[name]
    assert "almost nothing" in blank.scores["wcb_visual_harmony"].reason and blank.scores["wcb_visual_harmony"].value == 0
    for weight_set in RANKED:
        overall = _overalls(run, weight_set)
        assert overall[("original", "webgl")] > overall[("twin", "webgl")], weight_set
