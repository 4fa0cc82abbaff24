"""What a page may leave in our records: the events recorder's caps and counts, the
report lines of kits/page/quiet.mjs, the browsers' HOME and download folder, and the
app's deadline."""

from __future__ import annotations

import json
import time

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.kits import browser_events, clock, launcher, launching


def test_counts_past_the_caps_are_drained_with_the_list_and_as_numbers():
    recorder = browser_events.Recorder()
    for n in range(browser_events.EVENTS_PER_KIND + 5):
        recorder.add("console_errors", f"failed {n}")
    recorder.count("console_errors", 200)
    recorder.count("console_lines", 999_000)
    recorder.count("page_errors", 0)
    events = recorder.drain()
    assert len(events.console_errors) == browser_events.EVENTS_PER_KIND + 1
    assert events.console_errors[-1] == "… and 205 more"
    assert events.unlisted == {"console_errors": 205, "console_lines": 999_000}
    assert evidence.Unlisted.of(events.unlisted) == evidence.Unlisted(console_errors=205, console_lines=999_000)
    assert recorder.drain().unlisted == {}  # a drain starts the counts again


def test_only_the_sessions_own_report_lines_are_read():
    line = "iwc-quiet-abc123 " + json.dumps({"lines": 5000, "errors": 12, "uncaught": 3, "other": 9})
    assert browser_events.quiet_counts(line, "abc123") == {"lines": 5000, "errors": 12, "uncaught": 3}
    assert browser_events.quiet_counts(line, "another") is None  # the page cannot know the nonce
    assert browser_events.quiet_counts("iwc-quiet-abc123 not json", "abc123") is None
    assert browser_events.quiet_counts("iwc-quiet-abc123 [1, 2]", "abc123") is None


def test_the_bound_is_an_init_script_with_the_nonce_and_the_limits():
    script = browser_events.quiet_script("n0nce")
    assert script.startswith("((arg) => {") and '"nonce": "n0nce"' in script
    assert f'"lines": {browser_events.QUIET["lines"]}' in script


def test_browsers_get_a_home_and_a_download_folder_inside_the_session(tmp_path):
    env = launching.home_environment(tmp_path)
    assert env["HOME"] == str(tmp_path / "home")
    assert all(v.startswith(str(tmp_path / "home")) for v in env.values())
    assert all((tmp_path / "home" / sub).is_dir() for sub in (".config", ".cache", ".local/share"))
    assert launcher.home_environment(str(tmp_path / "home")) == env
    assert launching.PREFERENCES["download_restrictions"] == 3  # block all downloads


def test_the_launcher_points_the_profiles_downloads_into_the_session(tmp_path, monkeypatch):
    monkeypatch.setattr(launching, "chromium_path", lambda: "/usr/bin/chromium")
    script = launching.write_launcher(tmp_path, None, 1).read_text()
    assert f"--home {tmp_path / 'home'}" in script
    assert str(tmp_path / "home" / "Downloads") in script


def test_a_deadline_caps_waits_and_says_why():
    deadline = clock.Deadline.after(30)
    assert deadline.cap(10) == 10 and 29 < deadline.cap(100) <= 30
    assert not deadline.spent() and "app_timeout_s = 30 s" in deadline.why()
    assert deadline.sooner(29.5).spent()
    assert deadline.within(5).at < deadline.at and deadline.within(100) is deadline
    past = clock.Deadline(time.monotonic() - 1, 30)
    assert past.left() == 0 and past.cap(10) == 0 and past.spent()
    assert clock.Deadline.never().cap(7) == 7 and not clock.Deadline.never().spent()


@pytest.mark.parametrize("kind", ["console_errors", "page_errors"])
def test_runtime_errors_count_what_was_not_listed(kind):
    from iwcbench.pipeline.stages import scoring
    step = evidence.Step(index=0, action=evidence.Action(kind="load", target="http://x/"), url="http://x/",
                         **{kind: ("boom", "… and 300 more")},
                         unlisted=evidence.Unlisted(**{kind: 300}, console_lines=10_000))
    trace = evidence.Trace(explorer="heuristic", seed=0, max_steps=1, start_url="http://x/", steps=(step,))
    errors = scoring._errors(trace)["runtime_errors"]
    assert errors.value == 301.0  # the listed one and the 300 counted; "… and" is no error
    assert "flooded its console: 10,000 lines" in errors.reason
