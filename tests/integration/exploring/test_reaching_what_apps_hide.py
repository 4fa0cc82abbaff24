"""The explorer on corpus apps in real Chromium: what a tester would reach that
clicking alone does not — a key sequence, a game's end, a form's second step, code in
inline handlers, an app that only animates — and what it does when the instrumented
build does not load or the page shows nothing."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

KONAMI = "ArrowUp ArrowUp ArrowDown ArrowDown ArrowLeft ArrowRight ArrowLeft ArrowRight b a"


def _ran(coverage: dict, key: str, name: str) -> bool:
    fc = coverage[key]
    return any(fc["f"][fid] > 0 for fid, fn in fc["fnMap"].items() if fn["name"] == name)


def test_a_key_sequence_in_a_canvas_game_unlocks_its_hidden_mode_and_the_game_ends(corpus):
    run = corpus.explore("snake-konami", max_steps=60)
    coverage = run.result.coverage
    assert any(s.action.kind == "key" and s.action.value == KONAMI for s in run.steps), run.labels()
    assert _ran(coverage, "snake.js", "activateRainbow")  # only the sequence reaches it
    assert _ran(coverage, "snake.js", "startGame") and _ran(coverage, "snake.js", "gameOver")
    over = [s for s in run.steps if s.dom and 'id="gameOverOverlay"' in run.files[s.dom].decode()
            and 'class="overlay hidden" id="gameOverOverlay"' not in run.files[s.dom].decode()]
    assert over, "no snapshot shows the game-over screen"


def test_the_second_step_of_a_multi_step_form_is_reached(corpus):
    run = corpus.explore("signup-wizard", max_steps=40)
    shown = [s.index for s in run.steps if s.dom and '<fieldset class="step active" data-step="1">'
             in run.files[s.dom].decode()]
    assert shown, run.labels()
    assert _ran(run.result.coverage, "wizard.js", "validateProfile")  # and its Next was tried


def test_inline_handler_attributes_count_in_coverage(corpus):
    run = corpus.explore("calculator", max_steps=30)
    handlers = run.result.coverage["index.html#handlers"]
    pressed = sum(1 for count in handlers["f"].values() if count > 0)
    assert pressed >= 10, run.labels()
    total = len(handlers["fnMap"]) + len(run.result.coverage["calc.js"]["fnMap"])
    covered = pressed + sum(1 for count in run.result.coverage["calc.js"]["f"].values() if count > 0)
    assert run.result.trace.final_coverage.functions == pytest.approx(100.0 * covered / total)
    assert run.result.load_time_s is not None and run.result.original_load_time_s is not None


def test_an_app_that_only_animates_is_watched_while_time_passes(corpus):
    run = corpus.explore("solar-clock", max_steps=20)
    waits = [s for s in run.steps if s.action.kind == "wait"]
    # (in virtual time, one wait lets the 8 s pass at once)
    assert run.result.trace.virtual_time and any((s.action.value or "").startswith("fast:") for s in waits), run.labels()
    assert _ran(run.result.coverage, "index.html#inline-1", "spawnComet")  # scheduled 8 s after load
    assert run.result.trace.final_coverage.functions >= 90.0


def test_an_instrumented_build_that_hangs_is_explored_as_the_original_without_coverage(served):
    run = served.explore("self-defending", max_steps=4, load_timeout_s=4.0)
    assert run.result.fallback is not None
    assert run.result.fallback.startswith("instrumented build failed to load: ")
    assert run.result.coverage == {} and run.result.trace.load_error is None
    assert any("exploring the original build without coverage" in n for n in run.steps[0].notes)
    clicked = [s for s in run.steps if s.action.target == 'button "+1"']
    assert clicked and "Clicks: <span id=\"count\">1</span>" in run.files[clicked[0].dom].decode()


def test_a_page_that_shows_nothing_is_recorded_as_such_and_a_late_one_is_not(served):
    blank = served.explore("blank", max_steps=5)
    assert blank.result.blank == "its body is empty"
    assert blank.result.trace.stop_reason == "the page shows nothing: its body is empty"
    assert len(blank.steps) == 1
    late = served.explore("late-render", max_steps=3)
    assert late.result.blank is None and len(late.steps) == 4
