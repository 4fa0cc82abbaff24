"""The copy holds the app's regular files and nothing that leads out of it."""

from __future__ import annotations

import os

from iwcbench.pipeline.stages.instrumenting import surveying


def test_files_and_folders_are_copied_without_git(app, tmp_path):
    src = app({"index.html": "<p>", "js/a.js": "x()", "node_modules/lib/i.js": "y()", ".git/HEAD": "ref"})
    dest = tmp_path / "site"

    problems = surveying.copy_app(src, dest)

    assert problems == []
    assert (dest / "index.html").read_text() == "<p>"
    assert (dest / "js/a.js").read_text() == "x()"
    assert (dest / "node_modules/lib/i.js").is_file()  # needed to serve, not instrumented
    assert not (dest / ".git").exists()


def test_links_out_of_the_app_and_fifos_are_not_copied(app, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    src = app({"index.html": "", "real.js": "ok()"})
    os.symlink(secret, src / "leak.txt")
    os.symlink(src / "real.js", src / "alias.js")
    os.symlink(tmp_path, src / "up")
    os.mkfifo(src / "pipe")
    dest = tmp_path / "site"

    surveying.copy_app(src, dest)

    assert not (dest / "leak.txt").exists()
    assert not (dest / "up").exists()
    assert not (dest / "pipe").exists()
    assert (dest / "alias.js").read_text() == "ok()"
    assert not (dest / "alias.js").is_symlink()


def test_an_unreadable_file_is_reported_not_raised(app, tmp_path):
    src = app({"index.html": "", "locked.js": "x"})
    (src / "locked.js").chmod(0)
    try:
        if os.access(src / "locked.js", os.R_OK):
            return  # running as root: every file is readable, nothing to report
        problems = surveying.copy_app(src, tmp_path / "site")
    finally:
        (src / "locked.js").chmod(0o644)
    assert [p.path for p in problems] == ["locked.js"]
    assert "could not copy" in problems[0].reason


def test_a_symlink_loop_is_reported_not_raised(app, tmp_path):
    # Python 3.11's resolve() raises RuntimeError on a loop, which carries no strerror
    src = app({"index.html": "<p>"})
    os.symlink(src / "b.js", src / "a.js")
    os.symlink(src / "a.js", src / "b.js")
    dest = tmp_path / "site"

    problems = surveying.copy_app(src, dest)

    assert (dest / "index.html").read_text() == "<p>"
    assert not (dest / "a.js").exists() and not (dest / "b.js").exists()
    assert sorted(p.path for p in problems) == ["a.js", "b.js"]
    assert all(p.reason.startswith("could not copy") for p in problems)
