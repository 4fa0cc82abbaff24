"""The explorer on small fixture apps in real Chromium, with real Istanbul coverage."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _steps_on(run, target: str):
    return [s for s in run.steps if s.action.target == target]


def test_form_app_coverage_rises_and_tasks_get_added(served):
    run = served.explore("todo", max_steps=12)
    trace = run.result.trace
    assert trace.steps[0].action.kind == "load" and trace.steps[0].ok
    assert trace.final_coverage.statements > trace.steps[0].coverage.statements
    assert any(s.coverage_gain > 0 for s in trace.steps[1:])
    assert "app.js" in run.result.coverage
    typed = [s for s in trace.steps if s.action.kind == "type" and s.action.value]
    assert typed, "the explorer never typed into the form"
    title = typed[0].action.value
    # the typed title ends up as a list item: the form was submitted, not just filled
    assert any(f"<label for=\"task-0\">{title}" in run.files[s.dom].decode() for s in trace.steps if s.dom)
    assert trace.steps[0].screenshot == "shots/0000.png" and "shots/0000.png" in run.files


def test_budget_is_respected_and_every_step_has_a_snapshot(served):
    run = served.explore("todo", max_steps=6, stop_after_idle_steps=50)
    trace = run.result.trace
    assert len(trace.steps) == 7  # the load + 6 actions
    assert trace.stop_reason == "budget of 6 steps used"
    # every step names a snapshot; a DOM unchanged since the last step names the last file
    assert all(s.dom in run.files for s in trace.steps)
    assert trace.steps[0].dom == "dom/0000.html"
    assert all(s.dom in (f"dom/{s.index:04d}.html", before.dom) for before, s in zip(trace.steps, trace.steps[1:]))
    assert [s.index for s in trace.steps] == list(range(7))


def test_same_seed_gives_the_same_action_sequence(served):
    first = served.explore("todo", max_steps=10, seed=7)
    second = served.explore("todo", max_steps=10, seed=7)
    assert first.labels() == second.labels()
    assert len(first.labels()) == 11


def test_keyboard_game_gets_keys_and_they_reach_its_code(served):
    run = served.explore("game", max_steps=12)
    keys = [s for s in run.steps if s.action.kind == "key"]
    assert len(keys) >= 3, run.labels()
    game = run.result.coverage["game.js"]
    move = next(k for k, f in game["fnMap"].items() if f["name"] == "move")
    assert game["f"][move] > 0, "no key press ever reached the game's move()"
    assert any(s.screenshot for s in keys), "the canvas never changed after a key press"


def test_hover_reveals_a_menu_whose_links_then_get_clicked(served):
    run = served.explore("menu", max_steps=8)
    hovers = [s for s in run.steps if s.action.kind == "hover"]
    assert hovers and any(s.screenshot for s in hovers)
    clicked = {s.action.target for s in run.steps if s.action.kind == "click" and s.ok}
    assert clicked & {'link "Widgets"', 'link "Gadgets"'}, run.labels()


def test_hazards_are_recorded_at_the_step_that_caused_them(served):
    run = served.explore("hazards", max_steps=8, instrumented=False)
    trace = run.result.trace
    save = _steps_on(run, 'button "Save"')
    assert save and all("Error: save failed on purpose" in s.page_errors for s in save)
    assert not any(s.page_errors for s in trace.steps if s.action.target != 'button "Save"')
    greet = _steps_on(run, 'button "Greet"')
    assert greet and greet[0].dialogs[0] == "alert: hello 0"
    assert "confirm: Continue?" in greet[0].dialogs[-2:] or any("more" in d for d in greet[0].dialogs)
    popups = _steps_on(run, 'button "Open windows"')
    assert popups and any(n.startswith("popup closed: ") for n in popups[0].notes)
    leave = _steps_on(run, 'button "Leave"')
    assert leave and any(n.startswith("navigated away") for n in leave[0].notes)
    assert "https://example.net/elsewhere" in leave[0].blocked_requests
    assert all(s.url.startswith(served.base) for s in trace.steps)
    assert "external link not followed: https://example.org/docs" in trace.steps[0].notes
    assert "https://cdn.example.com/lib.js" in trace.steps[0].blocked_requests
    assert not any(s.action.target == 'link "Docs"' for s in trace.steps)
    assert run.result.coverage == {} and trace.final_coverage.statements is None


def test_endless_loop_in_a_click_handler_is_survived(served):
    run = served.explore("loop-click", max_steps=5, instrumented=False)
    trace = run.result.trace
    frozen = _steps_on(run, 'button "Freeze"')
    assert len(frozen) == 1, "a hanging action must not be tried again"
    assert not frozen[0].ok
    assert any("stopped responding" in n for n in frozen[0].notes)
    later = [s for s in trace.steps if s.index > frozen[0].index]
    assert later and all(s.ok for s in later)
    assert trace.stop_reason == "budget of 5 steps used"


def test_endless_loop_at_load_is_a_load_error(served):
    run = served.explore("loop-load", max_steps=5, load_timeout_s=2.0, instrumented=False)
    trace = run.result.trace
    assert trace.load_error and "endless loop" in trace.load_error
    assert trace.stop_reason.startswith("the app did not load")
    assert len(trace.steps) == 1 and not trace.steps[0].ok


def test_unreachable_app_is_a_load_error(served):
    run = served.explore("no-such-app", max_steps=3, instrumented=False)
    assert run.result.trace.load_error == f"HTTP 404 for {served.base}/no-such-app/index.html"


def test_time_limit_stops_the_exploration(served):
    run = served.explore("todo", max_steps=500, app_timeout_s=4.0, stop_after_idle_steps=500)
    trace = run.result.trace
    assert trace.stop_reason == "time limit 4 s"
    assert len(trace.steps) < 501


def test_nothing_new_stops_the_exploration(served):
    run = served.explore("menu", max_steps=60, stop_after_idle_steps=3, instrumented=False)
    assert run.result.trace.stop_reason.startswith("nothing new reachable after")
    assert len(run.steps) < 61


def test_measured_it_stops_once_all_that_can_run_ran_and_names_what_cannot(served):
    run = served.explore("menu", max_steps=60, stop_after_idle_steps=3)
    reason = run.result.trace.stop_reason
    assert reason.startswith("every function and statement of the app that can run ran"), reason
    assert "no code mentions them: showLegacyBanner, and 1 function inside them" in reason
    assert len(run.steps) < 61


def test_accessibility_is_checked_on_new_states(served):
    run = served.explore("hazards", max_steps=2, instrumented=False)
    report = run.result.a11y
    assert report.error is None and report.version
    assert 0 in report.pages
    assert any(v.id == "landmark-one-main" for v in report.pages[0])


def test_the_hermetic_router_reports_what_it_refused(served):
    run = served.explore("hazards", max_steps=1, instrumented=False, hermetic=True)
    load = run.steps[0]
    assert any(r.startswith("https://cdn.example.com/lib.js") for r in load.blocked_requests)
    assert run.result.trace.mirrored_requests == ()


def test_game_time_passes_at_once_so_a_game_that_ends_with_time_ends_and_is_played_again(served):
    run = served.explore("slow-fall", max_steps=12)
    trace = run.result.trace
    assert trace.virtual_time
    fall = run.result.coverage["fall.js"]
    ran = {f["name"]: fall["f"][fid] for fid, f in fall["fnMap"].items()}
    assert ran["gameOver"] > 0, "\n".join(s.action.label() for s in trace.steps)
    assert ran["start"] >= 2, "Play again was never pressed after the game ended"
    assert any(s.action.kind == "wait" and (s.action.value or "").startswith("fast:") for s in trace.steps)
    # a minute of game time took a fraction of a step
    assert sum(s.duration_s for s in trace.steps) < 12 * 3


def test_without_virtual_time_the_page_keeps_its_own_clock(served):
    run = served.explore("slow-fall", max_steps=4, virtual_time=False)
    assert not run.result.trace.virtual_time
    assert not any((s.action.value or "").startswith("fast:") for s in run.steps)


def test_routes_in_the_code_are_visited_and_an_edit_field_gets_its_escape(served):
    run = served.explore("routed-list", max_steps=25)
    code = run.result.coverage["list.js"]
    ran = {f["name"]: code["f"][fid] for fid, f in code["fnMap"].items()}
    labels = "\n".join(run.labels())
    assert any(s.action.kind == "route" and s.action.value == "#/completed" for s in run.steps), labels
    assert ran["cancelEdit"] > 0 and ran["saveEdit"] > 0, labels
    reason = run.result.trace.stop_reason
    assert reason.startswith("every function and statement of the app that can run ran"), reason


def test_touch_handlers_context_menus_resize_and_keys_asked_of_a_helper_are_reached(served):
    run = served.explore("gestures", max_steps=40)
    code = run.result.coverage["gestures.js"]
    ran = {f["name"]: code["f"][fid] for fid, f in code["fnMap"].items()}
    labels = "\n".join(run.labels())
    for name in ("onTouch", "onSwipe", "onFlag", "onNarrow", "boost"):
        assert ran[name] > 0, f"{name} never ran:\n{labels}"
