"""Apps written to escape the sandbox, exfiltrate, forge scores and exhaust the machine
(tests/fixtures/hostile-apps/README.md), evaluated by `iwc run --workers 2`: each gets
an outcome with a reason; no canary — a loopback service's tokens, a file's token,
/etc/passwd — reaches the service's logs or any byte of the output folder; every
refused attempt is in the trace; forged coverage and states are not credited; nothing
is left behind."""

from __future__ import annotations

import pathlib

import pytest

from fakes import hostile

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXPLORED = ("evaluated", "black_box")
OUTCOMES = {
    "cdn-path-tricks": EXPLORED, "shared-worker": EXPLORED, "worker-sockets": EXPLORED,
    "sandboxed-srcdoc": EXPLORED, "webrtc": EXPLORED, "unload-beacons": EXPLORED,
    "speculation-rules": EXPLORED, "forged-coverage": ("evaluated",), "volatile-text": EXPLORED,
    "override-builtins": EXPLORED, "sparse-file": ("start_failed",), "profile-flood": EXPLORED,
    "window-open-flood": EXPLORED + ("start_failed",), "server-traversal": EXPLORED,
    "file-scheme": EXPLORED, "loop-at-load": ("start_failed",), "loop-on-click": EXPLORED,
    "dialog-storm": EXPLORED, "popup-flood": EXPLORED, "navigate-away": EXPLORED,
    "huge-dom": EXPLORED, "zip-traversal": ("start_failed",), "tar-symlink-out": ("start_failed",),
    "download-flood": EXPLORED, "console-flood": EXPLORED, "write-chain": EXPLORED, "iframe-parsing": EXPLORED,
}
REASONS = {
    "sparse-file": ("bytes", "cap"),
    "loop-at-load": ("load",),
    "zip-traversal": ("path traversal",),
    "tar-symlink-out": ("symlink points outside",),
}


def test_every_app_has_exactly_one_outcome_with_a_reason(hostile_run):
    assert sorted(hostile_run.apps) == sorted(OUTCOMES), hostile_run.log
    for task_id, app in hostile_run.apps.items():
        assert app["reason"], task_id


@pytest.mark.parametrize("task_id", sorted(OUTCOMES))
def test_outcome(hostile_run, task_id):
    app = hostile_run.apps[task_id]
    assert app["outcome"] in OUTCOMES[task_id], app["reason"]
    for word in REASONS.get(task_id, ()):
        assert word in app["reason"], app["reason"]
    if app["outcome"] in EXPLORED:
        assert app["exploration"]["steps"] >= 1, app["reason"]


def _tokens(run) -> dict[str, str]:
    tokens = {"HTTP token": run.canary.http_token, "WebSocket token": run.canary.ws_token,
              "canary file": run.corpus.file_token}
    passwd = pathlib.Path("/etc/passwd")
    if passwd.is_file() and passwd.read_text().startswith(hostile.PASSWD_LINE):
        tokens["/etc/passwd"] = hostile.PASSWD_LINE
    return tokens


def test_no_canary_appears_anywhere_in_the_output_folder(hostile_run):
    tokens = {name: token.encode() for name, token in _tokens(hostile_run).items()}
    found: dict[str, list[str]] = {}
    files = [p for p in hostile_run.out.rglob("*") if p.is_file()]
    assert any(p.parent.name == "dom" for p in files)  # snapshots were written and read here
    for path in files:
        data = path.read_bytes()
        for name, token in tokens.items():
            if token in data:
                found.setdefault(name, []).append(str(path.relative_to(hostile_run.out)))
    assert found == {}


def test_the_loopback_service_was_never_reached(hostile_run):
    # HTTP, WebSocket, TURN over TCP and STUN over UDP all land here: nothing may.
    assert hostile_run.hits == ()


def _socket_refused(entries: list[str], address: str) -> bool:
    return any(address in e and ("ws://" in e or "tunnel" in e) for e in entries)


RECORDED = {
    "shared-worker": ("/shared-worker/fetch", "/shared-worker/xhr", "/shared-worker/import.js"),
    "worker-sockets": ("/file-worker/fetch", "/blob-worker/fetch", "/nested-worker/fetch"),
    "sandboxed-srcdoc": ("/srcdoc/fetch", "/srcdoc/img.png"),
    "navigate-away": ("example.com",),
}
SOCKETS = ("shared-worker", "worker-sockets", "sandboxed-srcdoc", "webrtc")


@pytest.mark.parametrize("task_id", sorted(set(RECORDED) | set(SOCKETS)))
def test_refused_attempts_are_recorded(hostile_run, task_id):
    blocked = hostile_run.blocked(task_id)
    for part in RECORDED.get(task_id, ()):
        assert any(part in entry for entry in blocked), (part, blocked)
    if task_id in SOCKETS:
        assert _socket_refused(blocked, hostile_run.canary.address), blocked


def test_requests_sent_while_a_page_unloads_are_refused_and_recorded(hostile_run):
    trace = hostile_run.trace("unload-beacons")
    navigated = any("page2.html" in step["url"] for step in trace["steps"])
    assert navigated, "the explorer never left the first page; the test proves nothing"
    blocked = hostile_run.blocked("unload-beacons")
    for kind in ("beacon-pagehide", "img-pagehide"):
        assert any(kind in entry for entry in blocked), (kind, blocked)


def test_speculative_loads_are_never_attempted(hostile_run):
    # "Preload pages" is off in the profile: the guard would have recorded any attempt.
    blocked = hostile_run.blocked("speculation-rules")
    assert not any("/speculation/pre" in b for b in blocked), blocked


TRICKS = 17  # the URLs cdn-path-tricks asks for


def test_every_cdn_path_trick_is_refused_by_the_mirror(hostile_run):
    # (%2e%2e is resolved by the browser's URL parser before the request: that one
    # arrives as https://unpkg.com/secret/canary.txt)
    refused = {b for b in hostile_run.blocked("cdn-path-tricks")
               if b.startswith(("https://esm.sh/", "https://cdn.jsdelivr.net/", "https://unpkg.com/"))}
    assert len(refused) == TRICKS, sorted(refused)
    assert all("not in the CDN mirror" in b for b in refused), sorted(refused)


def test_forged_coverage_is_not_credited(hostile_run):
    # Two of the app's 62 functions run (forge and its arrow); the page sets every
    # counter of window.__coverage__ to 1.
    coverage = hostile_run.apps["forged-coverage"]["exploration"]["coverage"]
    assert coverage["functions"] is not None and coverage["functions"] < 10, coverage
    assert coverage["statements"] < 25, coverage
    assert coverage["branches"] < 25, coverage


def test_volatile_text_makes_no_states(hostile_run):
    exploration = hostile_run.apps["volatile-text"]["exploration"]
    assert exploration["steps"] >= 3
    assert exploration["states"] <= 2, exploration
    assert exploration["transitions"] <= 3, exploration


def test_overridden_builtins_do_not_choose_the_error_outcome(hostile_run):
    app = hostile_run.apps["override-builtins"]
    assert app["outcome"] != "error", app["reason"]
    assert app["exploration"]["states"] >= 2, app  # notes were added: the observer saw the page
    # Breaking what coverage and axe-core read must not leave them "not measured" (no floor).
    assert app["exploration"]["coverage"]["statements"] is not None, app["exploration"]
    assert app["scores"]["accessibility"]["value"] is not None, app["scores"]["accessibility"]


def test_a_window_open_flood_is_named(hostile_run):
    app = hostile_run.apps["window-open-flood"]
    text = " ".join([app["reason"], *hostile_run.notes("window-open-flood")])
    assert "window.open" in text, text
    assert "endless loop" not in app["reason"], app["reason"]


def test_no_browser_profile_or_temporary_file_is_left_behind(hostile_run):
    assert hostile_run.tmp_left == ()


def test_no_process_is_left_behind(hostile_run):
    assert hostile_run.processes_left == ()


TEARDOWN_S = 8.0  # closing the browsers and writing the result, past the deadline


def test_nothing_is_written_outside_the_output_and_temporary_folders(hostile_run):
    # download-flood starts 62 downloads at each load and more on each click, in the
    # explorer, the state renders, the phone load and Firefox: none may land anywhere
    # (HOME/Downloads was where they went), nor may crash reports, caches or GTK's
    # recent files of any browser.
    assert hostile_run.written_elsewhere == ()
    leaked = [str(p) for p in hostile_run.out.rglob("iwc-dl-*")]
    assert leaked == []
    trace = hostile_run.trace("download-flood")
    # (how many of the 62 reach the browser's download manager varies with the machine's
    # load: Chromium drops some automatic downloads; each one that does is refused)
    load = trace["steps"][0]["notes"]
    assert sum(n.startswith("download refused: ") for n in load) >= 5, load
    clicked = [n for s in trace["steps"][1:] for n in s["notes"] if n.startswith("download refused: ")]
    assert clicked, "no click started a download: the explorer never pressed Export"


def test_every_app_ends_within_its_deadline(hostile_run):
    # app_timeout_s runs from the first page load to the last score; instrumenting has
    # limits of its own. write-chain and iframe-parsing never finish loading.
    late = {}
    for task_id, app in hostile_run.apps.items():
        timings = app["timings"]
        spent = timings.get("total", 0.0) - timings.get("instrument", 0.0)
        if spent > hostile_run.app_timeout_s + TEARDOWN_S:
            late[task_id] = timings
    assert late == {}


def test_a_console_flood_is_evaluated_and_its_runtime_errors_say_so(hostile_run):
    app = hostile_run.apps["console-flood"]
    assert app["outcome"] == "evaluated", app["reason"]
    errors = app["scores"]["runtime_errors"]
    # a million lines at load, 200 console.error, 50 errors thrown from timers
    assert errors["raw"]["console_lines_unlisted"] >= 900_000, errors
    assert errors["raw"]["console_errors"] == 200 and errors["raw"]["page_errors"] >= 50, errors
    assert "flooded its console" in errors["reason"]
    assert "flooded its console" in app["scores"]["wcb_console_errors"]["reason"]
    trace = hostile_run.trace("console-flood")
    kept = sum(len(e) for s in trace["steps"] for e in s["console_errors"] + s["page_errors"])
    assert kept < 100_000  # counted, not stored


def test_pages_whose_load_never_ends_are_explored_and_say_so(hostile_run):
    for task_id in ("write-chain", "iframe-parsing"):
        notes = hostile_run.notes(task_id)
        assert any("the load event did not fire" in n for n in notes), (task_id, notes)
