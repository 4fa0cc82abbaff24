"""Unscored dimensions read as unscored with their reason, never as a number."""

from __future__ import annotations

import re

from iwcbench.pipeline.contracts import artifacts


def _row(page: str, name: str) -> str:
    match = re.search(rf"<tr[^>]*><td><b>{name}</b></td>.*?</tr>", page, re.S)
    assert match, f"no score row for {name}"
    return match.group(0)


def test_unscored_shows_the_reason_and_no_value(written):
    page = written.page("aurora-7b", "canvas-snake")
    row = _row(page, "aesthetics")
    assert 'class="is-unscored"' in row
    assert "unscored — only 2 of 5 judge runs gave a usable answer (3 needed)" in row
    assert not re.search(r'class="value">\s*[0-9]', row)


def test_scored_rows_show_value_unit_direction_reason_and_rationale(written):
    page = written.page("aurora-7b", "canvas-snake")
    usability = _row(page, "usability")
    assert "61.3" in usability and "0-100" in usability and "higher is better" in usability
    assert "trimmed mean of 5 judge runs" in usability and "crashes when the snake" in usability
    errors = _row(page, "console_errors")
    assert "1.0" in errors and "lower is better" in errors


def test_a_leaderboard_mean_that_is_none_is_unscored(written, tmp_path):
    from iwcbench.pipeline.stages import reporting

    rows = list(written.run.leaderboard)
    rows[1] = rows[1].model_copy(update={"metrics": {**rows[1].metrics, "aesthetics": None}})
    run = written.run.model_copy(update={"leaderboard": tuple(rows)})
    text = reporting.write_report(run, artifacts.Reader(written.read), tmp_path / "r").read_text(encoding="utf-8")
    brisk = re.search(r"<tr[^>]*>(?:(?!</tr>).)*brisk-3b.*?</tr>", text, re.S).group(0)
    assert '<span class="unscored">unscored</span>' in brisk
